// An egress port's software queue (DESIGN.md, "How a packet flows": egress queue → shaper → tx):
// a multi-producer ring that every worker enqueues on, the frames its owner took from the ring
// but has not sent yet, the shaper that paces them at the link rate, and the queue's depth (in
// packets and bytes, ring and held frames together) with its maxima. The depth is the number the
// balancers read and the metrics export: EgressQueue is the only code that changes it.
//
// EgressQueues holds the queues of one switch. The depth counters live there, in arrays indexed
// by port, rather than inside each queue: a balancer reads several ports' depths per packet
// (lb::QueueView), and an array keeps 16 ports on one cache line.
//
// With trimming (buffer.trim) a queue has a second, small ring: the priority class of trimmed
// headers. Its frames go out ahead of every data frame not yet sent, the ones already taken from
// the data ring included, and count in the same depth.
//
// The methods run on the data path and are inline: no locks, no allocation, no exceptions.
#pragma once

#include <rte_mbuf.h>
#include <rte_prefetch.h>
#include <rte_ring.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "net/wire.h"
#include "switch/dataplane/shaper.h"
#include "switch/lb/queue_view.h"

namespace spraylab::dataplane {

// Memory for one ring of `bytes`, cache-line aligned, that outlives the ring; throws when there
// is none. An empty function: each ring is rte_ring_create's, one EAL memzone apiece (or, with
// one worker, rte_malloc'ed slots: spraylab-switch's few ports). A fabric has tens of thousands
// of ports and EAL only 2560 memzones, so it hands out memory of its own, for the slots of a
// one-worker queue (or an rte_ring_init'ed ring).
using RingMemory = std::function<void*(size_t bytes)>;

class EgressQueue {
 public:
  // Where this queue's depth and maxima are counted (EgressQueues's arrays).
  struct DepthSlots {
    std::atomic<uint32_t>* packets;
    std::atomic<uint32_t>* bytes;
    std::atomic<uint32_t>* max_packets;
    std::atomic<uint32_t>* max_bytes;
  };

  // A ring of `slots` (a power of two; it holds slots - 1) named `ring_name` (process-global for
  // a memzone ring), on `memory` if given. `single_producer`: one worker enqueues and drains
  // (virtual time, the in-process fabric, a one-worker switch), so neither the depth nor the
  // ring needs atomics: the depth is counted with plain loads and stores, and the ring is this
  // queue's own array with its two indices here, not an rte_ring, whose head and tail words (two
  // more cache lines, cold in a large fabric) and locked instructions were a fifth of a large
  // virtual-time run. The same frames in the same order either way. Throws std::runtime_error if
  // DPDK cannot create it.
  // `priority_slots` (a power of two, or 0 for none): the priority class's ring (trimmed
  // headers; it holds priority_slots - 1).
  EgressQueue(const std::string& ring_name, uint32_t slots, int socket, DepthSlots depth,
              bool single_producer, const RingMemory& memory = {}, uint32_t priority_slots = 0);
  ~EgressQueue();  // frees the frames still queued
  EgressQueue(EgressQueue&& other) noexcept;
  EgressQueue(const EgressQueue&) = delete;
  EgressQueue& operator=(const EgressQueue&) = delete;
  EgressQueue& operator=(EgressQueue&&) = delete;

  // --- any worker ---
  uint32_t depth_packets() const { return depth_.packets->load(std::memory_order_relaxed); }
  uint32_t depth_bytes() const { return depth_.bytes->load(std::memory_order_relaxed); }
  // Queues pkts[0..n), `bytes` in all. Returns how many went in; the ring refuses the rest only
  // when it is smaller than the buffer (--queue-packets), and pkts[queued..n) are then the
  // caller's to drop and count.
  uint16_t enqueue(rte_mbuf** pkts, uint16_t n, uint32_t bytes);
  // The same for the priority class: pkts[queued..n) did not fit its ring (or there is none).
  uint16_t enqueue_priority(rte_mbuf** pkts, uint16_t n, uint32_t bytes);
  bool has_priority() const { return prio_ != nullptr; }

  // --- the owner (the worker that drains the port) ---
  // Sends what the shaper lets start at `now_ns` through `tx`, a function (mbufs, count) → sent.
  // What the device does not take stays at the head of the queue, in order. Returns packets
  // sent; `bytes` gets their bytes.
  template <typename Tx>
  uint16_t drain(uint64_t now_ns, Tx&& tx, uint32_t& bytes);
  // Empties the queue (its port went down): `drop(m)` for every frame, in queue order.
  template <typename Drop>
  void discard(Drop&& drop);
  const Shaper& shaper() const { return shaper_; }
  void set_shaper(const Shaper& s) { shaper_ = s; }
  void set_rate(double rate_bps) { shaper_.set_rate(rate_bps); }
  // Virtual time: `near` false, the queue's own state; true, the frame at its head.
  void prefetch(bool near) const;

  // --- control plane ---
  // Maxima since the last call (then reset to the depth now): what a scrape reports.
  std::pair<uint32_t, uint32_t> take_max();
  uint32_t capacity() const { return single_ ? mask_ : rte_ring_get_capacity(ring_); }
  // Frames in the ring (not those held): for tests, with the data path stopped.
  uint32_t ring_count() const { return single_ ? tail_ - head_ : rte_ring_count(ring_); }

 private:
  uint16_t refill();
  void take_priority();
  void note_max(uint32_t packets, uint32_t bytes);
  // depth += n or depth -= n; returns the new depth. Readers on other threads (metrics, other
  // workers' balancers) see whole values either way: relaxed loads and stores of an atomic.
  uint32_t add(std::atomic<uint32_t>* depth, uint32_t n) const {
    if (single_) {
      const uint32_t v = depth->load(std::memory_order_relaxed) + n;
      depth->store(v, std::memory_order_relaxed);
      return v;
    }
    return depth->fetch_add(n, std::memory_order_relaxed) + n;
  }
  void sub(std::atomic<uint32_t>* depth, uint32_t n) const {
    if (single_) {
      depth->store(depth->load(std::memory_order_relaxed) - n, std::memory_order_relaxed);
    } else {
      depth->fetch_sub(n, std::memory_order_relaxed);
    }
  }

  // Up to n frames into the ring, in order; how many went in.
  uint16_t ring_enqueue(rte_mbuf** pkts, uint16_t n);
  // Up to n frames out of the ring, oldest first.
  uint16_t ring_dequeue(rte_mbuf** pkts, uint16_t n);

  rte_ring* ring_ = nullptr;    // several workers: a multi-producer rte_ring
  rte_mbuf** slots_ = nullptr;  // one worker: its own ring, frames [head_, tail_) (mod 2^32)
  uint32_t mask_ = 0;
  uint32_t head_ = 0, tail_ = 0;
  bool owns_ring_ = true;  // rte_ring_create's or rte_malloc's (freed with it), else RingMemory
  bool single_ = false;    // one worker: plain loads and stores, the queue's own ring
  Shaper shaper_;
  // Dequeued but not yet sent (shaper or full tx ring): the priority frames first (prio_held_ of
  // them, at most a burst), then at most a burst of data frames.
  std::array<rte_mbuf*, 2 * net::kBurst> held_{};
  uint16_t held_count_ = 0;
  uint16_t prio_held_ = 0;
  rte_ring* prio_ = nullptr;  // the priority class (trimmed headers); nullptr: none
  bool owns_prio_ = true;     // rte_ring_create's, else on RingMemory
  DepthSlots depth_;
};

// The egress queues of one switch and their depth arrays.
class EgressQueues {
 public:
  // `ports` queues, rings named after `switch_name`, of `slots` slots (a power of two) each (on
  // `memory` if given), and a buffer of `buffer_bytes` (the capacity a byte-unit balancer sees);
  // `workers` enqueue on them (EgressQueue: one is the single-producer case). No shaping until
  // set_shaper().
  // `priority_slots`: each queue's priority class (EgressQueue), 0 for none.
  EgressQueues(const std::string& switch_name, uint16_t ports, uint32_t slots,
               uint64_t buffer_bytes, int socket, uint32_t workers, const RingMemory& memory = {},
               uint32_t priority_slots = 0);

  EgressQueue& operator[](uint16_t p) { return queues_[p]; }
  const EgressQueue& operator[](uint16_t p) const { return queues_[p]; }
  // Every queue's depth in packets or in bytes, as balancers read it.
  lb::QueueView view(bool bytes) const;

 private:
  uint16_t ports_;
  std::unique_ptr<std::atomic<uint32_t>[]> packets_, bytes_, max_packets_, max_bytes_;
  std::vector<uint32_t> capacity_packets_, capacity_bytes_;
  std::vector<EgressQueue> queues_;
};

inline uint16_t EgressQueue::enqueue_priority(rte_mbuf** pkts, uint16_t n, uint32_t bytes) {
  if (prio_ == nullptr || n == 0) return 0;
  // As enqueue(): the depth first, what the ring refuses taken back.
  uint32_t np = add(depth_.packets, n);
  uint32_t nb = add(depth_.bytes, bytes);
  const auto queued = static_cast<uint16_t>(
      single_ ? rte_ring_sp_enqueue_burst(prio_, reinterpret_cast<void**>(pkts), n, nullptr)
              : rte_ring_mp_enqueue_burst(prio_, reinterpret_cast<void**>(pkts), n, nullptr));
  if (queued < n) {
    uint32_t refused = 0;
    for (uint16_t i = queued; i < n; ++i) refused += rte_pktmbuf_pkt_len(pkts[i]);
    sub(depth_.packets, n - queued);
    sub(depth_.bytes, refused);
    np -= n - queued;
    nb -= refused;
  }
  note_max(np, nb);
  return queued;
}

inline uint16_t EgressQueue::enqueue(rte_mbuf** pkts, uint16_t n, uint32_t bytes) {
  // The depth grows before the packets enter the ring, never after: with two workers the port's
  // owner may send them and subtract them the moment they are in the ring, and a subtraction
  // that came first would wrap the unsigned depth, and the owner would tail-drop everything for
  // that port until this worker's addition landed. (The ring's release/acquire orders the
  // addition before the owner's subtraction.) The price: packets the ring then refuses count in
  // the depth for the moment until they are taken back, which only a ring smaller than the buffer
  // (--queue-packets) ever does.
  uint32_t np = add(depth_.packets, n);
  uint32_t nb = add(depth_.bytes, bytes);
  const uint16_t queued = ring_enqueue(pkts, n);
  if (queued < n) {  // more packets than ring slots: take back what did not go in
    uint32_t refused = 0;
    for (uint16_t i = queued; i < n; ++i) refused += rte_pktmbuf_pkt_len(pkts[i]);
    sub(depth_.packets, n - queued);
    sub(depth_.bytes, refused);
    np -= n - queued;
    nb -= refused;
  }
  note_max(np, nb);
  return queued;
}

template <typename Tx>
uint16_t EgressQueue::drain(uint64_t now_ns, Tx&& tx, uint32_t& bytes) {
  bytes = 0;
  if (prio_ != nullptr) take_priority();
  if (held_count_ == prio_held_ && refill() == 0 && held_count_ == 0) return 0;
  // How many held frames the shaper lets start now: all of them, unshaped.
  uint16_t allowed = held_count_;
  if (shaper_.shaping()) {
    Shaper trial = shaper_;
    allowed = 0;
    while (allowed < held_count_ && trial.may_send(now_ns)) {
      trial.sent(rte_pktmbuf_pkt_len(held_[allowed]), now_ns);
      ++allowed;
    }
    if (allowed == 0) return 0;
  }
  const uint16_t sent = tx(held_.data(), allowed);
  for (uint16_t i = 0; i < sent; ++i) {
    const uint32_t len = rte_pktmbuf_pkt_len(held_[i]);
    bytes += len;
    shaper_.sent(len, now_ns);
  }
  for (uint16_t i = sent; i < held_count_; ++i) held_[i - sent] = held_[i];
  held_count_ = static_cast<uint16_t>(held_count_ - sent);
  prio_held_ = static_cast<uint16_t>(prio_held_ - std::min(prio_held_, sent));
  sub(depth_.packets, sent);
  sub(depth_.bytes, bytes);
  return sent;
}

template <typename Drop>
void EgressQueue::discard(Drop&& drop) {
  rte_mbuf* m[2 * net::kBurst];
  uint16_t n = held_count_;
  std::copy(held_.begin(), held_.begin() + n, m);
  held_count_ = prio_held_ = 0;
  if (prio_ != nullptr) {
    n = static_cast<uint16_t>(n + rte_ring_sc_dequeue_burst(prio_, reinterpret_cast<void**>(m + n),
                                                            net::kBurst, nullptr));
  }
  do {
    uint32_t bytes = 0;
    for (uint16_t i = 0; i < n; ++i) {
      bytes += rte_pktmbuf_pkt_len(m[i]);
      drop(m[i]);
    }
    sub(depth_.packets, n);
    sub(depth_.bytes, bytes);
    n = ring_dequeue(m, net::kBurst);
    if (n == 0 && prio_ != nullptr) {
      n = static_cast<uint16_t>(
          rte_ring_sc_dequeue_burst(prio_, reinterpret_cast<void**>(m), net::kBurst, nullptr));
    }
  } while (n > 0);
}

inline uint16_t EgressQueue::ring_enqueue(rte_mbuf** pkts, uint16_t n) {
  if (!single_) {
    return static_cast<uint16_t>(
        rte_ring_mp_enqueue_burst(ring_, reinterpret_cast<void**>(pkts), n, nullptr));
  }
  const uint32_t room = mask_ - (tail_ - head_);
  if (n > room) n = static_cast<uint16_t>(room);
  for (uint16_t i = 0; i < n; ++i) slots_[(tail_ + i) & mask_] = pkts[i];
  tail_ += n;
  return n;
}

inline uint16_t EgressQueue::ring_dequeue(rte_mbuf** pkts, uint16_t n) {
  if (!single_) {
    return static_cast<uint16_t>(
        rte_ring_sc_dequeue_burst(ring_, reinterpret_cast<void**>(pkts), n, nullptr));
  }
  const uint32_t avail = tail_ - head_;
  if (n > avail) n = static_cast<uint16_t>(avail);
  for (uint16_t i = 0; i < n; ++i) pkts[i] = slots_[(head_ + i) & mask_];
  head_ += n;
  // Empty: start again at slot 0. A queue its owner keeps draining then reuses the same few
  // cache lines instead of walking its whole ring (32 KB at 4096 slots; 16 ports' rings were
  // more than L2 and a fifth of the enqueue's time in store misses). Only this queue's worker
  // touches head_ and tail_.
  if (head_ == tail_) head_ = tail_ = 0;
  return n;
}

// A burst of data frames behind the priority frames held (if any).
inline uint16_t EgressQueue::refill() {
  const uint16_t n = ring_dequeue(held_.data() + held_count_, net::kBurst);
  held_count_ = static_cast<uint16_t>(held_count_ + n);
  return n;
}

// Priority frames from their ring, up to a burst held, go in front of the held data frames.
inline void EgressQueue::take_priority() {
  const uint16_t room = static_cast<uint16_t>(net::kBurst - prio_held_);
  if (room == 0) return;
  rte_mbuf* m[net::kBurst];
  const auto n = static_cast<uint16_t>(
      rte_ring_sc_dequeue_burst(prio_, reinterpret_cast<void**>(m), room, nullptr));
  if (n == 0) return;
  for (uint16_t i = held_count_; i > prio_held_; --i) held_[i - 1 + n] = held_[i - 1];
  std::copy(m, m + n, held_.begin() + prio_held_);
  prio_held_ = static_cast<uint16_t>(prio_held_ + n);
  held_count_ = static_cast<uint16_t>(held_count_ + n);
}

inline void EgressQueue::note_max(uint32_t packets, uint32_t bytes) {
  // Monotonic maxima without a lock: only raise, and only when higher (rare after warm-up).
  uint32_t m = depth_.max_packets->load(std::memory_order_relaxed);
  while (packets > m &&
         !depth_.max_packets->compare_exchange_weak(m, packets, std::memory_order_relaxed)) {
  }
  m = depth_.max_bytes->load(std::memory_order_relaxed);
  while (bytes > m &&
         !depth_.max_bytes->compare_exchange_weak(m, bytes, std::memory_order_relaxed)) {
  }
}

inline void EgressQueue::prefetch(bool near) const {
  if (!near) {
    rte_prefetch0(&held_count_);
  } else if (held_count_ > 0) {
    // Its length is what the shaper reads, its arrival field what the link writes.
    rte_prefetch0(held_[0]);
    rte_prefetch0(reinterpret_cast<const uint8_t*>(held_[0]) + RTE_CACHE_LINE_SIZE);
  }
}

}  // namespace spraylab::dataplane
