// spraylab-gen: emulated hosts of an experiment on DPDK ports, replaying its workload.
//   spraylab-gen [EAL args] -- --config FILE --hosts LIST [options]
// Host i of LIST uses DPDK port i (the order of --vdev / -a) unless --port-map says otherwise.
#include <fmt/format.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mempool.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string_view>
#include <thread>

#include "conf/config_error.h"
#include "conf/guarded_main.h"
#include "conf/loader.h"
#include "conf/units.h"
#include "monitoring/eal_thread.h"
#include "monitoring/exposer.h"
#include "monitoring/metrics_options.h"
#include "net/intr_gate.h"
#include "net/memif_redial.h"
#include "topo/build.h"
#include "trafficgen/gen_metrics.h"
#include "trafficgen/gen_ports.h"
#include "trafficgen/host_engine.h"
#include "trafficgen/host_plan.h"
#include "trafficgen/results.h"

namespace {

using namespace spraylab;

std::atomic<bool> g_signal{false};
std::atomic<bool> g_stop{false};
std::atomic<bool> g_released{false};
// --hold: a "quiesce" line on standard input stops all polling but keeps the ports open, so a
// harness can quiesce every process before any of them closes its ports (DPDK 22.11's memif can
// crash a poller whose peer disconnects mid-burst).
std::atomic<bool> g_quiesce{false};
void on_signal(int) { g_signal.store(true); }

struct Options {
  std::string config, hosts, port_map, rate, entropy, rto, results, stats_json;
  uint32_t ack_every = 0;
  uint32_t payload = 0;
  double loss = 0, duration = 0, timeout = 0, start_at = 0, linger = -1, link_wait = 10;
  int64_t warmup = -1;  // frames per port; -1: 2048 on memif ports, none elsewhere
  bool back_to_back = false, progress = false, hold = false;
  monitoring::MetricsOptions metrics{monitoring::kGenPort};
};

class UsageError : public std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

std::vector<uint16_t> parse_port_map(const std::string& text) {
  std::vector<uint16_t> out;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    start = comma + 1;
    try {
      size_t used = 0;
      const unsigned long v = std::stoul(item, &used);
      if (used != item.size() || v >= RTE_MAX_ETHPORTS) throw std::out_of_range(item);
      out.push_back(static_cast<uint16_t>(v));
    } catch (const std::logic_error&) {
      throw UsageError(fmt::format("--port-map '{}': '{}' is not a DPDK port number", text, item));
    }
  }
  return out;
}

uint64_t parse_time_option(const std::string& name, const std::string& text) {
  const auto ns = conf::parse_time_ns(text);
  if (!ns || !(*ns > 0)) {
    throw UsageError(
        fmt::format("{} '{}': expected a positive time such as 500us or 2ms", name, text));
  }
  return static_cast<uint64_t>(*ns);
}

struct Engines {
  std::vector<std::unique_ptr<gen::HostEngine>> list;
  std::vector<const gen::HostEngine*> view() const {
    std::vector<const gen::HostEngine*> v;
    for (const auto& e : list) v.push_back(e.get());
    return v;
  }
  bool finished() const {
    for (const auto& e : list) {
      if (!e->finished()) return false;
    }
    return true;
  }
  uint64_t done() const {
    uint64_t n = 0;
    for (const auto& e : list) n += e->messages_done();
    return n;
  }
  uint64_t total() const {
    uint64_t n = 0;
    for (const auto& e : list) n += e->messages_total();
    return n;
  }
  uint64_t tx_bytes() const {
    uint64_t n = 0;
    for (const auto& e : list) n += e->tx_bytes_live();
    return n;
  }
};

// An engine's lcore. With memif ports it takes turns with DPDK's interrupt thread, where memif
// links come and go (net/intr_gate.h): a switch killed mid-burst cannot crash it.
struct EngineLaunch {
  gen::HostEngine* engine;
  net::IntrGate* gate;
  uint32_t poller;
};

int worker_main(void* arg) {
  const auto* l = static_cast<const EngineLaunch*>(arg);
  if (l->gate) l->gate->enter(l->poller);
  while (!g_stop.load(std::memory_order_relaxed)) {
    if (l->gate) l->gate->checkpoint(l->poller);
    l->engine->poll(rte_rdtsc());
  }
  if (l->gate) l->gate->leave(l->poller);
  return 0;
}

// Logs every change of a port's link ("spraylab-gen: port 0 (net_memif0): link down"). While a
// link is down its frames wait in the engine's tx slots (the device takes none) and messages stay
// outstanding; when it is back they go out, and what the outage lost is sent again by the
// retransmission timeout.
class LinkLog {
 public:
  explicit LinkLog(const std::vector<net::PortState>& ports) : ports_(ports) {
    for (const auto& p : ports_) up_.push_back(net::link_up(p.port_id));
  }
  void poll() {
    for (size_t i = 0; i < ports_.size(); ++i) {
      const bool up = net::link_up(ports_[i].port_id);
      if (up == up_[i]) continue;
      up_[i] = up;
      fmt::print(stderr, "spraylab-gen: port {} ({}): link {}\n", ports_[i].port_id, ports_[i].name,
                 up ? "up" : "down");
    }
  }

 private:
  const std::vector<net::PortState>& ports_;
  std::vector<bool> up_;
};

int run(int argc, char** argv) {
  const int eal = rte_eal_init(argc, argv);
  if (eal < 0) {
    fmt::print(stderr, "spraylab-gen: EAL initialisation failed: {}\n", rte_strerror(rte_errno));
    return 2;
  }
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  argc -= eal;
  argv += eal;
  argv[0] = const_cast<char*>("spraylab-gen");

  Options o;
  CLI::App app{
      "spraylab-gen: emulated hosts of an experiment on DPDK ports, replaying its workload.\n"
      "Usage: spraylab-gen [EAL args] -- --config FILE --hosts LIST [options]\n"
      "Host i of LIST uses DPDK port i (the order of --vdev / -a) unless --port-map says\n"
      "otherwise. Always pass --no-pci or an -a allow-list to EAL. docs/generator.md has more."};
  app.add_option("--config", o.config, "Experiment YAML file")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("--hosts", o.hosts,
                 "Hosts to emulate: h0,h1 or ranges h0-h3 (names in the topology)")
      ->required();
  app.add_option(
      "--port-map", o.port_map,
      "DPDK port of each host of --hosts, comma-separated (e.g. 0,0,1); hosts may share one");
  app.add_option("--rate", o.rate,
                 "Sending rate per host: a fraction of the link rate (0.5), a rate (10Gbps) or "
                 "'unlimited' (default: the workload's load x the link rate)");
  app.add_option("--ack-every", o.ack_every,
                 "Receivers ACK every n-th data packet (and the last, duplicates and "
                 "retransmissions at once) (default: the workload's ack_every)");
  app.add_option("--entropy", o.entropy,
                 "Path entropy, one of the choices above (default: the workload's)")
      ->check(CLI::IsMember(
          std::vector<std::string>(gen::kEntropyModeNames.begin(), gen::kEntropyModeNames.end())));
  app.add_option("--retransmit-timeout", o.rto,
                 "Resend unacknowledged packets after this long without progress, e.g. 1ms "
                 "(default: the workload's retransmit_timeout)");
  app.add_option("--loss", o.loss,
                 "Drop arriving packets (data and ACKs) with this probability, counted (tests)")
      ->check(CLI::Range(0.0, 0.99));
  app.add_option("--payload", o.payload,
                 "Payload bytes per data packet, 1..9000 (default: the workload's payload)")
      ->check(CLI::Range(1, 9000));
  app.add_flag("--back-to-back", o.back_to_back,
               "The ports are wired host to host, not to switches: frames go to the peer host's "
               "MAC and the bound uses one link with no propagation delay");
  app.add_option("--duration", o.duration,
                 "Stop after this many seconds even if the workload is not done (exit 0)")
      ->check(CLI::PositiveNumber);
  app.add_option("--timeout", o.timeout,
                 "Give up after this many seconds if the workload is not done (exit 1)")
      ->check(CLI::PositiveNumber);
  app.add_option("--start-at", o.start_at,
                 "Start sending at this UNIX time in seconds (synchronises several processes; "
                 "default: as soon as every link is up)");
  app.add_option("--warmup", o.warmup,
                 "Frames per port sent before the start (broadcast, UDP discard port) so that "
                 "memif's shared buffers are paged in before anything is measured (default: 2048 "
                 "on memif ports, 0 elsewhere)");
  app.add_option("--link-wait", o.link_wait,
                 "Seconds to wait for every link to come up (default 10)")
      ->check(CLI::PositiveNumber);
  app.add_option("--linger", o.linger,
                 "After finishing, keep answering (ACKing retransmissions) this many seconds "
                 "(default: 3 retransmit timeouts, at least 0.1)");
  app.add_flag("--hold", o.hold,
               "After finishing, keep the ports polled until standard input closes (for test "
               "harnesses: memif peers stop in order); with --duration, sending stops at the "
               "duration and receiving and acknowledging go on");
  app.add_option("--results", o.results,
                 "Write the results (JSON, docs/generator.md) to this file");
  app.add_flag("--progress", o.progress,
               "Live progress line: messages done/total, send rate, elapsed (one line per second "
               "when not a terminal)");
  app.add_option("--stats-json", o.stats_json,
                 "Write every engine counter as JSON to this file on exit");
  o.metrics.add_to(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    rte_eal_cleanup();
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }

  std::optional<monitoring::Address> metrics_address;
  try {
    metrics_address = o.metrics.address();
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  const conf::Experiment exp = conf::load_experiment_file(o.config);
  const topo::Topology topology = topo::build(exp.topology, exp.links);
  gen::GenOptions go;
  go.hosts = gen::parse_host_list(o.hosts, topology);
  if (!o.port_map.empty()) go.port_map = parse_port_map(o.port_map);
  const double link_rate = topo::slowest_host_link(topology).rate_bps;
  go.rate_bps =
      o.rate.empty() ? exp.workload.load * link_rate : gen::parse_send_rate(o.rate, link_rate);
  go.ack_every = o.ack_every ? o.ack_every : exp.workload.ack_every;
  go.entropy = o.entropy.empty() ? exp.workload.entropy : *gen::entropy_mode_from_name(o.entropy);
  go.retransmit_timeout_ns = o.rto.empty() ? exp.workload.retransmit_timeout_ns
                                           : parse_time_option("--retransmit-timeout", o.rto);
  go.loss = o.loss;
  go.payload_bytes = o.payload;
  go.back_to_back = o.back_to_back;
  go.seed = exp.seed;
  const gen::RunPlan plan = gen::make_run_plan(exp, go);

  rte_mempool* pool = nullptr;
  const uint32_t max_frame = gen::kFrameHeaderBytes + plan.payload_bytes;
  const std::vector<net::PortState> ports =
      gen::start_gen_ports(plan.ports_needed, max_frame, &pool);
  for (const auto& p : ports) {
    std::string who;
    for (const auto& h : plan.hosts) {
      if (h.port == p.port_id) who += (who.empty() ? "" : ",") + h.name;
    }
    fmt::print(stderr, "port {} = {} ({}) hosts {}\n", p.port_id, p.name, p.driver, who);
  }
  const auto wait_start = std::chrono::steady_clock::now();
  for (const auto& p : ports) {
    while (!net::link_up(p.port_id)) {
      if (g_signal.load()) throw std::runtime_error("interrupted while waiting for links");
      if (std::chrono::steady_clock::now() - wait_start >
          std::chrono::duration<double>(o.link_wait)) {
        throw std::runtime_error(
            fmt::format("port {} ({}): link not up after {} s (is the peer running?)", p.port_id,
                        p.name, o.link_wait));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }

  // The pool's level before any traffic; --stats-json compares it with the level at the end.
  const uint32_t mbufs_in_use_start = rte_mempool_in_use_count(pool);
  for (const auto& p : ports) {
    const int64_t frames = o.warmup >= 0 ? o.warmup : (p.driver == "net_memif" ? 2048 : 0);
    if (frames > 0) {
      // Half a second: enough for a ring's worth each way, and both peers warm up at once.
      const uint32_t sent =
          gen::warm_up_port(p.port_id, pool, static_cast<uint32_t>(frames), max_frame, 0.5);
      fmt::print(stderr, "port {}: {} warm-up frames of {} B\n", p.port_id, sent, max_frame);
    }
  }

  const uint64_t hz = rte_get_tsc_hz();
  uint64_t start_tsc = rte_rdtsc() + hz / 1000;
  if (o.start_at > 0) {
    const double now_s =
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    const double wait = o.start_at - now_s;
    if (wait > 60) throw UsageError(fmt::format("--start-at is {:.1f} s away (at most 60)", wait));
    if (wait > 0) start_tsc = rte_rdtsc() + static_cast<uint64_t>(wait * static_cast<double>(hz));
  }

  // One engine per lcore, each owning whole ports (a port's queue is polled by one lcore).
  std::vector<uint16_t> used_ports;
  for (const auto& h : plan.hosts) {
    if (std::find(used_ports.begin(), used_ports.end(), h.port) == used_ports.end())
      used_ports.push_back(h.port);
  }
  const uint32_t lcores = rte_lcore_count();
  const uint32_t n_engines = std::min<uint32_t>(lcores > 1 ? lcores - 1 : 1, used_ports.size());
  Engines engines;
  for (uint32_t e = 0; e < n_engines; ++e) {
    gen::EngineSetup s;
    s.plan = &plan;
    s.pool = pool;
    s.tsc_hz = hz;
    s.start_tsc = start_tsc;
    s.engine_id = e;
    for (uint32_t i = 0; i < plan.hosts.size(); ++i) {
      const size_t pi =
          std::find(used_ports.begin(), used_ports.end(), plan.hosts[i].port) - used_ports.begin();
      if (pi % n_engines == e) s.hosts.push_back(i);
    }
    engines.list.push_back(std::make_unique<gen::HostEngine>(s));
  }
  fmt::print(stderr,
             "spraylab-gen: {} hosts, {} messages here, {} engine(s), rate {}, entropy {}\n",
             plan.hosts.size(), engines.total(), n_engines,
             plan.rate_bps > 0 ? conf::format_rate(plan.rate_bps) : "unlimited",
             gen::to_string(plan.entropy));

  // Metrics (docs/monitoring.md): scrapes read the engines' state while their lcores run; the
  // server's threads run on EAL's control CPUs.
  std::unique_ptr<monitoring::Exposer> exposer;
  if (metrics_address) {
    std::vector<unsigned> engine_lcores;
    if (lcores > 1) {
      unsigned lcore;
      RTE_LCORE_FOREACH_WORKER(lcore) {
        if (engine_lcores.size() < n_engines) engine_lcores.push_back(lcore);
      }
    } else {
      engine_lcores.push_back(rte_get_main_lcore());
    }
    gen::GenSource src;
    for (uint32_t e = 0; e < n_engines; ++e) {
      src.engines.push_back(gen::view_of(*engines.list[e], engine_lcores[e]));
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
    for (const gen::CctBound& b : gen::collective_bounds(plan, engines.view())) {
      src.collective_bound_ns.push_back(b.total_ns);
    }
    auto registry = std::make_shared<monitoring::Registry>();
    registry->add(std::make_shared<gen::GenCollector>(std::move(src)));
    std::string note;
    exposer = monitoring::start_exposer(*metrics_address, o.metrics.is_default(), registry,
                                        monitoring::run_on_control_thread, &note);
    if (!note.empty()) fmt::print(stderr, "spraylab-gen: warning: {}\n", note);
    fmt::print(stderr, "spraylab-gen: metrics on {}\n", exposer->url());
  }

  if (o.hold) {
    std::thread([] {
      char line[256];
      while (std::fgets(line, sizeof(line), stdin) != nullptr) {
        if (std::string_view(line).starts_with("quiesce")) g_quiesce.store(true);
      }
      g_released.store(true);
    }).detach();
  }

  std::unique_ptr<net::IntrGate> gate;
  if (std::any_of(ports.begin(), ports.end(),
                  [](const auto& p) { return p.driver == "net_memif"; })) {
    // Client ports (the switch is the server) redial a switch that was restarted.
    auto redial = std::make_shared<net::MemifRedial>(ports);
    gate = std::make_unique<net::IntrGate>(n_engines, net::IntrGate::kDefaultHoldUs,
                                           [redial] { redial->on_turn(); });
    gate->start();
  }
  LinkLog link_log(ports);
  gen::HostEngine* main_engine = nullptr;
  std::vector<EngineLaunch> launches;
  launches.reserve(n_engines);
  if (lcores > 1) {
    uint32_t e = 0;
    unsigned lcore;
    RTE_LCORE_FOREACH_WORKER(lcore) {
      if (e == n_engines) break;
      launches.push_back({engines.list[e].get(), gate.get(), e});
      ++e;
      rte_eal_remote_launch(worker_main, &launches.back(), lcore);
    }
  } else {
    main_engine = engines.list[0].get();
    if (gate) gate->enter(0);
  }

  const bool tty = isatty(STDERR_FILENO);
  const uint64_t ns_start = engines.list[0]->ns_of(start_tsc);
  gen::RunInfo info;
  info.config = o.config;
  info.start_ns = ns_start;
  uint64_t finish_tsc = 0;
  const uint64_t linger_cycles = static_cast<uint64_t>(
      (o.linger >= 0 ? o.linger
                     : std::max(0.1, 3e-9 * static_cast<double>(plan.retransmit_timeout_ns))) *
      static_cast<double>(hz));
  uint64_t next_control = 0, next_progress = start_tsc, last_bytes = 0,
           last_progress_tsc = start_tsc;
  const uint64_t control_every = hz / 10000;  // 100 µs
  auto write_results = [&](uint64_t end_tsc) {
    info.end_ns = engines.list[0]->ns_of(end_tsc);
    info.completed = engines.finished();
    const auto j = gen::results_json(plan, engines.view(), info);
    if (!o.results.empty()) std::ofstream(o.results) << j.dump(2) << "\n";
    fmt::print("{}\n", nlohmann::json{{"completed", info.completed},
                                      {"stopped_by", std::string(gen::to_string(info.stopped_by))},
                                      {"messages_done", engines.done()},
                                      {"messages", engines.total()},
                                      {"results", o.results}}
                           .dump());
    std::fflush(stdout);
  };
  bool reported = false, quiesced = false;
  while (true) {
    const uint64_t now = rte_rdtsc();
    if (g_quiesce.load(std::memory_order_relaxed) && !quiesced && reported) {
      g_stop.store(true);  // workers return; the main lcore polls no more
      rte_eal_mp_wait_lcore();
      if (main_engine && gate) gate->leave(0);
      quiesced = true;
      fmt::print("quiesced\n");
      std::fflush(stdout);
    }
    if (main_engine && !quiesced) {
      if (gate) gate->checkpoint(0);
      main_engine->poll(now);
    }
    if (now < next_control) continue;
    next_control = now + control_every;
    link_log.poll();
    const double elapsed =
        now > start_tsc ? static_cast<double>(now - start_tsc) / static_cast<double>(hz) : 0;
    if (o.progress && now >= next_progress) {
      const uint64_t b = engines.tx_bytes();
      const double dt = static_cast<double>(now - last_progress_tsc) / static_cast<double>(hz);
      const double gbps = dt > 0 ? static_cast<double>(b - last_bytes) * 8 / dt / 1e9 : 0;
      fmt::print(stderr, "{}messages {}/{}  sending {:.2f} Gb/s  elapsed {:.1f} s{}",
                 tty ? "\r" : "", engines.done(), engines.total(), gbps, elapsed,
                 tty ? "   " : "\n");
      last_bytes = b;
      last_progress_tsc = now;
      next_progress = now + (tty ? hz / 5 : hz);
    }
    if (!reported) {
      if (engines.finished()) {
        info.stopped_by = gen::StopReason::kCompleted;
      } else if (g_signal.load()) {
        info.stopped_by = gen::StopReason::kSignal;
      } else if (o.duration > 0 && elapsed >= o.duration) {
        info.stopped_by = gen::StopReason::kDuration;
      } else if (o.timeout > 0 && elapsed >= o.timeout) {
        info.stopped_by = gen::StopReason::kTimeout;
      } else {
        continue;
      }
      finish_tsc = now;
      reported = true;
      // --duration with --hold: no more data, but ACKs and receiving go on until released, so
      // what the run put in flight drains and is counted.
      const bool drain = info.stopped_by == gen::StopReason::kDuration && o.hold;
      if (drain) {
        for (const auto& e : engines.list) e->stop_data();
      }
      if (!((info.stopped_by == gen::StopReason::kCompleted || drain) &&
            (o.hold || linger_cycles > 0)))
        break;
      // Finished: results now; keep answering peers while holding or lingering.
      if (o.progress && tty) fmt::print(stderr, "\n");
      info.end_ns = 0;
    }
    if (g_signal.load()) break;
    if (o.hold ? g_released.load() : now - finish_tsc >= linger_cycles) break;
    if (info.end_ns == 0) {
      // Write once, right after finishing (the harness reads the file while we hold).
      info.end_ns = 1;
      write_results(finish_tsc);
    }
  }
  g_stop.store(true);
  rte_eal_mp_wait_lcore();
  if (gate) {
    if (main_engine && !quiesced) gate->leave(0);
    gate->stop();  // before the ports close: the interrupt thread runs freely again
  }
  if (o.progress && tty) fmt::print(stderr, "\n");
  if (info.end_ns == 0 || info.stopped_by != gen::StopReason::kCompleted) write_results(finish_tsc);
  nlohmann::ordered_json stats;
  stats["counters"] = gen::counters_json(engines.view());
  uint64_t busy = 0, tx_pending = 0;
  for (const auto& e : engines.list) {
    busy += e->busy_cycles();
    tx_pending += e->tx_pending();
  }
  stats["busy_cycles"] = busy;
  stats["tsc_hz"] = hz;
  stats["seconds"] =
      static_cast<double>(finish_tsc - std::min(finish_tsc, start_tsc)) / static_cast<double>(hz);
  stats["tx_pending"] = tx_pending;  // counted as sent, never taken by the device
  fmt::print(stderr, "spraylab-gen: {} ({}/{} messages)\n", gen::to_string(info.stopped_by),
             engines.done(), engines.total());
  const bool ok = info.stopped_by == gen::StopReason::kCompleted ||
                  info.stopped_by == gen::StopReason::kDuration;
  exposer.reset();       // no scrape may read the engines once they go
  engines.list.clear();  // frees queued mbufs before the ports and EAL go
  stats["mbuf_pool"] = {{"size", pool->size},
                        {"in_use_start", mbufs_in_use_start},
                        {"in_use_end", rte_mempool_in_use_count(pool)}};
  if (!o.stats_json.empty()) std::ofstream(o.stats_json) << stats.dump(2) << "\n";
  net::stop_ports(ports);
  rte_eal_cleanup();
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  return spraylab::conf::guarded_main("spraylab-gen", [&] { return run(argc, argv); });
}
