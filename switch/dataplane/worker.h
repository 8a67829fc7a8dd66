// A worker lcore's loop (DPDK examples/l3fwd style): poll its rx queues, run the forwarder on each
// burst, drain the egress ports it owns, report a quiescent state; repeat until told to stop.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "net/idle_sleep.h"
#include "net/intr_gate.h"
#include "switch/dataplane/control_tx.h"
#include "switch/dataplane/forwarder.h"

namespace spraylab::dataplane {

// Bursts a worker may send per egress port per turn of its loop.
inline constexpr uint32_t kMaxDrainBursts = 8;
// WorkerPlan::tx_coalesce_turns: a port holding fewer frames than this may wait. Half a burst:
// waiting for a whole one keeps 16 ports x 32 frames in flight, more than the cache the mbufs
// come back hot from (docs/BENCHMARKS.md has the measurements).
inline constexpr uint32_t kCoalesceBelow = net::kBurst / 2;

struct WorkerPlan {
  uint32_t worker = 0;
  std::vector<std::pair<uint16_t, uint16_t>> rx;  // (port, queue) pairs to poll
  std::vector<uint16_t> tx;                       // egress ports it drains
  // If set, the worker is poller `worker` of this gate: it parks between bursts while DPDK's
  // interrupt thread changes links (memif ports: intr_gate.h says why).
  net::IntrGate* gate = nullptr;
  // Longest sleep after empty turns (net/idle_sleep.h); 0: busy polling, the default. After a
  // long spell without work, idle_deep_ns (if longer).
  uint64_t idle_sleep_max_ns = 0;
  // While some rx burst of a turn comes back full (more input is waiting), an egress port holding
  // fewer than kCoalesceBelow frames waits for more, up to this many turns, before it is drained:
  // fewer, larger device calls than one per turn and port, whose price (a locked add per call in
  // net_null, the drain's bookkeeping) showed with 16 ports and two frames per port and turn.
  // 0: drain every turn (the fabric's nodes, shaped ports).
  uint32_t tx_coalesce_turns = 0;
  uint64_t idle_deep_ns = 0;
  // run_worker: the frames of a burst for an owned, unshaped port with an empty egress queue go
  // straight to the device (Forwarder::set_direct_tx). spraylab-switch with --no-shaping; never
  // in a fabric (its ports are shaped, and it drives worker_turn itself).
  bool direct_tx = false;
  // Bursts worker_turn() reads from an rx queue while they come back full, holding the frames
  // staged until all are read (Forwarder::process's `hold`): with 16 egress ports a burst has
  // about two frames per port, and each port's share of a turn (a device call, its counters and
  // checks) is then paid per four. The balancers see the depths as they were before the turn's
  // first burst on the ports these frames go to. 1: a burst at a time (the fabric, shaped ports).
  uint32_t rx_bursts = 1;
  // buffer.flow_control: pfc: the reserve the switch's pause frames come from (control_tx.h);
  // worker_turn() sends the frames owed through `tx` ahead of each turn's data. nullptr: the
  // caller sends them itself (the fabric's switch nodes), or no PFC.
  rte_mempool* control_pool = nullptr;
};

// Splits rx queues and egress ports over `workers`: worker w polls queue w of ports with enough
// queues; single-queue ports go round robin. Egress ports: `per_worker_tx` (SwitchRuntime::
// per_worker_tx), every worker drains every port (its own queue, into its own tx queue); else
// port p's owner, worker p % workers (EgressQueues::owner), drains all of p's queues.
std::vector<WorkerPlan> plan_workers(uint32_t workers, uint16_t ports,
                                     const std::vector<uint16_t>& rx_queues,
                                     bool per_worker_tx = false);

// Nanoseconds from the TSC.
class TscClock {
 public:
  TscClock();
  uint64_t now_ns() const;
  // The same from a TSC reading the caller already has (rte_rdtsc costs tens of cycles).
  uint64_t to_ns(uint64_t tsc) const { return static_cast<uint64_t>(tsc * ns_per_cycle_); }

 private:
  double ns_per_cycle_;
};

// One turn of a worker's loop, shared by spraylab-switch's workers and the fabric's switch nodes:
// forward a burst (up to plan.rx_bursts while they come back full) from each rx queue of the
// plan, then drain each egress port it owns, several bursts each: a port may receive several
// bursts per turn (one per rx queue and port feeding it), so it must be able to send as many, or
// its queue fills at rx speed and tail-drops half of a line-rate load. `rx` (port, queue, mbufs,
// max) → received and `tx` (port, mbufs, count) → sent are the devices (ethdev bursts, or a
// fabric's links). With PFC, a port that received tells Pfc::arrived() (a pause still needed is
// renewed), and the pause and resume frames owed go out (plan.control_pool) after the turn's
// input and before its data. Ends at a quiescent point. Returns the packets moved.
template <typename Rx, typename Tx>
uint32_t worker_turn(SwitchRuntime& rt, Forwarder& fwd, const WorkerPlan& plan, uint64_t now_ns,
                     Rx&& rx, Tx&& tx) {
  rte_mbuf* burst[net::kBurst];
  uint32_t moved = 0;
  bool rx_full = false;  // some rx burst came back full: more input waits there
  const bool hold = plan.rx_bursts > 1;
  Pfc* const pfc = rt.pfc();
  for (const auto& [port, queue] : plan.rx) {
    for (uint32_t k = 0; k < plan.rx_bursts || k == 0; ++k) {
      const uint16_t n = rx(port, queue, burst, net::kBurst);
      if (n == 0) break;
      fwd.process(burst, n, port, queue, now_ns, hold);
      moved += n;
      if (pfc != nullptr) pfc->arrived(port, now_ns);
      if (n < net::kBurst) break;
      rx_full = true;
    }
  }
  if (hold) fwd.flush_staged();
  if (pfc != nullptr && plan.control_pool != nullptr) {
    send_pfc_due(*pfc, rt.tables().ports, plan.control_pool, now_ns, tx);
  }
  for (uint16_t port : plan.tx) {
    const uint32_t depth = rt.egress_queues().pending(port, plan.worker);
    if (depth == 0) continue;  // nothing held, nothing in the ring
    if (plan.tx_coalesce_turns > 0 &&
        fwd.defer_drain(port, rx_full && depth < kCoalesceBelow, plan.tx_coalesce_turns)) {
      continue;
    }
    for (uint32_t b = 0; b < kMaxDrainBursts; ++b) {
      const uint16_t sent = fwd.drain(port, now_ns, tx);
      moved += sent;
      if (sent < net::kBurst) break;
    }
  }
  rt.quiescent(plan.worker);
  return moved;
}

// Runs until `stop` is set. `hook`, if set, is called about every `hook_period_ns` (the control
// plane's work when the worker runs on the main lcore).
void run_worker(SwitchRuntime& rt, const WorkerPlan& plan, const std::atomic<bool>& stop,
                const std::function<void()>& hook = {}, uint64_t hook_period_ns = 100'000);

}  // namespace spraylab::dataplane
