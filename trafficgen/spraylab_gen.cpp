// spraylab-gen: emulated hosts of an experiment on DPDK ports, replaying its workload.
//   spraylab-gen [EAL args] -- --config FILE --hosts LIST [options]
// Host i of LIST uses DPDK port i (the order of --vdev / -a) unless --port-map says otherwise.
//
// run() in steps: EAL and the command line (gen_cli.h) ─▶ the plan (host_plan.h) ─▶ ports up
// and warmed ─▶ engines, one per lcore, and their metrics ─▶ the lcores launched ─▶ the main
// lcore's loop until a stop reason (RunLoop) ─▶ hold / linger / quiesce ─▶ results and stats.
// Start-up and the engines' fast path (HostEngine::poll, in worker_main) never mix.
#include <fmt/format.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mempool.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <memory>
#include <optional>
#include <string_view>
#include <thread>
#include <vector>

#include "conf/cli_checks.h"
#include "conf/guarded_main.h"
#include "conf/loader.h"
#include "conf/units.h"
#include "monitoring/eal_thread.h"
#include "monitoring/exposer.h"
#include "net/carrier_watch.h"
#include "net/eal_main.h"
#include "net/idle_sleep.h"
#include "net/intr_gate.h"
#include "net/memif_redial.h"
#include "net/realtime.h"
#include "topo/build.h"
#include "trafficgen/engine_lcores.h"
#include "trafficgen/engines.h"
#include "trafficgen/gen_cli.h"
#include "trafficgen/gen_metrics.h"
#include "trafficgen/gen_ports.h"
#include "trafficgen/host_engine.h"
#include "trafficgen/host_plan.h"
#include "trafficgen/port_links.h"
#include "trafficgen/results.h"
#include "trafficgen/run_loop.h"

namespace {

using namespace spraylab;

std::atomic<bool> g_signal{false};
std::atomic<bool> g_released{false};
// --hold: a "quiesce" line on standard input stops all polling but keeps the ports open, so a
// harness can quiesce every process before any of them closes its ports (DPDK 22.11's memif can
// crash a poller whose peer disconnects mid-burst).
std::atomic<bool> g_quiesce{false};
void on_signal(int) { g_signal.store(true); }

// ---- Start-up -----------------------------------------------------------------------------------

gen::RunPlan plan_of(const gen::GenOptions& cli) {
  const conf::Experiment exp = conf::load_experiment_file(cli.config);
  const topo::Topology topology = topo::build(exp.topology, exp.links);
  return gen::make_run_plan(exp, gen::host_plan_options(cli, exp, topology));
}

// The ports of the run and the pool their frames come from.
struct GenPorts {
  std::vector<net::PortState> list;
  rte_mempool* pool = nullptr;
  uint32_t max_frame = 0;
  // The pool's level before any traffic; --stats-json compares it with the level at the end.
  uint32_t mbufs_in_use_start = 0;
};

void print_ports(const gen::RunPlan& plan, const std::vector<net::PortState>& ports) {
  for (const auto& p : ports) {
    std::string who;
    for (const auto& h : plan.hosts) {
      if (h.port == p.port_id) who += (who.empty() ? "" : ",") + h.name;
    }
    fmt::print(stderr, "port {} = {} ({}) hosts {}\n", p.port_id, p.name, p.driver, who);
  }
}

void wait_for_links(const std::vector<net::PortState>& ports, double link_wait_s) {
  const auto wait_start = std::chrono::steady_clock::now();
  for (const auto& p : ports) {
    // An af_xdp / af_packet port's PMD reports its link up at once: its interface's carrier says
    // whether the peer is there (read here, at start-up only; it takes the rtnl lock).
    while (!net::link_up(p.port_id) || (!p.iface.empty() && !net::carrier_up(p.iface))) {
      if (g_signal.load()) throw std::runtime_error("interrupted while waiting for links");
      if (std::chrono::steady_clock::now() - wait_start >
          std::chrono::duration<double>(link_wait_s)) {
        throw std::runtime_error(
            fmt::format("port {} ({}): link not up after {} s (is the peer running?)", p.port_id,
                        p.name, link_wait_s));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
}

void warm_up(const GenPorts& ports, int64_t warmup) {
  for (const auto& p : ports.list) {
    const int64_t frames = warmup >= 0 ? warmup : (p.driver == "net_memif" ? 2048 : 0);
    if (frames > 0) {
      // Half a second: enough for a ring's worth each way, and both peers warm up at once.
      const uint32_t sent = gen::warm_up_port(p.port_id, ports.pool, static_cast<uint32_t>(frames),
                                              ports.max_frame, 0.5);
      fmt::print(stderr, "port {}: {} warm-up frames of {} B\n", p.port_id, sent, ports.max_frame);
    }
  }
}

// Ports started, every link up, memif's buffers warmed.
GenPorts open_ports(const gen::RunPlan& plan, const gen::GenOptions& cli) {
  GenPorts ports;
  ports.max_frame = gen::kFrameHeaderBytes + plan.payload_bytes;
  ports.list = gen::start_gen_ports(plan.ports_needed, ports.max_frame, &ports.pool);
  print_ports(plan, ports.list);
  wait_for_links(ports.list, cli.link_wait);
  ports.mbufs_in_use_start = rte_mempool_in_use_count(ports.pool);
  warm_up(ports, cli.warmup);
  return ports;
}

// --start-file: waits (asleep: the ports need no polling before the run) until the file exists
// and holds a UNIX time, and returns it.
double wait_for_start_file(const std::string& path) {
  fmt::print(stderr, "spraylab-gen: waiting for {}\n", path);
  while (true) {
    if (g_signal.load()) throw std::runtime_error("interrupted while waiting for the start file");
    // access() first: a look that costs one system call, while the file is not there.
    if (access(path.c_str(), R_OK) == 0) {
      std::ifstream in(path);
      double at = 0;
      if (in && (in >> at) && at > 0) return at;
    }
    // A launcher writes the file ahead of the start (fabric start: 0.5 s): 100 ms is soon enough.
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

// In a millisecond, or at --start-at / the time in --start-file (at most a minute away).
uint64_t start_tsc_of(const gen::GenOptions& cli) {
  const uint64_t hz = rte_get_tsc_hz();
  uint64_t start_tsc = rte_rdtsc() + hz / 1000;
  const double start_at =
      cli.start_file.empty() ? cli.start_at : wait_for_start_file(cli.start_file);
  if (start_at > 0) {
    const double now_s =
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    const double wait = start_at - now_s;
    if (wait > 60) {
      throw gen::UsageError(
          cli.start_file.empty()
              ? fmt::format("--start-at is {:.1f} s away (at most 60)", wait)
              : fmt::format("--start-file {}: its time is {:.1f} s away (at most 60)",
                            cli.start_file, wait));
    }
    if (wait > 0) start_tsc = rte_rdtsc() + static_cast<uint64_t>(wait * static_cast<double>(hz));
  }
  return start_tsc;
}

// One engine per lcore (a worker; the main lcore when EAL gave no worker), each owning whole
// ports (a port's queue is polled by one lcore): ports in order of first use, dealt round robin.
gen::Engines make_engines(const gen::RunPlan& plan, rte_mempool* pool, uint64_t start_tsc,
                          const gen::BurstIo& tx) {
  std::vector<uint16_t> used_ports;
  for (const auto& h : plan.hosts) {
    if (std::find(used_ports.begin(), used_ports.end(), h.port) == used_ports.end())
      used_ports.push_back(h.port);
  }
  const uint32_t lcores = rte_lcore_count();
  const uint32_t n_engines = std::min<uint32_t>(lcores > 1 ? lcores - 1 : 1, used_ports.size());
  gen::Engines engines;
  // One epoch for every engine: a TSC reading and the realtime clock taken together, so that the
  // results' times are UNIX times every process of a fabric shares (EngineSetup::epoch_tsc).
  const uint64_t epoch_tsc = rte_rdtsc();
  const uint64_t epoch_ns =
      static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                std::chrono::system_clock::now().time_since_epoch())
                                .count());
  for (uint32_t e = 0; e < n_engines; ++e) {
    gen::EngineSetup s;
    s.epoch_tsc = epoch_tsc;
    s.epoch_ns = epoch_ns;
    s.plan = &plan;
    s.pool = pool;
    s.tsc_hz = rte_get_tsc_hz();
    s.start_tsc = start_tsc;
    s.engine_id = e;
    s.tx = tx;
    for (uint32_t i = 0; i < plan.hosts.size(); ++i) {
      const size_t pi =
          std::find(used_ports.begin(), used_ports.end(), plan.hosts[i].port) - used_ports.begin();
      if (pi % n_engines == e) s.hosts.push_back(i);
    }
    engines.list.push_back(std::make_unique<gen::HostEngine>(s));
  }
  return engines;
}

// The lcore of each engine: the first workers in order, or the main lcore alone.
std::vector<unsigned> engine_lcores(size_t engines) {
  std::vector<unsigned> out;
  if (rte_lcore_count() > 1) {
    unsigned lcore;
    RTE_LCORE_FOREACH_WORKER(lcore) {
      if (out.size() < engines) out.push_back(lcore);
    }
  } else {
    out.push_back(rte_get_main_lcore());
  }
  return out;
}

// What the metrics read: the engines' live state and every message's and collective's bound.
gen::GenSource gen_source(const gen::RunPlan& plan, const gen::Engines& engines,
                          const std::vector<unsigned>& lcores) {
  gen::GenSource src;
  for (size_t e = 0; e < engines.list.size(); ++e) {
    src.engines.push_back(gen::view_of(*engines.list[e], lcores[e]));
  }
  src.schedule = &plan.schedule;
  src.messages = engines.total();
  src.message_bound_ns.assign(plan.schedule.messages.size(), 0);
  for (const auto& e : engines.list) {
    for (const gen::SendState& s : e->sends()) {
      src.message_bound_ns[s.id] =
          gen::message_bound(plan, s.bytes, plan.message_hops[s.id]).total_ns;
    }
  }
  for (const gen::CollectiveBound& b : gen::collective_bounds(plan, engines.view())) {
    src.collective_bound_ns.push_back(b.total_ns);
  }
  return src;
}

// Metrics (docs/monitoring.md): scrapes read the engines' state while their lcores run; the
// server's threads run on EAL's control CPUs.
std::unique_ptr<monitoring::Exposer> start_metrics(const monitoring::Address& address,
                                                   const gen::GenOptions& cli, gen::GenSource src) {
  auto registry = std::make_shared<monitoring::Registry>();
  registry->add(std::make_shared<gen::GenCollector>(std::move(src)));
  std::string note;
  auto exposer = monitoring::start_exposer(address, cli.metrics.is_default(), registry,
                                           monitoring::run_on_control_thread, &note);
  if (!note.empty()) fmt::print(stderr, "spraylab-gen: warning: {}\n", note);
  fmt::print(stderr, "spraylab-gen: metrics on {}\n", exposer->url());
  return exposer;
}

// --hold: standard input's lines ("quiesce") and its end (release) steer the end of the run.
void read_stdin_commands() {
  std::thread([] {
    char line[256];
    while (std::fgets(line, sizeof(line), stdin) != nullptr) {
      if (std::string_view(line).starts_with("quiesce")) g_quiesce.store(true);
    }
    g_released.store(true);
  }).detach();
}

// ---- Results and stats --------------------------------------------------------------------------

// --stats-json: every counter, the engines' busy cycles against the run's, and frames never
// taken by a device (the mbuf pool's levels are added once the engines are gone).
nlohmann::ordered_json engine_stats(const gen::Engines& engines, uint64_t start_tsc,
                                    uint64_t finish_tsc) {
  nlohmann::ordered_json stats;
  stats["counters"] = gen::counters_json(engines.view());
  uint64_t busy = 0, tx_pending = 0;
  for (const auto& e : engines.list) {
    busy += e->busy_cycles();
    tx_pending += e->tx_pending();
  }
  const uint64_t hz = rte_get_tsc_hz();
  stats["busy_cycles"] = busy;
  stats["tsc_hz"] = hz;
  stats["seconds"] =
      static_cast<double>(finish_tsc - std::min(finish_tsc, start_tsc)) / static_cast<double>(hz);
  stats["tx_pending"] = tx_pending;  // counted as sent, never taken by the device
  return stats;
}

void write_stats(const std::string& path, nlohmann::ordered_json stats, const GenPorts& ports) {
  stats["mbuf_pool"] = {{"size", ports.pool->size},
                        {"in_use_start", ports.mbufs_in_use_start},
                        {"in_use_end", rte_mempool_in_use_count(ports.pool)}};
  if (path.empty()) return;
  if (const std::string error = conf::write_output_file(path, stats.dump(2) + "\n", "--stats-json");
      !error.empty()) {
    fmt::print(stderr, "spraylab-gen: {}\n", error);
  }
}

// ---- run ----------------------------------------------------------------------------------------

int run(int argc, char** argv) {
  if (std::optional<std::vector<char*>> help = net::own_help_args(argc, argv, "spraylab-gen")) {
    gen::GenOptions cli;
    return gen::parse_gen_cli(static_cast<int>(help->size()), help->data(), &cli).value_or(0);
  }
  if (!net::start_eal(argc, argv, "spraylab-gen", on_signal)) return 2;
  net::install_idle_wake_signal();  // a launcher's SIGUSR1 before a run ends no generator
  gen::GenOptions cli;
  if (const std::optional<int> rc = gen::parse_gen_cli(argc, argv, &cli)) {
    rte_eal_cleanup();
    return *rc;
  }
  const std::optional<monitoring::Address> metrics_at = gen::metrics_address(cli);
  const uint64_t idle_sleep_ns = conf::sleep_cap_ns(cli.idle_sleep).value_or(0);
  gen::check_rt_priority(cli);
  const gen::RunPlan plan = plan_of(cli);
  GenPorts ports = open_ports(plan, cli);
  // With --start-file the engines and their metrics come first (a fabric's Prometheus scrapes a
  // waiting generator too), and the start moves to the file's time once it is there.
  uint64_t start_tsc = cli.start_file.empty() ? start_tsc_of(cli) : rte_rdtsc();
  const gen::PortLinks links(ports.list, net::carrier_period(idle_sleep_ns),
                             net::carrier_max_period(idle_sleep_ns));
  gen::Engines engines = make_engines(plan, ports.pool, start_tsc, gen::carrier_gated_tx(links));
  fmt::print(stderr,
             "spraylab-gen: {} hosts, {} messages here, {} engine(s), rate {}, entropy {}\n",
             plan.hosts.size(), engines.total(), engines.list.size(),
             plan.rate_bps > 0 ? conf::format_rate(plan.rate_bps) : "unlimited",
             gen::to_string(plan.entropy));
  const std::vector<unsigned> lcores = engine_lcores(engines.list.size());
  std::unique_ptr<monitoring::Exposer> exposer;
  if (metrics_at) {
    exposer = start_metrics(*metrics_at, cli, gen_source(plan, engines, lcores));
  }
  if (!cli.start_file.empty()) {
    start_tsc = start_tsc_of(cli);
    for (auto& engine : engines.list) engine->move_start(start_tsc);
  }
  if (cli.hold) read_stdin_commands();

  gen::LinkLog link_log(links);
  gen::EngineLcores running(engines, lcores, ports.list, idle_sleep_ns, cli.rt_priority);
  const gen::RunFlags flags{&g_signal, &g_quiesce, &g_released};
  gen::RunLoop loop(cli, flags, plan, engines, running, link_log, start_tsc);
  loop.run();
  running.finish();
  loop.finish();

  const nlohmann::ordered_json stats = engine_stats(engines, start_tsc, loop.finish_tsc());
  fmt::print(stderr, "spraylab-gen: {} ({}/{} messages)\n", gen::to_string(loop.stopped_by()),
             engines.done(), engines.total());
  const bool ok = loop.stopped_by() == gen::StopReason::kCompleted ||
                  loop.stopped_by() == gen::StopReason::kDuration;
  exposer.reset();       // no scrape may read the engines once they go
  engines.list.clear();  // frees queued mbufs before the ports and EAL go
  write_stats(cli.stats_json, stats, ports);
  net::stop_ports(ports.list);
  rte_eal_cleanup();
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  return spraylab::conf::guarded_main("spraylab-gen", [&] { return run(argc, argv); });
}
