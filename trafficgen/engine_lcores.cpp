#include "trafficgen/engine_lcores.h"

#include <rte_cycles.h>
#include <rte_launch.h>
#include <rte_lcore.h>

#include <algorithm>

#include "net/memif_redial.h"
#include "net/realtime.h"

namespace spraylab::gen {

namespace {

// TSC cycles as ns for IdleSleep (UINT64_MAX, "never", stays so).
uint64_t tsc_ns(uint64_t tsc, double ns_per_cycle) {
  return tsc == UINT64_MAX ? UINT64_MAX
                           : static_cast<uint64_t>(static_cast<double>(tsc) * ns_per_cycle);
}

// One engine's turn and, when it did nothing, --idle-sleep's nap until its next pacer slot or
// timer at the latest.
void poll_engine(HostEngine& engine, net::IdleSleep& idle, net::IntrGate* gate, uint32_t poller,
                 double ns_per_cycle) {
  const uint64_t now = rte_rdtsc();
  if (engine.poll(now)) {
    idle.worked();
  } else if (idle.enabled()) {
    idle.idle(tsc_ns(now, ns_per_cycle), tsc_ns(engine.next_wake(now), ns_per_cycle), gate, poller);
  }
}

int worker_main(void* arg) {
  const auto* l = static_cast<const EngineLaunch*>(arg);
  net::IdleSleep idle(l->idle_sleep_ns);
  const double ns_per_cycle = 1e9 / static_cast<double>(rte_get_tsc_hz());
  net::apply_rt_priority("spraylab-gen", l->rt_priority);
  if (l->gate) l->gate->enter(l->poller);
  while (!l->stop->load(std::memory_order_relaxed)) {
    if (l->gate) l->gate->checkpoint(l->poller);
    poll_engine(*l->engine, idle, l->gate, l->poller, ns_per_cycle);
  }
  if (l->gate) l->gate->leave(l->poller);
  if (l->rt_priority) net::make_thread_fair();
  return 0;
}

}  // namespace

EngineLcores::EngineLcores(const Engines& engines, const std::vector<unsigned>& lcores,
                           const std::vector<net::PortState>& ports, uint64_t idle_sleep_ns,
                           int rt_priority)
    : idle_(idle_sleep_ns), ns_per_cycle_(1e9 / static_cast<double>(rte_get_tsc_hz())) {
  const auto n = static_cast<uint32_t>(engines.list.size());
  if (std::any_of(ports.begin(), ports.end(),
                  [](const auto& p) { return p.driver == "net_memif"; })) {
    // Client ports (the switch is the server) redial a switch that was restarted.
    auto redial = std::make_shared<net::MemifRedial>(ports);
    gate_ = std::make_unique<net::IntrGate>(
        n, net::gate_hold_us(idle_sleep_ns), [redial] { redial->on_turn(); },
        [redial] { return redial->wants_turn(); });
    gate_->start();
  }
  launches_.reserve(n);
  if (rte_lcore_count() > 1) {
    for (uint32_t e = 0; e < n; ++e) {
      launches_.push_back(
          {engines.list[e].get(), gate_.get(), e, idle_sleep_ns, rt_priority, &stop_});
      rte_eal_remote_launch(worker_main, &launches_.back(), lcores[e]);
    }
  } else {
    main_engine_ = engines.list[0].get();
    // The main lcore polls the engine between its control turns: it is the data path.
    net::apply_rt_priority("spraylab-gen", rt_priority);
    main_rt_ = rt_priority != 0;
    if (gate_) gate_->enter(0);
  }
}
void EngineLcores::poll_main(uint64_t now) {
  if (main_engine_ == nullptr || halted_) {
    // Nothing to poll here: with --idle-sleep the main lcore naps between control turns.
    idle_.idle(tsc_ns(now, ns_per_cycle_), UINT64_MAX);
    return;
  }
  if (gate_) gate_->checkpoint(0);
  poll_engine(*main_engine_, idle_, gate_.get(), 0, ns_per_cycle_);
}
void EngineLcores::halt() {
  stop_.store(true);  // workers return; the main lcore polls no more
  rte_eal_mp_wait_lcore();
  if (halted_) return;
  if (main_engine_ && gate_) gate_->leave(0);
  halted_ = true;
}
void EngineLcores::finish() {
  halt();
  if (gate_) gate_->stop();  // before the ports close: the interrupt thread runs freely again
  if (main_rt_) net::make_thread_fair();  // results and clean-up run with everything else
}

}  // namespace spraylab::gen
