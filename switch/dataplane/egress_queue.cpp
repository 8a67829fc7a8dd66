#include "switch/dataplane/egress_queue.h"

#include <fmt/format.h>
#include <rte_errno.h>

#include <stdexcept>

namespace spraylab::dataplane {
namespace {

// The priority class's ring: an rte_ring (it is small, and only trimming switches have one), a
// memzone of its own or on `memory` (a fabric's tens of thousands of ports would exhaust EAL's
// memzones). One producer (the queue's worker), one consumer (its drainer). Sets `owned` to
// whether it is a memzone.
rte_ring* priority_ring(const std::string& name, uint32_t slots, int socket,
                        const RingMemory& memory, bool& owned) {
  const unsigned flags = RING_F_SP_ENQ | RING_F_SC_DEQ;
  owned = !memory;
  if (!memory) {
    rte_ring* r = rte_ring_create(name.c_str(), slots, socket, flags);
    if (r == nullptr) {
      throw std::runtime_error(
          fmt::format("cannot create priority queue {}: {}", name, rte_strerror(rte_errno)));
    }
    return r;
  }
  const ssize_t bytes = rte_ring_get_memsize(slots);
  if (bytes <= 0) {
    throw std::runtime_error(
        fmt::format("priority queue {}: {} slots is no ring size", name, slots));
  }
  auto* r = static_cast<rte_ring*>(memory.own(static_cast<size_t>(bytes)));
  if (rte_ring_init(r, name.substr(0, RTE_RING_NAMESIZE - 1).c_str(), slots, flags) != 0) {
    throw std::runtime_error(fmt::format("cannot initialise priority queue {}", name));
  }
  return r;
}

}  // namespace

EgressQueue::EgressQueue(const std::string& name, uint32_t slots, int socket, DepthSlots depth,
                         Mode mode, const RingMemory& memory, uint32_t priority_slots)
    : mode_(mode), depth_(depth) {
  if (slots < 2 || (slots & (slots - 1)) != 0) {
    throw std::runtime_error(fmt::format("egress queue {}: {} slots is no ring size", name, slots));
  }
  const SlotPieces pieces = allocate_slots(slots, memory, socket, "egress queue " + name);
  slots_ = pieces.hot;
  rest_ = pieces.rest;
  owns_slots_ = pieces.owned;
  mask_ = slots - 1;  // holds slots - 1, as an rte_ring of `slots` does
  if (mode_ == Mode::kCross) cross_ = std::make_unique<CrossIndex>();
  if (priority_slots > 0) {
    prio_ = priority_ring(name + "p", priority_slots, socket, memory, owns_prio_);
  }
}

EgressQueue::EgressQueue(EgressQueue&& other) noexcept
    : slots_(std::exchange(other.slots_, nullptr)),
      mask_(other.mask_),
      head_(other.head_),
      tail_(other.tail_),
      owns_slots_(other.owns_slots_),
      mode_(other.mode_),
      held_count_(std::exchange(other.held_count_, 0)),
      shaper_(other.shaper_),
      held_(other.held_),
      prio_held_(std::exchange(other.prio_held_, 0)),
      prio_(std::exchange(other.prio_, nullptr)),
      owns_prio_(other.owns_prio_),
      depth_(other.depth_),
      cross_(std::move(other.cross_)),
      rest_(other.rest_) {}

EgressQueue::~EgressQueue() {
  for (uint16_t i = 0; i < held_count_; ++i) rte_pktmbuf_free(held_[i]);
  rte_mbuf* m;
  if (prio_ != nullptr) {
    while (rte_ring_sc_dequeue(prio_, reinterpret_cast<void**>(&m)) == 0) rte_pktmbuf_free(m);
    if (owns_prio_) rte_ring_free(prio_);
  }
  if (slots_ == nullptr) return;  // moved from
  while (ring_dequeue(&m, 1) == 1) rte_pktmbuf_free(m);
  free_slots(SlotPieces{slots_, rest_, owns_slots_});
}

EgressQueues::EgressQueues(const std::string& switch_name, uint16_t ports, uint32_t slots,
                           uint64_t buffer_bytes, int socket, uint32_t workers, bool per_worker_tx,
                           const RingMemory& memory, uint32_t priority_slots, uint8_t vcs)
    : ports_(ports),
      workers_(workers),
      per_worker_tx_(workers > 1 && per_worker_tx),
      packets_(new std::atomic<uint32_t>[ports]()),
      bytes_(new std::atomic<uint32_t>[ports]()),
      max_packets_(new std::atomic<uint32_t>[ports]()),
      max_bytes_(new std::atomic<uint32_t>[ports]()),
      untaken_max_(ports),
      next_(ports, 0),
      vcs_(vcs) {
  if (vcs_ > 1 && workers_ > 1) {
    throw std::invalid_argument(fmt::format(
        "switch {}: virtual channels run on one worker ({} asked)", switch_name, workers_));
  }
  for (uint16_t p = 0; p < ports; ++p) owners_.push_back(p % workers_);
  if (workers_ > 1) {
    lines_per_tally_ = (ports + 15) / 16;
    tallies_ = std::make_unique<Line[]>(size_t{workers_} * kTallies * lines_per_tally_);
  }
  queues_.reserve(size_t{ports} * workers_);
  for (uint32_t w = 0; w < workers_; ++w) {  // in queue()'s order
    for (uint16_t p = 0; p < ports; ++p) {
      const std::string name = fmt::format("eq_{}_{}_{}", switch_name, p, w);
      if (workers_ == 1) {
        queues_.emplace_back(name, slots, socket,
                             EgressQueue::DepthSlots{&packets_[p], &bytes_[p], &packets_[p],
                                                     &bytes_[p], &max_packets_[p], &max_bytes_[p]},
                             EgressQueue::Mode::kOnly, memory, priority_slots);
        continue;
      }
      const uint32_t drainer = per_worker_tx_ ? w : owner(p);
      queues_.emplace_back(
          name, slots, socket,
          EgressQueue::DepthSlots{&tally(w, kInPackets)[p], &tally(w, kInBytes)[p],
                                  &tally(drainer, kOutPackets)[p], &tally(drainer, kOutBytes)[p],
                                  &max_packets_[p], &max_bytes_[p]},
          drainer == w ? EgressQueue::Mode::kOwn : EgressQueue::Mode::kCross, memory,
          priority_slots);
    }
  }
  // VCs 1.. of every port (vc_queue()'s order), counted in the port's depth as VC 0's queue is.
  vc_queues_.reserve(size_t{ports} * (vcs_ - 1u));
  for (uint8_t vc = 1; vc < vcs_; ++vc) {
    for (uint16_t p = 0; p < ports; ++p) {
      vc_queues_.emplace_back(fmt::format("eq_{}_{}_v{}", switch_name, p, vc), slots, socket,
                              EgressQueue::DepthSlots{&packets_[p], &bytes_[p], &packets_[p],
                                                      &bytes_[p], &max_packets_[p], &max_bytes_[p]},
                              EgressQueue::Mode::kOnly, memory, priority_slots);
    }
  }
  for (uint16_t p = 0; p < ports; ++p) {
    // Frames the port can hold: every worker's ring (the byte buffer is what normally drops).
    capacity_packets_.push_back(queue(p, 0).capacity() * workers_);
    capacity_bytes_.push_back(static_cast<uint32_t>(std::min<uint64_t>(buffer_bytes, UINT32_MAX)));
    port_queues_.push_back(&queue(p, owner(p)));  // queues_ is complete: its addresses hold
  }
}

lb::QueueView EgressQueues::view(bool bytes) const {
  // One worker's live words (with several they stay 0: view(bytes, snapshot) sums the tallies).
  return bytes ? lb::QueueView(bytes_.get(), capacity_bytes_.data(), ports_)
               : lb::QueueView(packets_.get(), capacity_packets_.data(), ports_);
}

std::pair<uint32_t, uint32_t> EgressQueues::take_max(uint16_t p, MaxReader r) {
  const std::lock_guard<std::mutex> lock(*take_mutex_);
  // What is queued now is part of every reader's next interval (the words keep it).
  const uint32_t np = max_packets_[p].exchange(depth_packets(p));
  const uint32_t nb = max_bytes_[p].exchange(depth_bytes(p));
  for (Untaken& h : untaken_max_[p]) {
    h.packets = std::max(h.packets, np);
    h.bytes = std::max(h.bytes, nb);
  }
  Untaken& mine = untaken_max_[p][static_cast<size_t>(r)];
  const std::pair<uint32_t, uint32_t> out{mine.packets, mine.bytes};
  mine = Untaken{};
  return out;
}

}  // namespace spraylab::dataplane
