#include "switch/lb/queue_view.h"

#include <algorithm>
#include <cstring>

namespace spraylab::lb {

StaleQueueView::StaleQueueView(size_t ports, uint64_t period_ns)
    : ports_(ports),
      period_ns_(period_ns),
      snapshot_(std::make_unique<std::atomic<uint32_t>[]>(ports)) {}

void StaleQueueView::refresh(const QueueView& live, uint64_t epoch) {
  const size_t n = std::min(ports_, live.size());
  // A word copy (vector moves) rather than one relaxed load and store per port: with AR's 100 ns
  // period the switch takes a snapshot every burst.
  std::memcpy(static_cast<void*>(snapshot_.get()), live.raw(), n * sizeof(uint32_t));
  live_capacity_ = live.capacities();
  epoch_ = epoch;
  valid_ = true;
}

}  // namespace spraylab::lb
