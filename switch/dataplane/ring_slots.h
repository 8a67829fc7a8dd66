// A ring's slot array in two pieces (issue 40): the first kHotSlots, which a ring that keeps
// emptying cycles through (an EgressQueue, and in virtual time a fabric Link, goes back to slot 0
// whenever it empties), and the rest, which only a ring holding more than kHotSlots frames at once
// reaches. On a fabric's RingArena (fabric/emu/ring_arena.h) the hot pieces of many rings are
// packed together, 8 to a 4 KB page, and the rest of each ring is memory of its own as before: a
// ring makes 512 B resident, not a page, until it holds more than kHotSlots frames at once, and
// never more than it did. 64 slots: what a link at 800 Gb/s over 500 ns holds (a dozen 4 KB frames
// in flight and their ACKs) and what a balanced egress queue holds (tens), with room to spare.
//
// Why this and not the alternatives: rings sized to what a link holds (delay x rate / smallest
// frame) would refuse frames a sender puts on ahead of the wire, which changes results; slots
// allocated in chunks on demand put an allocation, or a chunk table, in front of every slot;
// interleaving every block of many rings makes a ring that never empties (a congested queue walks
// its whole ring) resident its neighbours' pages too. Here a slot costs one compare (the hot branch
// nearly always), the hot piece is whole cache lines (rings on different lcores share no line),
// and without a RingArena (a standalone switch) the two pieces are one contiguous array.
#pragma once

#include <rte_mbuf.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

namespace spraylab::dataplane {

inline constexpr uint32_t kHotSlots = 64;

// Memory for rings that outlives them, cache-line aligned; each function throws when there is
// none. `hot`: small pieces packed with other rings'; `own`: a piece of a ring's own. Empty: the
// rings take rte_malloc's memory. A fabric has tens of thousands of rings and hands out memory of
// its own (fabric/emu/ring_arena.h).
struct RingMemory {
  std::function<void*(size_t bytes)> hot;
  std::function<void*(size_t bytes)> own;
  explicit operator bool() const { return static_cast<bool>(own); }
};

// The two pieces of a ring of `slots`: slot i < kHotSlots at hot[i], the others at
// rest[i - kHotSlots] (nullptr if slots <= kHotSlots).
struct SlotPieces {
  rte_mbuf** hot = nullptr;
  rte_mbuf** rest = nullptr;
  bool owned = false;  // one rte_malloc array (free_slots frees it), else on a RingMemory
};

// Slots for a ring of `slots` (a power of two): on `memory` if given, else one array from
// rte_malloc on `socket`. Throws std::runtime_error naming `ring`.
SlotPieces allocate_slots(uint32_t slots, const RingMemory& memory, int socket,
                          const std::string& ring);
void free_slots(const SlotPieces& pieces);

// Slot i (already masked) of a ring in pieces `hot` and `rest`.
inline rte_mbuf*& ring_slot(rte_mbuf** hot, rte_mbuf** rest, uint32_t i) {
  if (i < kHotSlots) [[likely]]
    return hot[i];
  return rest[i - kHotSlots];
}

}  // namespace spraylab::dataplane
