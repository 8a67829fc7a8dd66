#include "fabric/emu/inprocess_run.h"

#include <rte_cycles.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <optional>
#include <thread>

#include "fabric/emu/port_stats.h"
#include "fabric/emu/run_watch.h"

namespace spraylab::fabric {
namespace {

struct LcoreWork {
  std::vector<Node*> nodes;
  const std::atomic<bool>* stop = nullptr;
  double ns_per_tsc = 1;
  // One lcore polls every node: its clock may stand still while the lcore is off its CPU.
  bool sole = false;
  uint64_t stall_cycles = 0;         // a gap this long between two node polls is a stall
  std::atomic<uint64_t> stalled{0};  // TSC cycles the clock stood still
  std::atomic<uint64_t> clock{0};    // the sole lcore's clock at its latest node poll (TSC)
  uint64_t polls = 0;
};

// Wall-clock emulation is only as good as the CPU its lcore gets: a node descheduled for a few
// ms leaves its links idle that long. While it polls, a worker asks the scheduler for a larger
// share (nice -10: about nine tenths of a CPU against one ordinary process, where nice 0 gets
// half), and gives it back after. Without the privilege it runs as it is.
constexpr int kWorkerNice = -10;
// A node's turn takes microseconds; the scheduler takes a CPU away for a tick (4 ms here).
constexpr uint64_t kStallNs = 500'000;

int poll_nodes(void* arg) {
  auto* w = static_cast<LcoreWork*>(arg);
  errno = 0;
  const int nice_before = getpriority(PRIO_PROCESS, 0);  // this thread (Linux: nice is per thread)
  const bool raised = errno == 0 && setpriority(PRIO_PROCESS, 0, kWorkerNice) == 0;
  uint64_t polls = 0;
  uint64_t last = rte_rdtsc(), stalled = 0;
  while (!w->stop->load(std::memory_order_relaxed)) {
    for (Node* n : w->nodes) {
      const uint64_t t = rte_rdtsc();
      // The sole lcore was descheduled: every node stood still alike, so the fabric's clock
      // stands still too, instead of the links idling for the time it was away. (With several
      // lcores the others ran on: their clocks must agree, so nothing is taken back.)
      if (w->sole && t - last > w->stall_cycles) {
        stalled += t - last;
        w->stalled.store(stalled, std::memory_order_relaxed);
      }
      last = t;
      const uint64_t clock = t - stalled;
      if (w->sole) w->clock.store(clock, std::memory_order_relaxed);
      n->poll(static_cast<uint64_t>(static_cast<double>(clock) * w->ns_per_tsc), clock);
    }
    polls += w->nodes.size();
  }
  w->polls = polls;
  if (raised) setpriority(PRIO_PROCESS, 0, nice_before);
  return 0;
}

// Nodes per lcore: leaf i with its hosts on lcore i mod W, the other switches round robin after.
std::vector<LcoreWork> assign(const Fabric& f, uint32_t lcores) {
  std::vector<LcoreWork> work(lcores);
  const auto host_base = static_cast<uint32_t>(f.switches().size());
  std::vector<int> lcore_of(f.nodes().size(), -1);
  uint32_t next = 0;
  for (uint32_t h = 0; h < f.hosts().size(); ++h) {
    const uint32_t lc = next++ % lcores;
    lcore_of[f.host_leaf()[h]] = static_cast<int>(lc);  // the switch index is its node number
    lcore_of[host_base + h] = static_cast<int>(lc);
  }
  for (uint32_t n = 0; n < f.nodes().size(); ++n) {
    if (lcore_of[n] < 0) lcore_of[n] = static_cast<int>(next++ % lcores);
    work[lcore_of[n]].nodes.push_back(f.nodes()[n]);
  }
  return work;
}

// The EAL worker lcores the fabric runs on: the first `wanted` (0: all).
std::vector<unsigned> worker_lcores(uint32_t wanted) {
  std::vector<unsigned> workers;
  unsigned lc;
  RTE_LCORE_FOREACH_WORKER(lc) {
    if (wanted == 0 || workers.size() < wanted) workers.push_back(lc);
  }
  return workers;
}

// No worker lcores: the main lcore polls every node itself, a few rounds between looks at the
// engines and limits. Returns the node polls it made.
uint64_t poll_on_main(const LcoreWork& w) {
  constexpr int kRounds = 64;
  for (int round = 0; round < kRounds; ++round) {
    for (Node* n : w.nodes) {
      const uint64_t t = rte_rdtsc();
      n->poll(static_cast<uint64_t>(static_cast<double>(t) * w.ns_per_tsc), t);
    }
  }
  return kRounds * w.nodes.size();
}

// The fabric's clock in ns: the TSC, less what the sole worker's clock stood still. With a sole
// worker, its clock at its latest poll: while it is off its CPU its clock stands still (and its
// stall is only counted once it is back), so link events and samples must not run ahead of it.
uint64_t fabric_clock_ns(const LcoreWork& first) {
  const uint64_t tsc = first.sole ? first.clock.load(std::memory_order_relaxed)
                                  : rte_rdtsc() - first.stalled.load(std::memory_order_relaxed);
  return static_cast<uint64_t>(static_cast<double>(tsc) * first.ns_per_tsc);
}

}  // namespace

RunOutcome run_inprocess(Fabric& f, const FabricOptions& opts, uint64_t limit_ns) {
  RunOutcome out;
  const std::vector<unsigned> workers = worker_lcores(opts.lcores);
  std::atomic<bool> stop{false};
  std::vector<LcoreWork> work =
      assign(f, workers.empty() ? 1 : static_cast<uint32_t>(workers.size()));
  for (auto& w : work) {
    w.stop = &stop;
    w.ns_per_tsc = 1e9 / static_cast<double>(rte_get_tsc_hz());
    w.sole = workers.size() == 1;
    w.stall_cycles = kStallNs * rte_get_tsc_hz() / 1'000'000'000;
  }
  for (size_t i = 0; i < workers.size(); ++i)
    rte_eal_remote_launch(poll_nodes, &work[i], workers[i]);

  const uint64_t start = f.start_ns();
  const uint64_t period = std::max<uint64_t>(f.experiment().measurement.queue_sample_ns, 1'000'000);
  uint64_t next_sample = start;
  RunWatch watch(f, opts);
  auto all_done = [&] {
    return std::all_of(f.hosts().begin(), f.hosts().end(),
                       [](const auto& h) { return h->engine().finished(); });
  };
  uint64_t main_polls = 0;
  size_t next_event = 0;  // the first link event not yet applied (they are in time order)
  while (true) {
    if (workers.empty()) {
      main_polls += poll_on_main(work[0]);
    } else {
      // Rarely: a main lcore that shares a CPU with a worker preempts it at every wake-up.
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    const uint64_t now = fabric_clock_ns(work[0]);
    // Link events when the fabric's clock has passed their time: the control plane's calls are
    // safe from this thread while the workers poll (an RCU swap, atomics the data path reads).
    while (next_event < f.link_events().size() && now >= start &&
           now - start >= f.link_events()[next_event].at_ns) {
      f.apply_link_event(next_event++, now);
    }
    if (now >= next_sample && now >= start) {
      sample_queues(f, now - start, &out.samples);
      sample_delivered(f, now - start, &out.delivered);
      next_sample = now + period;
    }
    const uint64_t wall = watch.wall_ns();
    std::optional<gen::StopReason> stop_reason;
    if (all_done()) {
      stop_reason = gen::StopReason::kCompleted;
    } else if (now > start && now - start >= limit_ns) {
      stop_reason = gen::StopReason::kDuration;
    } else {
      stop_reason = watch.guard(wall);
    }
    watch.progress(now, wall, stop_reason.has_value());
    if (stop_reason) {
      out.completed = *stop_reason == gen::StopReason::kCompleted;
      out.stopped_by = *stop_reason;
      out.end_ns = now;
      break;
    }
  }
  stop.store(true);
  rte_eal_mp_wait_lcore();
  out.events = main_polls;
  for (const auto& w : work) out.events += w.polls;
  out.stalled_ns =
      static_cast<uint64_t>(static_cast<double>(work[0].stalled.load()) * work[0].ns_per_tsc);
  return out;
}

}  // namespace spraylab::fabric
