// One direction of a fabric link: a ring of mbufs with one producer (the sending node) and one
// consumer (the receiving node), which may poll on different lcores. It models the wire: a
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
//
// The ring is the link's own single-producer single-consumer ring, not an rte_ring: its two
// indices live in the producer's and the consumer's cache lines of this object, and each side
// keeps the last value it saw of the other's, reading the other's line only when that copy says
// the ring is full (or empty). An rte_ring keeps its head and tail words in three cache lines of
// its own and reads the other side's on every operation: in a large virtual-time fabric, whose
// rings do not stay in cache, those reads were the largest stall of a send.
#pragma once

#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>
#include <rte_prefetch.h>

#include <array>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>
#include <string>

#include "fabric/emu/event_queue.h"
#include "fabric/emu/mbuf_pool.h"
#include "net/wire.h"
#include "switch/dataplane/ring_slots.h"

namespace spraylab::fabric {

// Offset of the arrival-time field (ns on the fabric clock) in every mbuf; registered once.
// Throws std::runtime_error if EAL cannot register it.
int arrival_field();

class Link {
 public:
  // `slots`: frames the link may hold (in flight or not yet taken), rounded up to a power of 2.
  // The ring lives on `memory` (the fabric's RingArena: its first slots packed with other rings',
  // switch/dataplane/ring_slots.h), else on EAL's heap. Throws std::runtime_error.
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
    events_ = rx_events_ = events;
    node_ = node;
    tag_ = tag;
    one_thread_ = events != nullptr;
  }
  void rearm(uint64_t now) {
    armed_ = false;
    if (tag_ & kRecordedTag) *wake_record_ = UINT64_MAX;
    const uint64_t t = next_arrival();
    if (t != UINT64_MAX) arm(rx_events_, std::max(t, now));
  }

  // Virtual time: keep the time of the pending wake (UINT64_MAX: none) at `*at`, in the
  // consumer's own memory, so that a consumer woken for another of its links can tell that this
  // one has nothing arrived without loading the link (HostNode: a host node's wake polls only its
  // links with a wake due now). The link writes it where it arms and rearms. After
  // set_consumer().
  void record_wakes(uint64_t* at) {
    wake_record_ = at;
    *at = UINT64_MAX;
    tag_ |= kRecordedTag;
  }

  // --- virtual time, partitioned (virtual_run.cpp): producer and consumer in two partitions ---
  // After set_consumer: the producer no longer arms the consumer's wake (another thread's queue),
  // and each end sees what the other did only at hand_over(): the consumer the frames sent
  // before the last barrier, the producer the room the consumer had made by then. Every frame
  // sent in a window arrives after it (the window is at most a link's delay), so the consumer
  // takes the same frames at the same times as with one queue.
  void set_crossing() {
    events_ = nullptr;
    one_thread_ = false;
    crossing_ = true;
  }
  bool crossing() const { return crossing_; }
  // At the barrier, no thread at either end: publish each end's index to the other, and arm the
  // consumer's wake if frames came while it had none.
  void hand_over() {
    prod_seen_ = prod_tail_.load(std::memory_order_acquire);
    cons_seen_ = cons_head_.load(std::memory_order_acquire);
    if (armed_) return;
    const uint64_t t = next_arrival();
    if (t != UINT64_MAX) arm(rx_events_, t);
  }

  // Consumer, for a wake two events ahead: loads where the next frame's address is: the line
  // of head_pos_, and the held burst's first 15 entries (two lines: a link holds a dozen frames
  // at 800 Gb/s over 500 ns), which prefetch_head() reads one event ahead.
  void prefetch_consumer() const {
    rte_prefetch0(&head_pos_);
    rte_prefetch0(&head_[0]);
    rte_prefetch0(&head_[8]);
  }
  // Consumer, one event ahead (virtual time): loads the next frame's mbuf, arrival field and
  // headers, if it is at hand. The headers are where every virtual-time frame has them, right
  // after the mbuf (its pools are compact: frame_data_offset), so no load waits for the mbuf.
  // Also the arrival field of the frame after it: a receive reads it to learn that it has not
  // arrived yet, and rearm() to arm the wake for it. A frame sent while the link was empty (its
  // consumer has not dequeued it: the wake the producer armed) is the ring's first: its slot is
  // read here (not on a crossing link), and the producer's index, which the receive reads.
  void prefetch_head() const {
    const uint8_t* m;
    if (head_pos_ != head_count_) {
      m = reinterpret_cast<const uint8_t*>(head_[head_pos_]);
      if (head_pos_ + 1 < head_count_)
        rte_prefetch0(reinterpret_cast<const uint8_t*>(head_[head_pos_ + 1]) + RTE_CACHE_LINE_SIZE);
    } else {
      if (crossing_) return;  // its slots are another thread's to write until the barrier
      rte_prefetch0(&prod_tail_);
      m = reinterpret_cast<const uint8_t*>(dataplane::ring_slot(
          cslots_, crest_, cons_head_.load(std::memory_order_relaxed) & cmask_));
    }
    rte_prefetch0(m);
    rte_prefetch0(m + RTE_CACHE_LINE_SIZE);
    rte_prefetch0(m + frame_data_offset(/*lazy=*/true));
  }

  // Producer: when the wire is free of every frame sent so far (ns, rounded up).
  uint64_t free_at_ns() const { return static_cast<uint64_t>(std::ceil(free_at_)); }
  double rate_bps() const { return rate_bps_; }
  double delay_ns() const { return delay_ns_; }

  // --- control (any thread): link events (topo/link_events.h, Fabric::apply_link_event) ---
  // The link fails: the frames on it are lost (the consumer drops and counts them at its next
  // look, or now with purge()), and frames sent until restore() are dropped and counted.
  void fail() {
    control_.fetch_or(kDown, std::memory_order_release);
    purge_requests_.fetch_add(1, std::memory_order_release);
  }
  void restore() { control_.fetch_and(static_cast<uint8_t>(~kDown), std::memory_order_release); }
  // The link's rate from the producer's next send on (frames already on it keep their times).
  void set_rate(double rate_bps) {
    rate_request_.store(std::bit_cast<uint64_t>(rate_bps), std::memory_order_release);
    control_.fetch_or(kRate, std::memory_order_release);
  }
  bool down() const { return (control_.load(std::memory_order_acquire) & kDown) != 0; }
  uint64_t lost_in_flight() const { return lost_.load(std::memory_order_relaxed); }
  uint64_t sent_while_down() const { return sent_down_.load(std::memory_order_relaxed); }
  // Consumer's, read after the run: frames taken, and how long after their arrival, summed (in
  // virtual time 0: a frame is taken when it arrives; in-process, what the CPU added).
  uint64_t taken() const { return taken_; }
  uint64_t taken_late_ns() const { return taken_late_ns_; }
  // Consumer (or the virtual clock's thread): drops what a fail() left on the link now.
  void purge();

 private:
  void take_rate();
  uint16_t drop_sent(rte_mbuf** pkts, uint16_t n);
  bool purge_due() const { return purge_requests_.load(std::memory_order_acquire) != purges_done_; }
  void arm(EventQueue* events, uint64_t t) {
    armed_ = true;
    // The flag in the tag, on the producer's (full) line, spares the other links the load of
    // wake_record_ from the cold line.
    if (tag_ & kRecordedTag) *wake_record_ = t;
    events->push(t, node_, tag_ & ~kRecordedTag);
  }
  uint64_t& arrival(rte_mbuf* m) const { return *RTE_MBUF_DYNFIELD(m, field_, uint64_t*); }

  // Frames [cons_head_, prod_tail_) are on the ring (indices wrap at 2^32; slot = index & mask).
  uint32_t dequeue(rte_mbuf** out, uint32_t max);  // consumer: up to max, oldest first

  // Producer's cache line: all a send reads and writes, and the control word it checks.
  static constexpr uint8_t kDown = 1, kRate = 2;  // control_ bits: failed; a rate is waiting
  alignas(64) rte_mbuf** slots_ = nullptr;        // the ring's hot piece (ring_slots.h)
  uint32_t mask_ = 0;  // slots - 1, also the capacity: one slot stays free
  std::atomic<uint32_t> prod_tail_{0};
  uint32_t cons_seen_ = 0;           // the consumer's head when the producer last looked
  uint16_t field_ = 0;               // arrival_field(): inside the mbuf's 128 bytes
  std::atomic<uint8_t> control_{0};  // written by link events, read at each send
  bool armed_ = false;               // virtual time only: the consumer's thread (and send's)
  uint32_t node_ = 0, tag_ = 0;
  double ns_per_byte_ = 0;
  double delay_ns_ = 0;
  double free_at_ = 0;            // exact, ns
  EventQueue* events_ = nullptr;  // the consumer's queue, for send to arm; null when crossing
  // Cold: read when the rate changes, counted when a sender meets a failed link.
  static constexpr uint32_t kRecordedTag = 0x80000000u;  // in tag_: record_wakes() was called
  alignas(64) double rate_bps_ = 0;
  uint64_t* wake_record_ = nullptr;  // record_wakes()
  // The slots past the hot piece: read only when the ring holds more than kHotSlots frames, so
  // they stay off the producer's line (which is full).
  rte_mbuf** rest_ = nullptr;
  bool owns_slots_ = true;                 // on EAL's heap (rte_free), else on the caller's memory
  std::atomic<uint64_t> rate_request_{0};  // a double's bits; 0: none
  std::atomic<uint64_t> sent_down_{0};
  std::atomic<uint64_t> lost_{0};  // the consumer's: frames a fail() took off the wire
  // Consumer's: frames dequeued from the ring but not yet arrived, a burst at a time.
  alignas(64) uint16_t head_pos_ = 0;
  uint16_t head_count_ = 0;
  uint32_t cmask_ = 0;  // slots_, rest_ and mask_ again, so a receive stays on this line
  rte_mbuf** cslots_ = nullptr;
  rte_mbuf** crest_ = nullptr;
  std::atomic<uint32_t> cons_head_{0};
  uint32_t prod_seen_ = 0;                   // the producer's tail when the consumer last looked
  std::atomic<uint32_t> purge_requests_{0};  // fail() asks; the consumer drops what is on it
  uint32_t purges_done_ = 0;
  uint64_t taken_ = 0;
  uint64_t taken_late_ns_ = 0;
  // Virtual time: producer and consumer are one thread, so a dequeue that empties the ring puts
  // both indices back to slot 0 (dequeue()).
  bool one_thread_ = false;
  bool crossing_ = false;            // set_crossing()
  EventQueue* rx_events_ = nullptr;  // the consumer's queue, for rearm() and hand_over()
  std::array<rte_mbuf*, net::kBurst> head_{};
};

inline uint16_t Link::send(rte_mbuf** pkts, uint16_t n, uint64_t now) {
  if (const uint8_t c = control_.load(std::memory_order_relaxed); c != 0) {
    if (c & kRate) take_rate();
    if (c & kDown) return drop_sent(pkts, n);
  }
  const uint32_t tail = prod_tail_.load(std::memory_order_relaxed);
  uint32_t room = mask_ - (tail - cons_seen_);
  if (room < n && !crossing_) {  // only then look at the consumer's line (crossing: hand_over)
    cons_seen_ = cons_head_.load(std::memory_order_acquire);
    room = mask_ - (tail - cons_seen_);
  }
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
  for (uint16_t i = 0; i < n; ++i)
    dataplane::ring_slot(slots_, rest_, (tail + i) & mask_) = pkts[i];
  prod_tail_.store(tail + n, std::memory_order_release);  // the slots before the index
  if (events_ != nullptr && !armed_) arm(events_, arrival(pkts[0]));
  return n;
}

inline uint16_t Link::receive(rte_mbuf** pkts, uint16_t max, uint64_t now) {
  if (purge_due()) purge();
  uint16_t got = 0;
  while (got < max) {
    if (head_pos_ == head_count_) {
      head_pos_ = 0;
      head_count_ = static_cast<uint16_t>(dequeue(head_.data(), net::kBurst));
      if (head_count_ == 0) break;
    }
    rte_mbuf* m = head_[head_pos_];
    if (arrival(m) > now) break;
    taken_late_ns_ += now - arrival(m);
    pkts[got++] = m;
    ++head_pos_;
  }
  taken_ += got;
  return got;
}

inline uint64_t Link::next_arrival() {
  if (purge_due()) purge();
  if (head_pos_ == head_count_) {
    head_pos_ = 0;
    head_count_ = static_cast<uint16_t>(dequeue(head_.data(), net::kBurst));
    if (head_count_ == 0) return UINT64_MAX;
  }
  return arrival(head_[head_pos_]);
}

inline uint32_t Link::dequeue(rte_mbuf** out, uint32_t max) {
  const uint32_t head = cons_head_.load(std::memory_order_relaxed);
  uint32_t avail = prod_seen_ - head;
  if (avail == 0 && !crossing_) {  // only then look at the producer's line (crossing: hand_over)
    prod_seen_ = prod_tail_.load(std::memory_order_acquire);
    avail = prod_seen_ - head;
  }
  const uint32_t n = avail < max ? avail : max;
  for (uint32_t i = 0; i < n; ++i)
    out[i] = dataplane::ring_slot(cslots_, crest_, (head + i) & cmask_);
  // Empty, in virtual time: start again at slot 0 (as EgressQueue does), so a link reuses the
  // same few cache lines instead of walking all its slots, and touches (makes resident: the
  // RingArena's pages) what it holds at once, not what has passed: a link holds a dozen frames
  // at 800 Gb/s over 500 ns, but 1024 slots are 8 KB and 49152 links at 8192 hosts were 350 MB.
  // A frame's slot does not matter to the order, so results are the same.
  if (one_thread_ && head + n == prod_tail_.load(std::memory_order_relaxed)) {
    prod_tail_.store(0, std::memory_order_relaxed);
    cons_seen_ = 0;
    prod_seen_ = 0;
    cons_head_.store(0, std::memory_order_relaxed);
    return n;
  }
  cons_head_.store(head + n, std::memory_order_release);  // the slots are read: reusable
  return n;
}

}  // namespace spraylab::fabric
