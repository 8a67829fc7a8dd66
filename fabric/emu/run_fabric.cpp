#include "fabric/emu/run_fabric.h"

#include <rte_lcore.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "fabric/emu/eal.h"
#include "fabric/emu/fabric.h"
#include "fabric/emu/inprocess_run.h"
#include "fabric/emu/port_stats.h"
#include "fabric/emu/virtual_run.h"
#include "fabric/run/machine_bound.h"
#include "fabric/run/time_scale.h"
#include "net/frame.h"
#include "net/wire.h"
#include "trafficgen/results.h"

namespace spraylab::fabric {
namespace {

// How an in-process run shared the machine (run/machine_bound.h); `e` as it ran (slowed down).
MachineShare share(const Fabric& f, const conf::Experiment& e) {
  uint64_t taken = 0, late_ns = 0;
  for (const auto& link : f.links()) {
    taken += link->taken();
    late_ns += link->taken_late_ns();
  }
  MachineShare s{.mode = Mode::kInProcess, .cpus = online_cpus(), .threads = rte_lcore_count()};
  s.mean_late_ns = taken ? static_cast<double>(late_ns) / static_cast<double>(taken) : 0;
  // A full frame: the payload under Ethernet, IPv4 and UDP headers, and what the wire adds.
  constexpr uint32_t kHeaders = net::kEthHeaderLen + 20 + 8;
  const double bits = 8.0 * (e.workload.payload_bytes + kHeaders + net::kWireOverhead);
  s.frame_ns = e.links.rate_bps > 0 ? bits / e.links.rate_bps * 1e9 : 0;
  return s;
}

}  // namespace

FabricResult run_fabric(const conf::Experiment& exp, const FabricOptions& opts) {
  if (!eal_initialised()) {
    throw std::runtime_error("run_fabric: EAL is not initialised (call fabric::init_eal first)");
  }
  if (opts.mode == Mode::kNamespaced) {
    throw std::invalid_argument(
        "run_fabric: the namespaced fabric runs in fabric/namespaced/run_namespaced.h");
  }
  const auto wall_start = std::chrono::steady_clock::now();
  conf::Experiment e = exp;
  const double scale =
      opts.mode == Mode::kInProcess ? slowdown_factor(e, opts.inprocess_rate_bps) : 1;
  slow_down(&e, scale);
  // --timeout covers the build too: a fabric of 65,536 hosts takes minutes to build.
  const auto deadline =
      wall_start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                       std::chrono::duration<double>(opts.max_wall_seconds));
  // Virtual time: a thread per partition, by default as many as the CPUs this process may use
  // (the fabric caps them by its partitions). Results are the same for any count; on CPUs that
  // other work shares, --threads 1 spares the barriers their waits (docs/fabric.md, "A parallel
  // virtual time").
  const uint32_t threads = virtual_threads(opts.threads);
  Fabric f(e, opts.mode, 20'000'000, deadline, threads);
  FabricOptions run_opts = opts;  // the run has what the build left of the limit
  run_opts.max_wall_seconds = std::max(
      1e-3,
      opts.max_wall_seconds -
          std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count());
  // A clock limit is experiment time: scaled like the experiment's own duration.
  const uint64_t duration =
      opts.max_clock_ns ? static_cast<uint64_t>(static_cast<double>(opts.max_clock_ns) * scale)
                        : e.measurement.duration_ns;
  const uint64_t limit_ns = duration ? duration : UINT64_MAX;
  std::shared_ptr<void> metrics;  // released after the run, before the fabric
  if (opts.mode == Mode::kInProcess && opts.switch_metrics) {
    std::vector<dataplane::SwitchRuntime*> switches;
    for (const auto& s : f.switches()) switches.push_back(&s->runtime());
    metrics = opts.switch_metrics(switches);
  }
  RunOutcome run = opts.mode == Mode::kVirtual ? run_virtual(f, run_opts, limit_ns)
                                               : run_inprocess(f, run_opts, limit_ns);

  metrics.reset();
  FabricResult r;
  r.mode = opts.mode;
  r.time_scale = scale;
  r.completed = run.completed;
  r.stopped_by = run.stopped_by;
  r.clock_ns = run.end_ns > f.start_ns() ? run.end_ns - f.start_ns() : 0;
  r.events = run.events;
  r.threads = f.partitions();
  r.stalled_ns = run.stalled_ns;
  const std::vector<const gen::HostEngine*> engines = f.engines();
  gen::RunInfo info;
  info.config = exp.source;
  info.start_ns = engines.empty() ? f.start_ns() : engines[0]->ns_of(f.start_tsc());
  info.end_ns = opts.mode == Mode::kVirtual ? run.end_ns : info.start_ns + r.clock_ns;
  info.completed = run.completed;
  info.stopped_by = run.stopped_by;
  // Without the list in generator.json (runner.cpp, write_variant) the summary is all that reads
  // the messages.
  info.message_records = exp.measurement.lists_messages();
  r.generator = gen::results_json(f.plan(), engines, info);
  r.ports = port_summaries(f, run.samples, r.clock_ns);
  if (exp.buffer.flow_control == conf::FlowControl::kPfc) {
    r.pfc = true;
    r.host_pfc = host_pfc(f, r.clock_ns);
  }
  if (exp.buffer.flow_control == conf::FlowControl::kCredit) {
    r.credit = true;
    r.host_credit = host_credit(f, r.clock_ns);
  }
  r.samples = std::move(run.samples);
  r.delivered = std::move(run.delivered);
  // The last window ends with the run, between two sample times.
  if (r.delivered.empty() || r.delivered.back().t_ns < r.clock_ns) {
    sample_delivered(f, r.clock_ns, &r.delivered);
  }
  r.host_capacity_bps = host_capacity_bps(f);
  r.warmup_at_ns = run.warmup_at_ns;
  r.queue_sample_halvings = run.queue_sample_halvings;
  r.pool_frames = run.pool_frames;
  r.pool_grown_in_window = run.pool_grown_in_window;
  r.delivered_at_warmup = run.delivered_at_warmup;
  r.arrivals_at_warmup = std::move(run.arrivals_at_warmup);
  r.host_delivered_at_warmup = std::move(run.host_delivered_at_warmup);
  r.link_events = f.link_events_json();
  if (opts.mode == Mode::kInProcess) r.machine_bound = machine_bound_reason(share(f, e));
  r.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return r;
}

}  // namespace spraylab::fabric
