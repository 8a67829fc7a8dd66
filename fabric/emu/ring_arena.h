// Memory for the fabric's rings (switch egress queues, link directions): rte_ring_init on memory
// handed out here instead of rte_ring_create, which takes one of EAL's 2560 memzones per ring (a
// k = 16 fat tree has 5120 switch ports). The arena maps large chunks of anonymous memory and
// hands them out in cache-line-aligned pieces: the kernel backs a page only when it is first
// touched, so a ring costs what its frames have passed through, not its size. A ring cycles
// through its slots, so one that carried few frames keeps most of its pages untouched. A single
// thread builds the fabric; the memory lives until the arena is destroyed (after every ring).
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "switch/dataplane/egress_queue.h"

namespace spraylab::fabric {

class RingArena {
 public:
  RingArena() = default;
  ~RingArena();
  RingArena(const RingArena&) = delete;
  RingArena& operator=(const RingArena&) = delete;

  // `bytes`, 64-byte aligned, contents undefined (fresh pages are zero; rte_ring_init writes
  // what it needs). Throws std::bad_alloc.
  void* allocate(size_t bytes);
  // allocate() as a switch's RingMemory; the arena must outlive the switch.
  dataplane::RingMemory memory() {
    return [this](size_t bytes) { return allocate(bytes); };
  }
  // Bytes mapped (reserved; resident is what was touched).
  size_t mapped() const { return mapped_; }

 private:
  static constexpr size_t kChunk = size_t{64} << 20;
  std::vector<std::pair<void*, size_t>> chunks_;
  char* next_ = nullptr;
  size_t left_ = 0;
  size_t mapped_ = 0;
};

}  // namespace spraylab::fabric
