#include "switch/lb/queue_view.h"

#include <algorithm>

namespace spraylab::lb {

StaleQueueView::StaleQueueView(size_t ports, uint64_t period_ns)
    : ports_(ports),
      period_ns_(period_ns),
      snapshot_(std::make_unique<std::atomic<uint32_t>[]>(ports)) {}

void StaleQueueView::refresh(const QueueView& live, uint64_t epoch) {
  const size_t n = std::min(ports_, live.size());
  for (size_t p = 0; p < n; ++p) {
    snapshot_[p].store(live.depth(static_cast<topo::PortId>(p)), std::memory_order_relaxed);
  }
  live_capacity_ = live.capacities();
  epoch_ = epoch;
  valid_ = true;
}

}  // namespace spraylab::lb
