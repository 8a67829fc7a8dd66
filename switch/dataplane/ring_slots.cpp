#include "switch/dataplane/ring_slots.h"

#include <fmt/format.h>
#include <rte_malloc.h>

#include <algorithm>
#include <stdexcept>

namespace spraylab::dataplane {

SlotPieces allocate_slots(uint32_t slots, const RingMemory& memory, int socket,
                          const std::string& ring) {
  SlotPieces p;
  if (!memory) {
    auto* all = static_cast<rte_mbuf**>(
        rte_malloc_socket("ring_slots", size_t{slots} * sizeof(rte_mbuf*), 64, socket));
    if (all == nullptr) throw std::runtime_error(fmt::format("ring {}: out of memory", ring));
    p.hot = all;
    p.rest = slots > kHotSlots ? all + kHotSlots : nullptr;
    p.owned = true;
    return p;
  }
  p.hot =
      static_cast<rte_mbuf**>(memory.hot(size_t{std::min(slots, kHotSlots)} * sizeof(rte_mbuf*)));
  if (slots > kHotSlots) {
    p.rest = static_cast<rte_mbuf**>(memory.own(size_t{slots - kHotSlots} * sizeof(rte_mbuf*)));
  }
  return p;
}

void free_slots(const SlotPieces& pieces) {
  if (pieces.owned) rte_free(pieces.hot);
}

}  // namespace spraylab::dataplane
