// One direction of a fabric link: an rte_ring of mbufs with one producer (the sending node) and
// one consumer (the receiving node), which may poll on different lcores. It models the wire: a
// frame of L bytes sent at `now` starts when the link is free and occupies it for
// (L + 24) x 8 / rate (FCS, preamble and gap, as the switch's Shaper charges); it has arrived a
// propagation delay after its FCS (store and forward):
//   start = max(free_at, now);  free_at = start + (L + 24) x 8 / rate;
//   arrival = start + (L + 4) x 8 / rate + delay.
// Preamble and gap count as idle time after the frame: the convention of the CCT lower bound
// (trafficgen/cct_bound.h), where a hop costs the frame's own serialisation and a slot on a busy
// link the gap as well. The arrival time rides in the mbuf (a dynamic field); the receiver takes
// only the frames whose arrival has passed. free_at is an exact double, so serialisation is exact
// at any rate (42.02 ns a slot for a 4096 B payload at 800 Gb/s) and rounding never accumulates;
// arrivals are rounded up to whole ns (a frame is not there before its last bit).
#pragma once

#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>
#include <rte_prefetch.h>
#include <rte_ring.h>

#include <array>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>
#include <string>

#include "fabric/event_queue.h"
#include "net/wire.h"
#include "switch/dataplane/egress_queue.h"

namespace spraylab::fabric {

// Offset of the arrival-time field (ns on the fabric clock) in every mbuf; registered once.
// Throws std::runtime_error if EAL cannot register it.
int arrival_field();

class Link {
 public:
  // `slots`: frames the link may hold (in flight or not yet taken), rounded up to a power of 2.
  // The ring lives on `memory` (the fabric's RingArena), else on EAL's heap. Throws
  // std::runtime_error.
  Link(const std::string& name, double rate_bps, double delay_ns, uint32_t slots,
       const dataplane::RingMemory& memory = {});
  ~Link();  // frees the frames still on it
  Link(const Link&) = delete;
  Link& operator=(const Link&) = delete;

  // --- producer ---
  // Puts up to n frames on the wire at `now`, in order; returns how many it took (fewer when
  // the ring is full: the rest stay with the caller, like a full NIC ring).
  uint16_t send(rte_mbuf** pkts, uint16_t n, uint64_t now);

  // --- consumer ---
  // Takes up to `max` frames that have arrived by `now`, in order.
  uint16_t receive(rte_mbuf** pkts, uint16_t max, uint64_t now);
  // Arrival time of the next frame, or UINT64_MAX if the link is empty.
  uint64_t next_arrival();

  // --- virtual time ---
  // The consumer to wake (event queue, node, tag) when a frame arrives. A link keeps at most one
  // wake pending: the producer arms it when it puts a frame on an unarmed link; the consumer,
  // having handled the wake, calls rearm() to be woken for what is left.
  void set_consumer(EventQueue* events, uint32_t node, uint32_t tag) {
    events_ = events;
    node_ = node;
    tag_ = tag;
  }
  void rearm(uint64_t now) {
    armed_ = false;
    const uint64_t t = next_arrival();
    if (t != UINT64_MAX) arm(std::max(t, now));
  }

  // Consumer, for a wake two events ahead: loads where the next frame's address is.
  void prefetch_consumer() const { rte_prefetch0(&head_pos_); }
  // Consumer, one event ahead: loads the next frame's mbuf, arrival field and headers, if it is
  // at hand. The headers are where every fabric frame has them (the default headroom; no private
  // area), so no load waits for the mbuf.
  void prefetch_head() const {
    if (head_pos_ == head_count_) return;
    const auto* m = reinterpret_cast<const uint8_t*>(head_[head_pos_]);
    rte_prefetch0(m);
    rte_prefetch0(m + RTE_CACHE_LINE_SIZE);
    rte_prefetch0(m + sizeof(rte_mbuf) + RTE_PKTMBUF_HEADROOM);
  }

  double rate_bps() const { return rate_bps_; }
  double delay_ns() const { return delay_ns_; }

  // --- control (any thread): link events (topo/link_events.h, Fabric::apply_link_event) ---
  // The link fails: the frames on it are lost (the consumer drops and counts them at its next
  // look, or now with purge()), and frames sent until restore() are dropped and counted.
  void fail() {
    down_.store(true, std::memory_order_release);
    purge_requests_.fetch_add(1, std::memory_order_release);
  }
  void restore() { down_.store(false, std::memory_order_release); }
  // The link's rate from the producer's next send on (frames already on it keep their times).
  void set_rate(double rate_bps) {
    rate_request_.store(std::bit_cast<uint64_t>(rate_bps), std::memory_order_release);
  }
  bool down() const { return down_.load(std::memory_order_acquire); }
  uint64_t lost_in_flight() const { return lost_.load(std::memory_order_relaxed); }
  uint64_t sent_while_down() const { return sent_down_.load(std::memory_order_relaxed); }
  // Consumer (or the virtual clock's thread): drops what a fail() left on the link now.
  void purge();

 private:
  void take_rate();
  uint16_t drop_sent(rte_mbuf** pkts, uint16_t n);
  bool purge_due() const { return purge_requests_.load(std::memory_order_acquire) != purges_done_; }
  void arm(uint64_t t) {
    armed_ = true;
    events_->push(t, node_, tag_);
  }
  uint64_t& arrival(rte_mbuf* m) const { return *RTE_MBUF_DYNFIELD(m, field_, uint64_t*); }

  // Producer's cache line.
  alignas(64) rte_ring* ring_ = nullptr;
  bool owns_ring_ = true;  // on EAL's heap (rte_free), else on the caller's memory
  int field_ = 0;
  double ns_per_byte_ = 0;
  double delay_ns_ = 0;
  double rate_bps_ = 0;
  double free_at_ = 0;  // exact, ns
  EventQueue* events_ = nullptr;
  uint32_t node_ = 0, tag_ = 0;
  bool armed_ = false;  // virtual time only: single-threaded
  std::atomic<uint64_t> sent_down_{0};
  // Control: written by link events, read by the data path at each send or receive.
  alignas(64) std::atomic<bool> down_{false};
  std::atomic<uint64_t> rate_request_{0};  // a double's bits; 0: none
  std::atomic<uint32_t> purge_requests_{0};
  // Consumer's: frames dequeued from the ring but not yet arrived (the ring has no peek that
  // works on every ring type without the experimental API).
  alignas(64) uint16_t head_pos_ = 0;
  uint16_t head_count_ = 0;
  uint32_t purges_done_ = 0;
  std::atomic<uint64_t> lost_{0};
  std::array<rte_mbuf*, net::kBurst> head_{};
};

inline uint16_t Link::send(rte_mbuf** pkts, uint16_t n, uint64_t now) {
  if (rate_request_.load(std::memory_order_relaxed) != 0) take_rate();
  if (down_.load(std::memory_order_relaxed)) return drop_sent(pkts, n);
  const unsigned room = rte_ring_free_count(ring_);
  if (n > room) n = static_cast<uint16_t>(room);
  if (n == 0) return 0;
  const auto t = static_cast<double>(now);
  for (uint16_t i = 0; i < n; ++i) {
    const double start = std::max(free_at_, t);
    const uint32_t len = rte_pktmbuf_pkt_len(pkts[i]);
    free_at_ = start + (len + net::kWireOverhead) * ns_per_byte_;
    arrival(pkts[i]) =
        static_cast<uint64_t>(std::ceil(start + (len + net::kFcsBytes) * ns_per_byte_ + delay_ns_));
  }
  // One producer and the room checked: it takes them all.
  rte_ring_sp_enqueue_burst(ring_, reinterpret_cast<void**>(pkts), n, nullptr);
  if (events_ != nullptr && !armed_) arm(arrival(pkts[0]));
  return n;
}

inline uint16_t Link::receive(rte_mbuf** pkts, uint16_t max, uint64_t now) {
  if (purge_due()) purge();
  uint16_t got = 0;
  while (got < max) {
    if (head_pos_ == head_count_) {
      head_pos_ = 0;
      head_count_ = static_cast<uint16_t>(rte_ring_sc_dequeue_burst(
          ring_, reinterpret_cast<void**>(head_.data()), net::kBurst, nullptr));
      if (head_count_ == 0) break;
    }
    rte_mbuf* m = head_[head_pos_];
    if (arrival(m) > now) break;
    pkts[got++] = m;
    ++head_pos_;
  }
  return got;
}

inline uint64_t Link::next_arrival() {
  if (purge_due()) purge();
  if (head_pos_ == head_count_) {
    head_pos_ = 0;
    head_count_ = static_cast<uint16_t>(rte_ring_sc_dequeue_burst(
        ring_, reinterpret_cast<void**>(head_.data()), net::kBurst, nullptr));
    if (head_count_ == 0) return UINT64_MAX;
  }
  return arrival(head_[head_pos_]);
}

}  // namespace spraylab::fabric
