// An egress port's software queues (DESIGN.md, "How a packet flows": egress queue → shaper → tx),
// one per worker and port (issue 44): worker w enqueues only on its own queue of each port, so no
// ring on the hot path has two producers and no depth word is written by two workers.
//
// An EgressQueue is one worker's queue on one port: a single-producer ring, the frames its drainer
// took from the ring but has not sent yet, and the shaper the drainer paces them with. Who drains
// it (EgressQueues says which):
//   - one worker (virtual time, the in-process fabric, a one-worker switch): that worker, as ever;
//   - several workers, each with a device tx queue of its own on every port (per_worker_tx): the
//     worker itself, into its own tx queue; its queue never leaves its core;
//   - several workers sharing a port's one tx queue (or a shaped port): the port's owner drains
//     every worker's queue of the port, in turn, through the port's one shaper; a queue whose
//     producer is another worker is a single-producer single-consumer ring between the two.
//
// Depth. The balancers and the metrics read a port's depth: its total over workers.
//   - One worker: a live word per port, changed by enqueue (+) and drain (−), as before.
//   - Several: monotonic tallies, each written by one worker only: what worker w put into port p's
//     queues (in) and what it took out of the queues it drains (out); the port's depth is
//     Σ in − Σ out. Nothing is written by two workers, and only once per burst and port. A reader
//     loads every out before any in (acquire/release: a frame counted out was counted in first),
//     so the difference never goes below zero. Balancers read a per-burst snapshot of these sums
//     (Forwarder::queue_view): docs/switch.md says how stale it is.
//
// With trimming (buffer.trim) each queue has a second, small ring: the priority class of trimmed
// headers. Its frames go out ahead of every data frame of that queue not yet sent, the ones
// already taken from the data ring included, and count in the same depth. With several workers
// sharing a port's tx queue, priority holds within each worker's queue: the owner still takes the
// workers' queues a burst each in turn (docs/switch.md, "Trimming").
//
// Virtual channels (buffer.virtual_channels, one worker only): a port has one queue per VC, all
// counted in the port's one depth (the same live words), each drained on its own so that a VC
// out of credits (or paused) holds up no other's frames (Forwarder::drain).
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
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "net/wire.h"
#include "switch/dataplane/ring_slots.h"
#include "switch/dataplane/shaper.h"
#include "switch/lb/queue_view.h"

namespace spraylab::dataplane {

class EgressQueue {
 public:
  // Who produces and who drains (the file's comment).
  enum class Mode : uint8_t {
    kOnly,   // one worker: the depth is a live word, added and subtracted
    kOwn,    // several workers; this queue's producer drains it: tallies, a ring of its own
    kCross,  // several; another worker drains it: tallies, a single-producer single-consumer ring
  };
  // Where this queue's depth is counted. kOnly: in and out are the port's live words (out is
  // subtracted from). Else: the producer's in tallies and the drainer's out tallies for the port.
  struct DepthSlots {
    std::atomic<uint32_t>* in_packets;
    std::atomic<uint32_t>* in_bytes;
    std::atomic<uint32_t>* out_packets;
    std::atomic<uint32_t>* out_bytes;
    std::atomic<uint32_t>* max_packets;  // kOnly: raised at enqueue (EgressQueues does it else)
    std::atomic<uint32_t>* max_bytes;
  };

  // A ring of `slots` (a power of two; it holds slots - 1), on `memory` if given (else rte_malloc
  // on `socket`). Throws std::runtime_error if there is no memory.
  // `priority_slots` (a power of two, or 0 for none): the priority class's ring (trimmed
  // headers; it holds priority_slots - 1).
  EgressQueue(const std::string& name, uint32_t slots, int socket, DepthSlots depth, Mode mode,
              const RingMemory& memory = {}, uint32_t priority_slots = 0);
  ~EgressQueue();  // frees the frames still queued
  EgressQueue(EgressQueue&& other) noexcept;
  EgressQueue(const EgressQueue&) = delete;
  EgressQueue& operator=(const EgressQueue&) = delete;
  EgressQueue& operator=(EgressQueue&&) = delete;

  Mode mode() const { return mode_; }
  // kOnly: the port's depth (any thread). Else: frames in this queue, ring and held (the drainer
  // only).
  uint32_t depth_packets() const {
    if (mode_ == Mode::kOnly) return depth_.in_packets->load(std::memory_order_relaxed);
    return frames();
  }
  // Frames in this queue alone, ring and held (the drainer only): with VCs, one VC's.
  uint32_t frames() const {
    return ring_count() + held_count_ + (prio_ != nullptr ? rte_ring_count(prio_) : 0);
  }

  // --- the producer (its worker) ---
  // Queues pkts[0..n), `bytes` in all. Returns how many went in; the ring refuses the rest only
  // when it is smaller than the buffer (--queue-packets), and pkts[queued..n) are then the
  // caller's to drop and count.
  uint16_t enqueue(rte_mbuf** pkts, uint16_t n, uint32_t bytes);
  // The same for the priority class: pkts[queued..n) did not fit its ring (or there is none).
  uint16_t enqueue_priority(rte_mbuf** pkts, uint16_t n, uint32_t bytes);
  bool has_priority() const { return prio_ != nullptr; }

  // --- the drainer ---
  // Sends what `shaper` (the port's) lets start at `now_ns` through `tx`, a function (mbufs,
  // count) → sent. What the device does not take stays at the head of the queue, in order.
  // Returns packets sent; `bytes` gets their bytes.
  template <typename Tx>
  uint16_t drain(uint64_t now_ns, Shaper& shaper, Tx&& tx, uint32_t& bytes);
  template <typename Tx>
  uint16_t drain(uint64_t now_ns, Tx&& tx, uint32_t& bytes) {
    return drain(now_ns, shaper_, std::forward<Tx>(tx), bytes);
  }
  // Frames taken from the ring but not sent (the shaper or the device held them back).
  uint16_t held() const { return held_count_; }
  // Empties the queue (its port went down): `drop(m)` for every frame, in queue order.
  template <typename Drop>
  void discard(Drop&& drop);
  const Shaper& shaper() const { return shaper_; }
  Shaper& shaper() { return shaper_; }
  void set_shaper(const Shaper& s) { shaper_ = s; }
  void set_rate(double rate_bps) { shaper_.set_rate(rate_bps); }
  // Virtual time: `near` false, the queue's own state; true, the frame at its head.
  void prefetch(bool near) const;

  // --- control plane ---
  uint32_t capacity() const { return mask_; }
  // Frames in the ring (not those held): for tests, with the data path stopped.
  uint32_t ring_count() const {
    if (mode_ != Mode::kCross) return tail_ - head_;
    return cross_->tail.load(std::memory_order_acquire) -
           cross_->head.load(std::memory_order_acquire);
  }

 private:
  // A kCross ring's indices: each written by one side, on a line of its own, with the other
  // side's last value seen beside it so that most bursts read no line the other core writes.
  struct alignas(64) CrossIndex {
    std::atomic<uint32_t> tail{0};              // the producer's
    uint32_t head_seen = 0;                     // the producer's copy of head
    alignas(64) std::atomic<uint32_t> head{0};  // the drainer's
    uint32_t tail_seen = 0;                     // the drainer's copy of tail
  };

  uint16_t refill();
  void take_priority();
  // enqueue()'s and enqueue_priority()'s steps around `put` (mbufs, count) → how many its ring
  // took: the depth counted first, what the ring refused taken back.
  template <typename Put>
  uint16_t enqueue_counted(rte_mbuf** pkts, uint16_t n, uint32_t bytes, Put&& put);
  void note_max(uint32_t packets, uint32_t bytes);
  // The producer's side of the depth: kOnly, depth += n and the new depth; else in += n.
  uint32_t count_in(std::atomic<uint32_t>* slot, uint32_t n) const {
    // One writer either way (kOnly: the only worker; else the producer's own tally): a load and
    // a store, no locked instruction. Readers on other threads see whole values.
    const uint32_t v = slot->load(std::memory_order_relaxed) + n;
    slot->store(v, std::memory_order_relaxed);
    return v;
  }
  void uncount_in(std::atomic<uint32_t>* slot, uint32_t n) const {
    slot->store(slot->load(std::memory_order_relaxed) - n, std::memory_order_relaxed);
  }
  // The drainer's side: kOnly, depth -= n; else out += n, released: a reader that sees it sees
  // the in tallies of these frames too.
  void count_out(std::atomic<uint32_t>* slot, uint32_t n) const {
    if (mode_ == Mode::kOnly) {
      slot->store(slot->load(std::memory_order_relaxed) - n, std::memory_order_relaxed);
    } else {
      slot->store(slot->load(std::memory_order_relaxed) + n, std::memory_order_release);
    }
  }

  // Up to n frames into the ring, in order; how many went in.
  uint16_t ring_enqueue(rte_mbuf** pkts, uint16_t n);
  // Up to n frames out of the ring, oldest first.
  uint16_t ring_dequeue(rte_mbuf** pkts, uint16_t n);

  rte_mbuf** slots_ = nullptr;  // frames [head, tail) (mod 2^32): the hot piece (ring_slots.h)
  uint32_t mask_ = 0;
  uint32_t head_ = 0, tail_ = 0;  // kOnly, kOwn: one worker's own indices
  bool owns_slots_ = true;        // rte_malloc's (freed with the queue), else RingMemory's
  Mode mode_ = Mode::kOnly;
  uint16_t held_count_ = 0;
  Shaper shaper_;
  // Dequeued but not yet sent (shaper or full tx ring): the priority frames first (prio_held_ of
  // them, at most a burst), then at most a burst of data frames.
  std::array<rte_mbuf*, 2 * net::kBurst> held_{};
  uint16_t prio_held_ = 0;
  // The priority class (trimmed headers); nullptr: none. One producer (this queue's worker), one
  // consumer (its drainer): an SP/SC rte_ring whichever cores they are on.
  rte_ring* prio_ = nullptr;
  bool owns_prio_ = true;  // rte_ring_create's, else on RingMemory
  DepthSlots depth_;
  std::unique_ptr<CrossIndex> cross_;  // kCross only
  rte_mbuf** rest_ = nullptr;          // the slots past the hot piece, reached only when deep
};

// The egress queues of one switch: `workers` per port, their depths and maxima.
class EgressQueues {
 public:
  // `ports` × `workers` queues named after `switch_name`, of `slots` slots (a power of two) each
  // (on `memory` if given), and a buffer of `buffer_bytes` (the capacity a byte-unit balancer
  // sees). `per_worker_tx`: each worker drains its own queues (it has a device tx queue of its own
  // on every port); else port p's owner, owner(p), drains all of p's. No shaping until
  // set_shaper(). `vcs` > 1 (one worker only: std::invalid_argument else): a queue per port and
  // virtual channel, VC 0's the port's queue (queue(p, 0)).
  EgressQueues(const std::string& switch_name, uint16_t ports, uint32_t slots,
               uint64_t buffer_bytes, int socket, uint32_t workers, bool per_worker_tx,
               const RingMemory& memory = {}, uint32_t priority_slots = 0, uint8_t vcs = 1);

  uint32_t workers() const { return workers_; }
  bool per_worker_tx() const { return per_worker_tx_; }
  // The worker that drains port p's queues when the workers share its tx queue (plan_workers
  // gives it the port).
  // A table, not p % workers_: flush() asks for port_queue() per port and burst, and the division
  // there was about 1 % of the one-worker forwarder's samples (fwd_bench, 4 ports).
  uint32_t owner(uint16_t p) const { return owners_[p]; }
  // Worker w's queue on port p. Worker by worker, each worker's ports together: a queue's
  // neighbours in memory are the same worker's, so no line holds the end of one worker's queue
  // (the depth slots every enqueue reads, the priority count every drain writes) and the start
  // of another's (the ring indices it writes on every burst).
  EgressQueue& queue(uint16_t p, uint32_t w) { return queues_[size_t{w} * ports_ + p]; }
  const EgressQueue& queue(uint16_t p, uint32_t w) const { return queues_[size_t{w} * ports_ + p]; }
  // Virtual channels: VC `vc`'s queue of port p (one worker; VC 0's is queue(p, 0)). Its shaper
  // is unused: the port's (port_queue(p)) paces every VC.
  uint8_t vcs() const { return vcs_; }
  EgressQueue& vc_queue(uint16_t p, uint8_t vc) {
    return vc == 0 ? queue(p, 0) : vc_queues_[size_t{vc - 1u} * ports_ + p];
  }
  const EgressQueue& vc_queue(uint16_t p, uint8_t vc) const {
    return vc == 0 ? queue(p, 0) : vc_queues_[size_t{vc - 1u} * ports_ + p];
  }
  // The queue whose shaper paces port p (its drainer's own; with per_worker_tx, any: unshaped).
  EgressQueue& port_queue(uint16_t p) { return *port_queues_[p]; }
  const EgressQueue& port_queue(uint16_t p) const { return *port_queues_[p]; }

  // --- the data path ---
  // Worker w queues pkts[0..n) (`bytes` in all) on port p; as EgressQueue::enqueue.
  uint16_t enqueue(uint16_t p, uint32_t w, rte_mbuf** pkts, uint16_t n, uint32_t bytes);
  // The same into the priority class (trimmed headers).
  uint16_t enqueue_priority(uint16_t p, uint32_t w, rte_mbuf** pkts, uint16_t n, uint32_t bytes);
  // What worker w would drain of port p: its own queue's frames (per_worker_tx), the port's
  // total at its owner, 0 at any other worker.
  uint32_t pending(uint16_t p, uint32_t w) const;
  // Worker w drains port p (the queues it drains there, one burst each, in turn, through the
  // port's shaper). Returns packets sent, `bytes` their bytes.
  template <typename Tx>
  uint16_t drain(uint16_t p, uint32_t w, uint64_t now_ns, Tx&& tx, uint32_t& bytes);
  // Worker w empties the queues it drains of port p (the port went down).
  template <typename Drop>
  void discard(uint16_t p, uint32_t w, Drop&& drop);
  // Port p's shaper gets a new rate (its drainer's call).
  void set_rate(uint16_t p, double rate_bps) { port_queue(p).set_rate(rate_bps); }

  // --- any thread ---
  // Port p's depth: its total over workers.
  uint32_t depth_packets(uint16_t p) const;
  uint32_t depth_bytes(uint16_t p) const;
  // Every port's depth in packets or in bytes, as balancers read it. view(bytes): one worker's
  // live words. view(bytes, snapshot): one worker, the same; several, `snapshot` (a word per
  // port, the caller's) filled with the totals now.
  lb::QueueView view(bool bytes) const;
  lb::QueueView view(bool bytes, std::atomic<uint32_t>* snapshot) const;
  // Who takes the maxima. Each reader gets the maximum since its own last take, so a metrics
  // scrape does not take the interval a run's results read (a launcher's /spraylab/queue_max
  // before and after a run, the in-process fabric's summary at its end), nor the reverse.
  enum class MaxReader : uint8_t { kResults, kScrape, kCount };
  static constexpr size_t kMaxReaders = static_cast<size_t>(MaxReader::kCount);
  // Port p's maxima in packets and bytes since reader r's last take (each interval starts at the
  // depth of the take that opened it). The takers only (control lcore, metrics thread).
  std::pair<uint32_t, uint32_t> take_max(uint16_t p, MaxReader r);
  // The shaper of every queue of port p.
  void set_shaper(uint16_t p, const Shaper& s) {
    for (uint32_t w = 0; w < workers_; ++w) queue(p, w).set_shaper(s);
  }

 private:
  enum Tally { kInPackets, kInBytes, kOutPackets, kOutBytes, kTallies };
  struct alignas(64) Line {
    std::atomic<uint32_t> v[16];
  };
  // Worker w's tally `t`, indexed by port: a line-aligned array no other worker writes.
  std::atomic<uint32_t>* tally(uint32_t w, Tally t) const {
    return reinterpret_cast<std::atomic<uint32_t>*>(
        &tallies_[(size_t{w} * kTallies + t) * lines_per_tally_]);
  }
  uint32_t total(uint16_t p, Tally in, Tally out) const {
    uint32_t o = 0, i = 0;
    for (uint32_t w = 0; w < workers_; ++w) o += tally(w, out)[p].load(std::memory_order_acquire);
    for (uint32_t w = 0; w < workers_; ++w) i += tally(w, in)[p].load(std::memory_order_relaxed);
    return i - o;
  }
  static void raise(std::atomic<uint32_t>& max, uint32_t v);

  uint16_t ports_;
  uint32_t workers_;
  bool per_worker_tx_;
  std::unique_ptr<std::atomic<uint32_t>[]> packets_, bytes_, max_packets_, max_bytes_;
  // take_max: what each reader has not taken yet of the maxima the data path's words gave up
  // to another reader's take. Touched by the takers only, under take_mutex_ (never the data path).
  struct Untaken {
    uint32_t packets = 0, bytes = 0;
  };
  std::unique_ptr<std::mutex> take_mutex_ = std::make_unique<std::mutex>();
  std::vector<std::array<Untaken, kMaxReaders>> untaken_max_;
  size_t lines_per_tally_ = 0;
  std::unique_ptr<Line[]> tallies_;  // several workers: kTallies arrays per worker
  std::vector<uint32_t> capacity_packets_, capacity_bytes_;
  std::vector<uint32_t> next_;    // per port: the worker's queue its owner drains first next time
  std::vector<uint32_t> owners_;  // per port: owner()
  std::vector<EgressQueue> queues_;
  std::vector<EgressQueue*> port_queues_;  // per port: port_queue(), into queues_
  uint8_t vcs_ = 1;
  std::vector<EgressQueue> vc_queues_;  // VCs 1..vcs-1 of every port (vc_queue())
};

inline uint16_t EgressQueue::enqueue_priority(rte_mbuf** pkts, uint16_t n, uint32_t bytes) {
  if (prio_ == nullptr || n == 0) return 0;
  return enqueue_counted(pkts, n, bytes, [this](rte_mbuf** p, uint16_t k) {
    return static_cast<uint16_t>(
        rte_ring_sp_enqueue_burst(prio_, reinterpret_cast<void**>(p), k, nullptr));
  });
}

inline uint16_t EgressQueue::enqueue(rte_mbuf** pkts, uint16_t n, uint32_t bytes) {
  return enqueue_counted(pkts, n, bytes,
                         [this](rte_mbuf** p, uint16_t k) { return ring_enqueue(p, k); });
}

template <typename Put>
uint16_t EgressQueue::enqueue_counted(rte_mbuf** pkts, uint16_t n, uint32_t bytes, Put&& put) {
  // The depth grows before the packets enter the ring, never after: with two workers the drainer
  // may send them and count them out the moment they are in the ring, and a reader that saw them
  // out but not yet in would see a depth below zero (wrapped: a port that looks full). The ring's
  // release (kCross) orders the in tally before the drainer's dequeue. The price: packets the
  // ring then refuses count in the depth until they are taken back, which only a ring smaller
  // than the buffer (--queue-packets) or a full priority ring ever does.
  uint32_t np = count_in(depth_.in_packets, n);
  uint32_t nb = count_in(depth_.in_bytes, bytes);
  const uint16_t queued = put(pkts, n);
  if (queued < n) {  // more packets than ring slots: take back what did not go in
    uint32_t refused = 0;
    for (uint16_t i = queued; i < n; ++i) refused += rte_pktmbuf_pkt_len(pkts[i]);
    uncount_in(depth_.in_packets, n - queued);
    uncount_in(depth_.in_bytes, refused);
    np -= n - queued;
    nb -= refused;
  }
  if (mode_ == Mode::kOnly) note_max(np, nb);
  return queued;
}

template <typename Tx>
uint16_t EgressQueue::drain(uint64_t now_ns, Shaper& shaper, Tx&& tx, uint32_t& bytes) {
  bytes = 0;
  if (prio_ != nullptr) take_priority();
  if (held_count_ == prio_held_ && refill() == 0 && held_count_ == 0) return 0;
  // How many held frames the shaper lets start now: all of them, unshaped.
  uint16_t allowed = held_count_;
  if (shaper.shaping()) {
    Shaper trial = shaper;
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
    shaper.sent(len, now_ns);
  }
  for (uint16_t i = sent; i < held_count_; ++i) held_[i - sent] = held_[i];
  held_count_ = static_cast<uint16_t>(held_count_ - sent);
  prio_held_ = static_cast<uint16_t>(prio_held_ - std::min(prio_held_, sent));
  count_out(depth_.out_packets, sent);
  count_out(depth_.out_bytes, bytes);
  return sent;
}

template <typename Drop>
void EgressQueue::discard(Drop&& drop) {
  rte_mbuf* m[2 * net::kBurst];
  uint16_t n = held_count_;
  std::copy(held_.begin(), held_.begin() + n, m);
  held_count_ = prio_held_ = 0;
  do {
    uint32_t bytes = 0;
    for (uint16_t i = 0; i < n; ++i) {
      bytes += rte_pktmbuf_pkt_len(m[i]);
      drop(m[i]);
    }
    count_out(depth_.out_packets, n);
    count_out(depth_.out_bytes, bytes);
    n = ring_dequeue(m, net::kBurst);
    if (n == 0 && prio_ != nullptr) {
      n = static_cast<uint16_t>(
          rte_ring_sc_dequeue_burst(prio_, reinterpret_cast<void**>(m), net::kBurst, nullptr));
    }
  } while (n > 0);
}

inline uint16_t EgressQueue::ring_enqueue(rte_mbuf** pkts, uint16_t n) {
  if (mode_ == Mode::kCross) {
    CrossIndex& x = *cross_;
    const uint32_t tail = x.tail.load(std::memory_order_relaxed);
    if (n > mask_ - (tail - x.head_seen)) x.head_seen = x.head.load(std::memory_order_acquire);
    const uint32_t room = mask_ - (tail - x.head_seen);
    if (n > room) n = static_cast<uint16_t>(room);
    for (uint16_t i = 0; i < n; ++i) ring_slot(slots_, rest_, (tail + i) & mask_) = pkts[i];
    x.tail.store(tail + n, std::memory_order_release);  // the frames, then the index
    return n;
  }
  const uint32_t room = mask_ - (tail_ - head_);
  if (n > room) n = static_cast<uint16_t>(room);
  for (uint16_t i = 0; i < n; ++i) ring_slot(slots_, rest_, (tail_ + i) & mask_) = pkts[i];
  tail_ += n;
  return n;
}

inline uint16_t EgressQueue::ring_dequeue(rte_mbuf** pkts, uint16_t n) {
  if (mode_ == Mode::kCross) {
    CrossIndex& x = *cross_;
    const uint32_t head = x.head.load(std::memory_order_relaxed);
    if (n > x.tail_seen - head) x.tail_seen = x.tail.load(std::memory_order_acquire);
    const uint32_t avail = x.tail_seen - head;
    if (n > avail) n = static_cast<uint16_t>(avail);
    for (uint16_t i = 0; i < n; ++i) pkts[i] = ring_slot(slots_, rest_, (head + i) & mask_);
    x.head.store(head + n, std::memory_order_release);  // the slots are the producer's again
    return n;
  }
  const uint32_t avail = tail_ - head_;
  if (n > avail) n = static_cast<uint16_t>(avail);
  for (uint16_t i = 0; i < n; ++i) pkts[i] = ring_slot(slots_, rest_, (head_ + i) & mask_);
  head_ += n;
  // Empty: start again at slot 0. A queue its owner keeps draining then reuses the same few
  // cache lines instead of walking its whole ring (32 KB at 4096 slots; 16 ports' rings were
  // more than L2 and a fifth of the enqueue's time in store misses). Only this queue's worker
  // touches head_ and tail_ (a kCross ring's indices only grow: two cores read them).
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
    // Not on one line: a queue is 656 B, so half of them have the two on two lines.
    rte_prefetch0(&held_count_);
    rte_prefetch0(&held_[0]);
  } else {
    // Its length is what the shaper reads, its arrival field what the link writes. With none
    // held, the drain refills from the ring first: its head frame.
    const rte_mbuf* m = held_count_ > 0         ? held_[0]
                        : mode_ == Mode::kCross ? nullptr
                        : head_ != tail_        ? ring_slot(slots_, rest_, head_ & mask_)
                                                : nullptr;
    if (m == nullptr) return;
    rte_prefetch0(m);
    rte_prefetch0(reinterpret_cast<const uint8_t*>(m) + RTE_CACHE_LINE_SIZE);
  }
}

inline uint16_t EgressQueues::enqueue(uint16_t p, uint32_t w, rte_mbuf** pkts, uint16_t n,
                                      uint32_t bytes) {
  const uint16_t queued = queue(p, w).enqueue(pkts, n, bytes);
  if (workers_ > 1 && queued > 0) {
    // The port's maxima are of its total: summed here, once per burst and port (a raise, the
    // only write to a line other workers write, only when the depth is higher than ever since
    // the last scrape).
    raise(max_packets_[p], total(p, kInPackets, kOutPackets));
    raise(max_bytes_[p], total(p, kInBytes, kOutBytes));
  }
  return queued;
}

inline uint16_t EgressQueues::enqueue_priority(uint16_t p, uint32_t w, rte_mbuf** pkts, uint16_t n,
                                               uint32_t bytes) {
  const uint16_t queued = queue(p, w).enqueue_priority(pkts, n, bytes);
  if (workers_ > 1 && queued > 0) {  // as enqueue()
    raise(max_packets_[p], total(p, kInPackets, kOutPackets));
    raise(max_bytes_[p], total(p, kInBytes, kOutBytes));
  }
  return queued;
}

inline uint32_t EgressQueues::pending(uint16_t p, uint32_t w) const {
  if (workers_ == 1) return queue(p, 0).depth_packets();
  if (per_worker_tx_) return queue(p, w).depth_packets();
  return w == owner(p) ? depth_packets(p) : 0;
}

template <typename Tx>
uint16_t EgressQueues::drain(uint16_t p, uint32_t w, uint64_t now_ns, Tx&& tx, uint32_t& bytes) {
  if (workers_ == 1 || per_worker_tx_) return queue(p, w).drain(now_ns, tx, bytes);
  // The owner: every worker's queue of the port, a burst each, starting one further each call so
  // that no worker's frames wait behind the others' for long; one shaper for them all, so the
  // port's rate is exact.
  Shaper& shaper = queue(p, w).shaper();
  uint32_t& first = next_[p];
  uint16_t sent = 0;
  bytes = 0;
  for (uint32_t k = 0; k < workers_; ++k) {
    uint32_t from = first + k;
    if (from >= workers_) from -= workers_;
    EgressQueue& q = queue(p, from);
    uint32_t b = 0;
    sent = static_cast<uint16_t>(sent + q.drain(now_ns, shaper, tx, b));
    bytes += b;
    if (q.held() > 0) break;  // the shaper or the device holds frames back: the port is busy
  }
  if (++first == workers_) first = 0;
  return sent;
}

template <typename Drop>
void EgressQueues::discard(uint16_t p, uint32_t w, Drop&& drop) {
  if (workers_ == 1 || per_worker_tx_) {
    queue(p, w).discard(drop);
    for (uint8_t vc = 1; vc < vcs_; ++vc) vc_queue(p, vc).discard(drop);
    return;
  }
  for (uint32_t k = 0; k < workers_; ++k) queue(p, k).discard(drop);
}

inline uint32_t EgressQueues::depth_packets(uint16_t p) const {
  if (workers_ == 1) return packets_[p].load(std::memory_order_relaxed);
  return total(p, kInPackets, kOutPackets);
}

inline uint32_t EgressQueues::depth_bytes(uint16_t p) const {
  if (workers_ == 1) return bytes_[p].load(std::memory_order_relaxed);
  return total(p, kInBytes, kOutBytes);
}

inline lb::QueueView EgressQueues::view(bool bytes, std::atomic<uint32_t>* snapshot) const {
  if (workers_ == 1) return view(bytes);
  const Tally in = bytes ? kInBytes : kInPackets, out = bytes ? kOutBytes : kOutPackets;
  // Every out before any in (total()), a port at a time would read each worker's lines once
  // per port: all ports' outs first, then all ins, each array in one pass.
  for (uint16_t p = 0; p < ports_; ++p) snapshot[p].store(0, std::memory_order_relaxed);
  for (uint32_t w = 0; w < workers_; ++w) {
    const std::atomic<uint32_t>* o = tally(w, out);
    for (uint16_t p = 0; p < ports_; ++p) {
      snapshot[p].store(
          snapshot[p].load(std::memory_order_relaxed) - o[p].load(std::memory_order_acquire),
          std::memory_order_relaxed);
    }
  }
  for (uint32_t w = 0; w < workers_; ++w) {
    const std::atomic<uint32_t>* i = tally(w, in);
    for (uint16_t p = 0; p < ports_; ++p) {
      snapshot[p].store(
          snapshot[p].load(std::memory_order_relaxed) + i[p].load(std::memory_order_relaxed),
          std::memory_order_relaxed);
    }
  }
  return lb::QueueView(snapshot, bytes ? capacity_bytes_.data() : capacity_packets_.data(), ports_);
}

inline void EgressQueues::raise(std::atomic<uint32_t>& max, uint32_t v) {
  uint32_t m = max.load(std::memory_order_relaxed);
  while (v > m && !max.compare_exchange_weak(m, v, std::memory_order_relaxed)) {
  }
}

}  // namespace spraylab::dataplane
