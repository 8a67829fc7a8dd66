#include "fabric/emu/link.h"

#include <fmt/format.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_mbuf_dyn.h>

#include <stdexcept>

namespace spraylab::fabric {

int arrival_field() {
  static const int offset = [] {
    rte_mbuf_dynfield f{};
    std::snprintf(f.name, sizeof(f.name), "spraylab_fabric_arrival");
    f.size = sizeof(uint64_t);
    f.align = alignof(uint64_t);
    const int off = rte_mbuf_dynfield_register(&f);
    if (off < 0) {
      throw std::runtime_error(
          fmt::format("cannot register the mbuf arrival field: {}", rte_strerror(rte_errno)));
    }
    return off;
  }();
  return offset;
}

Link::Link(const std::string& name, double rate_bps, double delay_ns, uint32_t slots,
           const dataplane::RingMemory& memory)
    : field_(static_cast<uint16_t>(arrival_field())),
      ns_per_byte_(8e9 / rate_bps),
      delay_ns_(delay_ns),
      rate_bps_(rate_bps) {
  if (!(rate_bps > 0)) throw std::invalid_argument(fmt::format("link {}: rate must be > 0", name));
  uint32_t count = 64;
  while (count < slots + 1) count <<= 1;  // a ring holds count - 1
  // On the fabric's RingArena (a fat tree of 432 hosts has 2592 link directions), which touches
  // a page only when a frame does and packs the rings' first slots together; alone, on EAL's heap.
  const dataplane::SlotPieces pieces =
      dataplane::allocate_slots(count, memory, SOCKET_ID_ANY, "link " + name);
  slots_ = cslots_ = pieces.hot;
  rest_ = crest_ = pieces.rest;
  owns_slots_ = pieces.owned;
  mask_ = cmask_ = count - 1;
}

void Link::purge() {
  purges_done_ = purge_requests_.load(std::memory_order_acquire);
  uint64_t lost = 0;
  for (uint16_t i = head_pos_; i < head_count_; ++i, ++lost) rte_pktmbuf_free(head_[i]);
  head_pos_ = head_count_ = 0;
  rte_mbuf* m = nullptr;
  while (dequeue(&m, 1) == 1) {
    rte_pktmbuf_free(m);
    ++lost;
  }
  lost_.fetch_add(lost, std::memory_order_relaxed);
}

void Link::take_rate() {
  control_.fetch_and(static_cast<uint8_t>(~kRate), std::memory_order_acq_rel);
  const double rate = std::bit_cast<double>(rate_request_.exchange(0, std::memory_order_acquire));
  if (!(rate > 0)) return;
  rate_bps_ = rate;
  ns_per_byte_ = 8e9 / rate;
}

uint16_t Link::drop_sent(rte_mbuf** pkts, uint16_t n) {
  // A sender that did not see its port go down: the frames are lost on the dead wire, counted.
  rte_pktmbuf_free_bulk(pkts, n);
  sent_down_.fetch_add(n, std::memory_order_relaxed);
  return n;
}

Link::~Link() {
  for (uint16_t i = head_pos_; i < head_count_; ++i) rte_pktmbuf_free(head_[i]);
  rte_mbuf* m = nullptr;
  while (dequeue(&m, 1) == 1) rte_pktmbuf_free(m);
  dataplane::free_slots(dataplane::SlotPieces{slots_, rest_, owns_slots_});
}

}  // namespace spraylab::fabric
