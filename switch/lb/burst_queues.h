// What a queue-aware algorithm (jsq, ar, topk, psp, polarized) reads during one burst: the live or
// stale view, plus what this lcore has itself sent to each port earlier in the same burst.
//
// Why the in-burst term: the egress stage enqueues a burst only after balancing it, so with a live
// view a greedy algorithm would send all 32 packets of a burst to the same port, which no
// per-packet switch does. With a live view (state_update_ns = 0) we therefore count this burst's
// own choices, which makes burst processing equal to packet-at-a-time processing. With a stale
// view we do not: the paper's scheduler (PSP §IV) acts on state it cannot see change.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "switch/lb/balancer.h"
#include "switch/lb/queue_view.h"

namespace spraylab::lb {

class BurstQueues {
 public:
  // `ports`: size of the switch's queue arrays; `bytes`: the queue unit is bytes, not packets.
  BurstQueues(size_t ports, uint64_t state_update_ns, bool bytes)
      : stale_(ports, state_update_ns), pending_(ports, 0), bytes_(bytes) {}

  void begin(const BurstContext& ctx) {
    view_ = stale_.at(ctx.queues, ctx.now_ns);
    snapshot_ = stale() ? ctx.now_ns / stale_.period_ns() : snapshot_ + 1;
  }
  uint32_t depth(PortId p) const { return view_.depth(p) + pending_[p]; }
  uint32_t capacity(PortId p) const { return view_.capacity(p); }
  // A stale view: depths change only when the snapshot does, and the burst's own choices are
  // not counted (add returns 0).
  bool stale() const { return stale_.period_ns() != 0; }
  // Equal values, equal snapshots: StaleQueueView copies a new one once per period.
  uint64_t snapshot() const { return snapshot_; }
  // Records a choice; returns the amount the port's depth grew by (0 with a stale view).
  uint32_t add(PortId p, const Packet& pkt) {
    if (stale_.period_ns() != 0 || p == kNoPort) return 0;
    const uint32_t unit = bytes_ ? pkt.bytes : 1;
    pending_[p] += unit;
    return unit;
  }
  void end(std::span<const PortId> chosen) {
    for (PortId p : chosen) {
      if (p != kNoPort) pending_[p] = 0;
    }
  }

 private:
  StaleQueueView stale_;
  QueueView view_;
  std::vector<uint32_t> pending_;
  uint64_t snapshot_ = UINT64_MAX;
  bool bytes_;
};

}  // namespace spraylab::lb
