#include "fabric/emu/ring_arena.h"

#include <sys/mman.h>

#include <new>

namespace spraylab::fabric {
namespace {

void* map(size_t bytes) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  // Small pages: a transparent huge page would make a ring's first touch resident 2 MB at once,
  // its neighbours' untouched slots with it.
  madvise(p, bytes, MADV_NOHUGEPAGE);
  return p;
}

}  // namespace

RingArena::~RingArena() {
  for (auto [p, n] : chunks_) munmap(p, n);
}

void* RingArena::allocate(size_t bytes) {
  bytes = (bytes + 63) & ~size_t{63};
  if (bytes > kChunk / 4) {  // a ring of its own
    void* p = map(bytes);
    chunks_.emplace_back(p, bytes);
    mapped_ += bytes;
    return p;
  }
  if (bytes > left_) {
    next_ = static_cast<char*>(map(kChunk));
    chunks_.emplace_back(next_, kChunk);
    left_ = kChunk;
    mapped_ += kChunk;
  }
  void* p = next_;
  next_ += bytes;
  left_ -= bytes;
  return p;
}

}  // namespace spraylab::fabric
