#include "switch/dataplane/worker.h"

#include <rte_cycles.h>
#include <rte_ethdev.h>

#include <algorithm>

namespace spraylab::dataplane {

std::vector<WorkerPlan> plan_workers(uint32_t workers, uint16_t ports,
                                     const std::vector<uint16_t>& rx_queues, bool per_worker_tx) {
  std::vector<WorkerPlan> plans(workers);
  for (uint32_t w = 0; w < workers; ++w) plans[w].worker = w;
  uint32_t next = 0;
  for (uint16_t p = 0; p < ports; ++p) {
    if (rx_queues[p] >= workers) {
      for (uint16_t q = 0; q < rx_queues[p]; ++q) plans[q % workers].rx.emplace_back(p, q);
    } else {
      for (uint16_t q = 0; q < rx_queues[p]; ++q) plans[next++ % workers].rx.emplace_back(p, q);
    }
    if (per_worker_tx && workers > 1) {
      for (auto& plan : plans) plan.tx.push_back(p);  // each drains its own queue of the port
    } else {
      plans[p % workers].tx.push_back(p);  // the port's owner: the only worker that drains it
    }
  }
  return plans;
}

namespace {

// When the worker next has work of its own without receiving: the earliest moment an egress port
// it owns that holds frames may start one (UINT64_MAX: none holds any). That is the shaper's
// slack before the port is free, not the moment it is free: a sleeper wakes late (the kernel's
// timer slack, other processes on the CPU), and the shaper gives no credit for time the port sat
// idle, so a worker that slept until the port was free lost its lateness on every frame, while
// the generators' pacer catches up two frames. Waking at the slack's start, lateness up to the
// slack (two frames in a namespaced fabric) costs the port nothing.
uint64_t next_departure_ns(const SwitchRuntime& rt, const WorkerPlan& plan) {
  uint64_t wake = UINT64_MAX;
  for (uint16_t port : plan.tx) {
    if (rt.egress_queues().pending(port, plan.worker) == 0) continue;
    wake = std::min(wake, rt.egress(port).shaper().next_start_ns());
  }
  return wake;
}

}  // namespace

TscClock::TscClock() : ns_per_cycle_(1e9 / static_cast<double>(rte_get_tsc_hz())) {}

uint64_t TscClock::now_ns() const { return to_ns(rte_rdtsc()); }

void run_worker(SwitchRuntime& rt, const WorkerPlan& plan, const std::atomic<bool>& stop,
                const std::function<void()>& hook, uint64_t hook_period_ns) {
  Forwarder fwd(rt, plan.worker);
  TscClock clock;
  WorkerCounters& c = rt.counters(plan.worker);
  // The tx queues this worker sends on, bursts taking them in turn. Only the port's owner sends:
  // it owns the first `tx_queues` (one by default, which keeps each link FIFO). Per-worker tx
  // queues: worker w owns queues w, w + workers, ... below `tx_queues` on every port (l3fwd's
  // layout), so no two workers ever share a device queue. A memif peer must poll each of them: a
  // memif ring per queue that the peer does not poll swallows packets silently.
  const uint16_t tx_queues = std::max<uint16_t>(1, rt.options().tx_queues);
  const bool own_tx = rt.per_worker_tx();
  const uint16_t first_queue = own_tx ? static_cast<uint16_t>(plan.worker) : 0;
  const uint16_t queue_step = own_tx ? static_cast<uint16_t>(rt.workers()) : 1;
  std::vector<uint16_t> next_queue(rt.ports(), first_queue);
  auto tx = [&next_queue, tx_queues, first_queue, queue_step](uint16_t port, rte_mbuf** m,
                                                              uint16_t n) {
    uint16_t& q = next_queue[port];
    const uint16_t sent = rte_eth_tx_burst(port, q, m, n);
    q = static_cast<uint16_t>(q + queue_step);
    if (q >= tx_queues) q = first_queue;
    return sent;
  };
  if (plan.direct_tx) {
    fwd.set_direct_tx(
        [](void* ctx, uint16_t port, rte_mbuf** m, uint16_t n) -> uint16_t {
          return (*static_cast<decltype(tx)*>(ctx))(port, m, n);
        },
        &tx, plan.tx);
  }
  auto rx = [](uint16_t port, uint16_t queue, rte_mbuf** m, uint16_t n) {
    return rte_eth_rx_burst(port, queue, m, n);
  };
  uint64_t next_hook = 0;
  net::IntrGate* const gate = plan.gate;
  net::IdleSleep idle(plan.idle_sleep_max_ns, plan.idle_deep_ns);
  if (gate) gate->enter(plan.worker);
  while (!stop.load(std::memory_order_relaxed)) {
    // Between bursts: the one place where a memif link may come or go under this worker.
    if (gate) gate->checkpoint(plan.worker);
    const uint64_t start = rte_rdtsc();
    const uint64_t now = clock.to_ns(start);  // one TSC read per turn, not two
    const uint32_t moved = worker_turn(rt, fwd, plan, now, rx, tx);
    c.loops.inc();
    if (moved) {
      const uint64_t end = rte_rdtsc();
      c.busy_cycles.add(end - start);
      if (c.first_busy_tsc.get() == 0) c.first_busy_tsc.set(start);
      c.last_busy_tsc.set(end);
      idle.worked();
    }
    if (hook && now >= next_hook) {
      hook();
      next_hook = now + hook_period_ns;
    }
    if (!moved && idle.enabled()) idle.idle(now, next_departure_ns(rt, plan), gate, plan.worker);
  }
  if (gate) gate->leave(plan.worker);
}

}  // namespace spraylab::dataplane
