// Read-only views of egress queue depths. A QueueView reads the live depths; a StaleQueueView
// keeps a snapshot refreshed once per `state_update_ns` of the caller's clock (PSP paper §IV: the
// scheduler sees state 1 µs to 20 µs old), so virtual time works and every queue-aware algorithm
// (jsq, ar, topk, psp, polarized) can be run fresh or stale alike.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "topo/topology.h"

namespace spraylab::lb {

static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t) &&
              std::atomic<uint32_t>::is_always_lock_free);

class QueueView {
 public:
  QueueView() = default;
  // `depth[p]` is port p's queue depth and `capacity[p]` its buffer, both in the configured queue
  // unit (packets or bytes). Depths are atomics because other lcores and the egress stage update
  // them while balancers read (relaxed loads: a plain load on x86).
  QueueView(const std::atomic<uint32_t>* depth, const uint32_t* capacity, size_t ports)
      : depth_(depth), capacity_(capacity), ports_(ports) {}

  uint32_t depth(topo::PortId p) const { return depth_[p].load(std::memory_order_relaxed); }
  uint32_t capacity(topo::PortId p) const { return capacity_[p]; }
  const uint32_t* capacities() const { return capacity_; }
  size_t size() const { return ports_; }
  // The depths as plain words, for vector gathers (an aligned 32-bit load is what a relaxed load
  // is on x86, and std::atomic<uint32_t> has uint32_t's size and alignment).
  const uint32_t* raw() const { return reinterpret_cast<const uint32_t*>(depth_); }

 private:
  const std::atomic<uint32_t>* depth_ = nullptr;
  const uint32_t* capacity_ = nullptr;
  size_t ports_ = 0;
};

class StaleQueueView {
 public:
  // period_ns = 0: no snapshot, at() returns the live view.
  StaleQueueView(size_t ports, uint64_t period_ns);

  // The view to decide on at `now_ns`. The snapshot is copied from `live` at the first call in
  // each period [k·P, (k+1)·P), so every lcore sees the state of the same instant boundary.
  QueueView at(const QueueView& live, uint64_t now_ns) {
    if (period_ns_ == 0) return live;
    const uint64_t epoch = now_ns / period_ns_;
    if (epoch != epoch_ || !valid_) refresh(live, epoch);
    return QueueView(snapshot_.get(), live_capacity_, ports_);
  }
  uint64_t period_ns() const { return period_ns_; }

 private:
  void refresh(const QueueView& live, uint64_t epoch);

  size_t ports_;
  uint64_t period_ns_;
  uint64_t epoch_ = 0;
  bool valid_ = false;
  const uint32_t* live_capacity_ = nullptr;
  std::unique_ptr<std::atomic<uint32_t>[]> snapshot_;
};

}  // namespace spraylab::lb
