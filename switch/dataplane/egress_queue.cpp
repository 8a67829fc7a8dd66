#include "switch/dataplane/egress_queue.h"

#include <fmt/format.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include <stdexcept>

namespace spraylab::dataplane {
namespace {

// The priority class's ring: an rte_ring (it is small, and only trimming switches have one), a
// memzone of its own or on `memory` (a fabric's tens of thousands of ports would exhaust EAL's
// memzones). Single producer when one worker enqueues. Sets `owned` to whether it is a memzone.
rte_ring* priority_ring(const std::string& name, uint32_t slots, int socket, bool single,
                        const RingMemory& memory, bool& owned) {
  const unsigned flags = RING_F_SC_DEQ | (single ? RING_F_SP_ENQ : 0);
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
  auto* r = static_cast<rte_ring*>(memory(static_cast<size_t>(bytes)));
  if (rte_ring_init(r, name.substr(0, RTE_RING_NAMESIZE - 1).c_str(), slots, flags) != 0) {
    throw std::runtime_error(fmt::format("cannot initialise priority queue {}", name));
  }
  return r;
}

}  // namespace

EgressQueue::EgressQueue(const std::string& ring_name, uint32_t slots, int socket, DepthSlots depth,
                         bool single_producer, const RingMemory& memory, uint32_t priority_slots)
    : single_(single_producer), depth_(depth) {
  if (priority_slots > 0) {
    prio_ = priority_ring(ring_name + "p", priority_slots, socket, single_, memory, owns_prio_);
  }
  if (single_) {
    if (slots < 2 || (slots & (slots - 1)) != 0) {
      throw std::runtime_error(
          fmt::format("egress queue {}: {} slots is no ring size", ring_name, slots));
    }
    const size_t bytes = size_t{slots} * sizeof(rte_mbuf*);
    if (memory) {
      slots_ = static_cast<rte_mbuf**>(memory(bytes));
      owns_ring_ = false;
    } else {
      slots_ = static_cast<rte_mbuf**>(rte_malloc_socket("egress_queue", bytes, 64, socket));
      if (slots_ == nullptr) {
        throw std::runtime_error(
            fmt::format("cannot create egress queue {}: out of memory", ring_name));
      }
    }
    mask_ = slots - 1;  // holds slots - 1, as an rte_ring of `slots` does
    return;
  }
  const unsigned flags = RING_F_SC_DEQ;
  if (!memory) {
    ring_ = rte_ring_create(ring_name.c_str(), slots, socket, flags);
    if (ring_ == nullptr) {
      throw std::runtime_error(
          fmt::format("cannot create egress queue {}: {}", ring_name, rte_strerror(rte_errno)));
    }
    return;
  }
  const ssize_t bytes = rte_ring_get_memsize(slots);
  if (bytes <= 0) {
    throw std::runtime_error(
        fmt::format("egress queue {}: {} slots is no ring size", ring_name, slots));
  }
  auto* r = static_cast<rte_ring*>(memory(static_cast<size_t>(bytes)));
  const std::string name = ring_name.substr(0, RTE_RING_NAMESIZE - 1);
  if (rte_ring_init(r, name.c_str(), slots, flags) != 0) {
    throw std::runtime_error(fmt::format("cannot initialise egress queue {}", ring_name));
  }
  ring_ = r;
  owns_ring_ = false;
}

EgressQueue::EgressQueue(EgressQueue&& other) noexcept
    : ring_(std::exchange(other.ring_, nullptr)),
      slots_(std::exchange(other.slots_, nullptr)),
      mask_(other.mask_),
      head_(other.head_),
      tail_(other.tail_),
      owns_ring_(other.owns_ring_),
      single_(other.single_),
      shaper_(other.shaper_),
      held_(other.held_),
      held_count_(std::exchange(other.held_count_, 0)),
      prio_held_(std::exchange(other.prio_held_, 0)),
      prio_(std::exchange(other.prio_, nullptr)),
      owns_prio_(other.owns_prio_),
      depth_(other.depth_) {}

EgressQueue::~EgressQueue() {
  for (uint16_t i = 0; i < held_count_; ++i) rte_pktmbuf_free(held_[i]);
  rte_mbuf* m;
  if (prio_ != nullptr) {
    while (rte_ring_sc_dequeue(prio_, reinterpret_cast<void**>(&m)) == 0) rte_pktmbuf_free(m);
    if (owns_prio_) rte_ring_free(prio_);
  }
  if (ring_ == nullptr && slots_ == nullptr) return;  // moved from
  while (ring_dequeue(&m, 1) == 1) rte_pktmbuf_free(m);
  if (!owns_ring_) return;
  if (ring_ != nullptr) rte_ring_free(ring_);
  if (slots_ != nullptr) rte_free(slots_);
}

std::pair<uint32_t, uint32_t> EgressQueue::take_max() {
  // What is queued now is part of the next interval's maximum.
  const uint32_t np = depth_.max_packets->exchange(depth_packets());
  const uint32_t nb = depth_.max_bytes->exchange(depth_bytes());
  return {np, nb};
}

EgressQueues::EgressQueues(const std::string& switch_name, uint16_t ports, uint32_t slots,
                           uint64_t buffer_bytes, int socket, uint32_t workers,
                           const RingMemory& memory, uint32_t priority_slots)
    : ports_(ports),
      packets_(new std::atomic<uint32_t>[ports]()),
      bytes_(new std::atomic<uint32_t>[ports]()),
      max_packets_(new std::atomic<uint32_t>[ports]()),
      max_bytes_(new std::atomic<uint32_t>[ports]()) {
  queues_.reserve(ports);
  for (uint16_t p = 0; p < ports; ++p) {
    // rte_ring names are process-global: prefix them with the switch name.
    queues_.emplace_back(
        fmt::format("eq_{}_{}", switch_name, p), slots, socket,
        EgressQueue::DepthSlots{&packets_[p], &bytes_[p], &max_packets_[p], &max_bytes_[p]},
        workers == 1, memory, priority_slots);
    capacity_packets_.push_back(queues_[p].capacity());
    capacity_bytes_.push_back(static_cast<uint32_t>(std::min<uint64_t>(buffer_bytes, UINT32_MAX)));
  }
}

lb::QueueView EgressQueues::view(bool bytes) const {
  return bytes ? lb::QueueView(bytes_.get(), capacity_bytes_.data(), ports_)
               : lb::QueueView(packets_.get(), capacity_packets_.data(), ports_);
}

}  // namespace spraylab::dataplane
