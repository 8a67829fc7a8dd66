// Memory for the fabric's rings (switch egress queues, link directions): their slots on memory
// handed out here instead of rte_ring_create, which takes one of EAL's 2560 memzones per ring (a
// k = 16 fat tree has 5120 switch ports). The arena maps large chunks of anonymous memory and
// hands them out in cache-line-aligned pieces: the kernel backs a page only when it is first
// touched, so a ring costs what its frames have touched, not its size. Two kinds of piece
// (switch/dataplane/ring_slots.h): a ring's hot piece (its first slots, all a ring that keeps
// emptying ever uses) is packed with other rings' hot pieces, 8 to a page, and the rest of the ring
// is a piece of its own, touched only by a ring that holds more at once. When every ring's first
// slots sat at the start of its own 8-32 KB, every ring that carried a frame cost a 4 KB page: 80%
// of a fabric's memory per port (docs/fabric.md, "Memory per host and per port"). A single thread
// builds the fabric; the memory lives until the arena is destroyed (after every ring).
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "switch/dataplane/ring_slots.h"

namespace spraylab::fabric {

class RingArena {
 public:
  RingArena() = default;
  ~RingArena();
  RingArena(const RingArena&) = delete;
  RingArena& operator=(const RingArena&) = delete;

  // `bytes`, 64-byte aligned, contents undefined (fresh pages are zero; rte_ring_init writes
  // what it needs), beside the other pieces of its kind: allocate() beside other rings' own
  // pieces, allocate_hot() beside other hot pieces. Throw std::bad_alloc.
  void* allocate(size_t bytes) { return take(own_, bytes); }
  void* allocate_hot(size_t bytes) { return take(hot_, bytes); }
  // The two as rings' RingMemory; the arena must outlive the rings.
  dataplane::RingMemory memory() {
    return {[this](size_t bytes) { return allocate_hot(bytes); },
            [this](size_t bytes) { return allocate(bytes); }};
  }
  // Bytes mapped (reserved; resident is what was touched).
  size_t mapped() const { return mapped_; }
  // Bytes of it resident now (mincore): the pages the rings have touched.
  size_t resident() const;

 private:
  static constexpr size_t kChunk = size_t{64} << 20;
  struct Cursor {  // where the next piece of a kind goes in its chunk
    char* next = nullptr;
    size_t left = 0;
  };
  void* take(Cursor& c, size_t bytes);
  std::vector<std::pair<void*, size_t>> chunks_;
  Cursor own_, hot_;
  size_t mapped_ = 0;
};

}  // namespace spraylab::fabric
