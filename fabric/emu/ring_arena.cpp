#include "fabric/emu/ring_arena.h"

#include <sys/mman.h>

#include <unistd.h>

#include <new>
#include <vector>

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

size_t RingArena::resident() const {
  const auto page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  size_t pages = 0;
  std::vector<unsigned char> in;
  for (auto [p, n] : chunks_) {
    in.assign((n + page - 1) / page, 0);
    if (mincore(p, n, in.data()) != 0) continue;
    for (unsigned char b : in) pages += b & 1;
  }
  return pages * page;
}

void* RingArena::take(Cursor& c, size_t bytes) {
  bytes = (bytes + 63) & ~size_t{63};
  if (bytes > kChunk / 4) {  // a ring of its own
    void* p = map(bytes);
    chunks_.emplace_back(p, bytes);
    mapped_ += bytes;
    return p;
  }
  if (bytes > c.left) {
    c.next = static_cast<char*>(map(kChunk));
    chunks_.emplace_back(c.next, kChunk);
    c.left = kChunk;
    mapped_ += kChunk;
  }
  void* p = c.next;
  c.next += bytes;
  c.left -= bytes;
  return p;
}

}  // namespace spraylab::fabric
