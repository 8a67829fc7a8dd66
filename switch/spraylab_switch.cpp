// spraylab-switch: one switch of an experiment on DPDK ports.
//   spraylab-switch [EAL args] -- --config FILE --switch NAME [options]
// Topology port i is DPDK port i: give one --vdev (or -a PCI address) per port, in port order.
#include <fmt/format.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <fstream>
#include <iostream>
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
#include "net/eal_main.h"
#include "net/idle_sleep.h"
#include "net/intr_gate.h"
#include "net/memif_redial.h"
#include "net/ports.h"
#include "net/realtime.h"
#include "switch/control.h"
#include "switch/dataplane/switch_tables.h"
#include "switch/dataplane/worker.h"
#include "switch/switch_metrics.h"
#include "topo/build.h"

namespace {

std::atomic<bool> g_stop{false};
void on_signal(int) { g_stop.store(true); }

struct Options {
  std::string config;
  std::string switch_name;
  uint32_t workers = 0;
  uint16_t rx_queues = 0;
  uint16_t tx_queues = 1;
  uint32_t queue_packets = 0;
  std::string shaper_slack;  // --shaper-slack as given; empty: a burst of MTU frames
  bool no_shaping = false;
  uint32_t tx_coalesce = 32;
  bool no_direct_tx = false;
  uint32_t rx_bursts = 0;  // 0: default_rx_bursts()
  double duration = 0;
  double stats_interval = 0;
  std::string stats_json;
  bool dump_tables = false;
  std::vector<std::string> routes;
  std::string idle_sleep;  // --idle-sleep as given; empty: busy polling
  std::string deep_sleep;  // --deep-sleep as given; empty: as --idle-sleep
  int rt_priority = 0;     // --rt-priority: the data path's SCHED_RR priority (0: the fair class)
  uint32_t mbufs = 0;
  spraylab::monitoring::MetricsOptions metrics{spraylab::monitoring::kSwitchPort};
};

nlohmann::ordered_json tables_json(const spraylab::dataplane::SwitchTables& t) {
  using spraylab::topo::ip_to_string;
  nlohmann::ordered_json j;
  j["switch"] = t.name;
  j["level"] = t.level;
  j["algorithm"] = std::string(spraylab::lb::to_string(t.balancer.algorithm));
  j["buffer_bytes"] = t.buffer_bytes;
  for (const auto& p : t.ports) {
    j["ports"].push_back({{"port", p.id},
                          {"peer", p.peer},
                          {"to_host", p.to_host},
                          {"mac", spraylab::topo::mac_to_string(p.mac)},
                          {"peer_mac", spraylab::topo::mac_to_string(p.peer_mac)},
                          {"rate_bps", p.rate_bps},
                          {"delay_ns", p.delay_ns}});
  }
  for (const auto& r : t.routes) {
    j["routes"].push_back(
        {{"prefix", fmt::format("{}/{}", ip_to_string(r.prefix.addr), r.prefix.len)},
         {"ports", t.groups[r.group]},
         {"key", r.dest}});
  }
  return j;
}

// The workers' gate with DPDK's interrupt thread, when a port is memif (nullptr otherwise: the
// other PMDs here need none). Started: it holds the interrupt thread from here on.
std::unique_ptr<spraylab::net::IntrGate> make_gate(
    const std::vector<spraylab::net::PortState>& ports, uint32_t workers, uint64_t hold_us) {
  using namespace spraylab::net;
  bool memif = false;
  for (const auto& p : ports) memif = memif || p.driver == "net_memif";
  if (!memif) return nullptr;
  auto redial = std::make_shared<MemifRedial>(ports);
  std::function<void()> on_turn;
  std::function<bool()> wants_turn;
  if (!redial->empty()) {
    on_turn = [redial] { redial->on_turn(); };
    wants_turn = [redial] { return redial->wants_turn(); };
  }
  auto gate =
      std::make_unique<IntrGate>(workers, hold_us, std::move(on_turn), std::move(wants_turn));
  gate->start();
  return gate;
}

// The command line after EAL's arguments; nullopt when it parsed, else the exit status (--help
// included).
std::optional<int> parse_options(int argc, char** argv, Options& o) {
  CLI::App app{
      "spraylab-switch: one switch of an experiment on DPDK ports.\n"
      "Usage: spraylab-switch [EAL args] -- --config FILE --switch NAME [options]\n"
      "Topology port i is DPDK port i (the order of --vdev / -a arguments).\n"
      "Always pass --no-pci or an -a allow-list to EAL."};
  app.add_option("--config", o.config, "Experiment YAML file")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("--switch", o.switch_name, "Switch name in the topology (e.g. leaf0)")->required();
  app.add_option("--workers", o.workers,
                 "Worker lcores (default: every lcore but the main one, at least 1)");
  app.add_option("--rx-queues", o.rx_queues,
                 "Rx queues per port (default: one per worker where the device has them)");
  app.add_option("--tx-queues", o.tx_queues,
                 "Tx queues per port that egress bursts take in turn (default 1: every link "
                 "stays FIFO; more raise memif throughput but may reorder between bursts)")
      ->check(CLI::Range(1, 64));
  app.add_option("--queue-packets", o.queue_packets,
                 "Egress ring slots per port (default: buffer / 64 B, at most 4096)");
  app.add_flag("--no-shaping", o.no_shaping,
               "Send at the device's rate instead of the configured link rate");
  app.add_option("--tx-coalesce", o.tx_coalesce,
                 "With --no-shaping: while some rx burst comes back full, an egress port holding "
                 "fewer than 16 frames waits up to this many loop turns for more before it is "
                 "sent (default 32; 0: send every turn). Shaped ports send every turn");
  app.add_flag("--no-direct-tx", o.no_direct_tx,
               "With --no-shaping: queue every frame in its egress queue, instead of sending a "
               "burst's frames for a port whose queue is empty straight to the device (for "
               "comparisons)");
  app.add_option("--rx-bursts", o.rx_bursts,
                 "With --no-shaping: bursts a worker reads from an rx queue per turn while they "
                 "come back full, before its frames go out (default: one per egress port, at most "
                 "4, so that each port's share of a turn is about a full burst and its device call "
                 "is paid once for them all; 1: a burst at a time)")
      ->check(CLI::Range(1, 16));
  app.add_option("--shaper-slack", o.shaper_slack,
                 "How far a port may send ahead of its link rate, in wire bytes (e.g. 9KB; "
                 "default: a burst of 32 MTU frames). A switch that sleeps between polls sends "
                 "that much at once on waking");
  app.add_option("--duration", o.duration,
                 "Stop after this many seconds (default: until SIGINT/SIGTERM)");
  app.add_option("--stats-interval", o.stats_interval, "Print totals every this many seconds");
  app.add_option("--stats-json", o.stats_json, "Write every counter as JSON to this file on exit");
  app.add_option("--route", o.routes,
                 "Static route to addresses outside the topology, balanced over ports: "
                 "A.B.C.D/LEN=PORT[,PORT...] (repeatable)");
  app.add_option("--idle-sleep", o.idle_sleep,
                 "Sleep after empty polls, backing off up to this long (e.g. 2ms): for many "
                 "switch processes on few cores (docs/fabric.md, the namespaced fabric); "
                 "default: busy polling");
  app.add_option("--deep-sleep", o.deep_sleep,
                 "After 2 s without a frame, sleep up to this long instead (e.g. 100ms): fewer "
                 "wake-ups of an idle switch; the first frame after such a spell waits up to "
                 "that long unless SIGUSR1 wakes the switch first (docs/fabric.md); default: as "
                 "--idle-sleep");
  app.add_option("--rt-priority", o.rt_priority,
                 "Run the forwarding lcores in SCHED_RR at this priority (1-49; needs "
                 "--idle-sleep), so that a switch woken for a shaper slot runs before the "
                 "machine's other work (docs/fabric.md); default 0: the fair scheduler")
      ->check(CLI::Range(0, spraylab::net::kMaxRtPriority));
  app.add_option("--mbufs", o.mbufs,
                 "Frames in the switch's mbuf pool (default: enough for every port's rings and "
                 "a full egress queue each)")
      ->check(CLI::Range(1024u, 16u << 20));
  app.add_flag("--dump-tables", o.dump_tables,
               "Print the switch's ports, routes and balancer as JSON and exit");
  o.metrics.add_to(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);  // CLI11's own codes (105, 106, ...): the switch's bad input is 2
    return rc == 0 ? 0 : 2;
  }
  return std::nullopt;
}

// The switch's view of the experiment: its ports, routes (with --route's static ones) and
// balancer. The topology and routing it was built from stay alive beside it: the runtime reads the
// routing, which reads the topology.
struct Plan {
  explicit Plan(spraylab::topo::Topology t) : topology(std::move(t)), routing(topology) {}
  spraylab::topo::Topology topology;
  spraylab::topo::Routing routing;
  spraylab::dataplane::SwitchTables tables;
  uint32_t payload_bytes = 0;  // the workload's data packets (their frames must fit an mbuf)
};

std::unique_ptr<Plan> plan_switch(const Options& o) {
  using namespace spraylab;
  const conf::Experiment exp = conf::load_experiment_file(o.config);
  auto plan = std::make_unique<Plan>(topo::build(exp.topology, exp.links));
  plan->payload_bytes = exp.workload.payload_bytes;
  const topo::AddressPlan addresses(plan->routing);
  plan->tables = dataplane::build_switch_tables(exp, plan->routing, addresses, o.switch_name);
  for (const std::string& r : o.routes) {
    dataplane::add_static_route(plan->tables, dataplane::parse_static_route(r));
  }
  return plan;
}

// --idle-sleep in ns (0: busy polling).
uint64_t idle_sleep_ns(const Options& o) {
  if (o.idle_sleep.empty()) return 0;
  const std::optional<double> ns = spraylab::conf::parse_time_ns(o.idle_sleep);
  if (!ns || *ns < 1000 || *ns > 1e9) {
    throw std::invalid_argument(
        fmt::format("--idle-sleep {}: expected a time from 1us to 1s, e.g. 2ms", o.idle_sleep));
  }
  return static_cast<uint64_t>(*ns);
}

// --deep-sleep in ns (0: none, the --idle-sleep cap throughout).
uint64_t deep_sleep_ns(const Options& o, uint64_t idle_sleep) {
  if (o.deep_sleep.empty()) return 0;
  const std::optional<double> ns = spraylab::conf::parse_time_ns(o.deep_sleep);
  if (!ns || *ns < 1000 || *ns > 1e9) {
    throw std::invalid_argument(
        fmt::format("--deep-sleep {}: expected a time from 1us to 1s, e.g. 100ms", o.deep_sleep));
  }
  if (idle_sleep == 0) throw std::invalid_argument("--deep-sleep needs --idle-sleep");
  return static_cast<uint64_t>(*ns);
}

uint32_t worker_count(const Options& o, uint32_t lcores) {
  const uint32_t workers = o.workers ? o.workers : std::max(1u, lcores - 1);
  if (workers > 1 && workers > lcores - 1) {
    throw std::invalid_argument(
        fmt::format("--workers {} needs {} lcores besides the main one; EAL has {} in all (-l)",
                    workers, workers, lcores));
  }
  return workers;
}

// Starts one DPDK port per topology port, with as many rx queues as workers (memif pairs rings
// per queue: the peer connects only if the queue counts match both ways), and says which is which.
std::vector<spraylab::net::PortState> start_switch_ports(const Options& o,
                                                         const spraylab::dataplane::SwitchTables& t,
                                                         uint32_t workers,
                                                         spraylab::net::PortSetup* setup,
                                                         rte_mempool** pool) {
  using namespace spraylab;
  setup->rx_queues = o.rx_queues ? o.rx_queues : static_cast<uint16_t>(workers);
  setup->tx_queues = std::max(setup->rx_queues, o.tx_queues);
  setup->rx_queues = setup->tx_queues;
  std::vector<net::PortState> ports =
      net::start_ports(static_cast<uint16_t>(t.ports.size()), *setup, pool);
  for (const auto& p : ports) {
    fmt::print(stderr, "port {} = {} ({}, {} rx queues) -> {}\n", p.port_id, p.name, p.driver,
               p.rx_queues, t.ports[p.port_id].peer);
    if (p.tx_queues < o.tx_queues) {
      throw std::invalid_argument(fmt::format("port {} ({}): --tx-queues {} but the device has {}",
                                              p.port_id, p.name, o.tx_queues, p.tx_queues));
    }
    if (p.driver == "net_memif" && p.rx_queues > 1) {
      // memif rings come in pairs per queue: say up front what the peer must match.
      fmt::print(stderr,
                 "  memif: {} rx + {} tx queues here; the peer may have at most that many of each "
                 "(more and it never connects); it should send on all {} and must poll rx queues "
                 "0..{}, the ones the switch sends on\n",
                 p.rx_queues, p.tx_queues, p.rx_queues, o.tx_queues - 1);
    }
  }
  return ports;
}

// --rx-bursts when not given: one burst per egress port, at most 4. Held bursts pay each egress
// port's device call and bookkeeping once for several bursts, and a device call is dearest over
// shared-memory links, where every call publishes its ring index to the other core (vhost-user's
// used ring: a locked add on a line the peer polls). With two ports a burst gives each about 16
// frames; two bursts give each a full device burst, as testpmd io sends: vhost-e2e 5.44 against
// 4.66 Mpps (median of 4 alternating runs, testpmd io 6.24), memif-e2e higher in 3 of 3 runs.
// Four bursts with two ports forwarded less than two (4.75 Mpps), and with 16 ports eight gained
// nothing over four (docs/BENCHMARKS.md, "Held bursts"). Three with two ports is a per-driver
// choice, not a default: over vhost it forwarded more than two in 6 of 7 alternating pairs, over
// memif less in 5 of 7 (medians 7.51 against 8.70 Mpps over 4 pairs).
uint32_t default_rx_bursts(size_t ports) {
  return static_cast<uint32_t>(std::clamp<size_t>(ports, 1, 4));
}

// The lcores the workers run on, in worker order: the main one when it is the only lcore.
std::vector<unsigned> worker_lcores(uint32_t workers) {
  std::vector<unsigned> lcores;
  if (rte_lcore_count() == 1) {
    lcores.push_back(rte_get_main_lcore());
    return lcores;
  }
  unsigned lcore;
  RTE_LCORE_FOREACH_WORKER(lcore) {
    if (lcores.size() < workers) lcores.push_back(lcore);
  }
  return lcores;
}

// Metrics (docs/monitoring.md): scrapes read the workers' counters and the queue depths; the
// control step samples the depth histograms. The server's threads run on EAL's control CPUs, off
// the forwarding lcores where there is a CPU to spare.
struct Metrics {
  std::shared_ptr<spraylab::dataplane::SwitchCollector> collector;
  std::unique_ptr<spraylab::monitoring::Exposer> exposer;
};

Metrics start_metrics(const Options& o, const spraylab::monitoring::Address& address,
                      spraylab::dataplane::SwitchRuntime& rt, uint32_t workers, rte_mempool* pool) {
  using namespace spraylab;
  Metrics m;
  m.collector = std::make_shared<dataplane::SwitchCollector>(dataplane::source_of(
      rt, worker_lcores(workers), static_cast<double>(rte_get_tsc_hz()), pool));
  auto registry = std::make_shared<monitoring::Registry>();
  registry->add(m.collector);
  std::string note;
  m.exposer = monitoring::start_exposer(address, o.metrics.is_default(), registry,
                                        monitoring::run_on_control_thread, &note);
  const std::string& name = rt.tables().name;
  if (!note.empty()) fmt::print(stderr, "spraylab-switch {}: warning: {}\n", name, note);
  fmt::print(stderr, "spraylab-switch {}: metrics on {}\n", name, m.exposer->url());
  return m;
}

// What the main lcore does between (or, alone, inside) the workers' turns: link state, depth
// samples, dead-link reports, the --duration stop and the --stats-interval line.
class ControlStep {
 public:
  ControlStep(const Options& o, spraylab::control::SwitchControl& ctl,
              spraylab::dataplane::SwitchCollector* metrics)
      : o_(o), ctl_(ctl), metrics_(metrics), next_print_(o.stats_interval) {}

  void operator()() {
    ctl_.poll_links();
    if (metrics_ != nullptr && elapsed() >= next_depth_sample_) {
      metrics_->sample_depths();
      next_depth_sample_ = elapsed() + spraylab::dataplane::SwitchCollector::kSamplePeriodNs * 1e-9;
    }
    if (elapsed() >= next_link_report_) {
      ctl_.report_dead_links();
      next_link_report_ += 1;
    }
    if (o_.duration > 0 && elapsed() >= o_.duration) g_stop.store(true);
    if (o_.stats_interval > 0 && elapsed() >= next_print_) {
      auto s = ctl_.stats();
      fmt::print(stderr, "[{:.1f}s] rx {} tx {} drops {}\n", elapsed(),
                 s["totals"]["rx_packets"].get<uint64_t>(),
                 s["totals"]["tx_packets"].get<uint64_t>(), s["totals"]["drops"].dump());
      next_print_ += o_.stats_interval;
    }
  }

  double elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  const Options& o_;
  spraylab::control::SwitchControl& ctl_;
  spraylab::dataplane::SwitchCollector* metrics_;
  const std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  double next_print_;
  double next_link_report_ = 5;  // links get a few seconds to come up before any warning
  double next_depth_sample_ = 0;
};

// Runs the workers until g_stop: on the worker lcores with the control step on the main one, or,
// with a single lcore, one worker that calls the control step between its turns. Each worker's
// thread is in SCHED_RR at `rt_priority` (if not 0) while it forwards.
void forward(spraylab::dataplane::SwitchRuntime& rt,
             const std::vector<spraylab::dataplane::WorkerPlan>& plans, ControlStep& control,
             int rt_priority) {
  using namespace spraylab;
  if (rte_lcore_count() == 1) {
    net::apply_rt_priority("spraylab-switch", rt_priority);
    dataplane::run_worker(rt, plans[0], g_stop, [&] { control(); });
    if (rt_priority) net::make_thread_fair();  // the clean-up runs with everything else
    return;
  }
  struct Launch {
    dataplane::SwitchRuntime* rt;
    const dataplane::WorkerPlan* plan;
    int rt_priority;
  };
  std::vector<Launch> launches;
  launches.reserve(plans.size());
  unsigned lcore;
  RTE_LCORE_FOREACH_WORKER(lcore) {
    if (launches.size() == plans.size()) break;
    launches.push_back({&rt, &plans[launches.size()], rt_priority});
    rte_eal_remote_launch(
        [](void* arg) {
          auto* l = static_cast<Launch*>(arg);
          net::apply_rt_priority("spraylab-switch", l->rt_priority);
          dataplane::run_worker(*l->rt, *l->plan, g_stop);
          if (l->rt_priority) net::make_thread_fair();
          return 0;
        },
        &launches.back(), lcore);
  }
  while (!g_stop.load()) {
    control();
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  rte_eal_mp_wait_lcore();
}

int run(int argc, char** argv) {
  if (!spraylab::net::start_eal(argc, argv, "spraylab-switch", on_signal)) return 2;
  spraylab::net::install_idle_wake_signal();  // SIGUSR1: out of deep idle (a run comes)

  Options o;
  if (const std::optional<int> status = parse_options(argc, argv, o)) {
    rte_eal_cleanup();
    return *status;
  }
  using namespace spraylab;
  const std::optional<monitoring::Address> metrics_address = o.metrics.address();
  const std::unique_ptr<Plan> plan = plan_switch(o);
  const dataplane::SwitchTables& tables = plan->tables;
  if (o.dump_tables) {
    fmt::print("{}\n", tables_json(tables).dump(2));
    rte_eal_cleanup();
    return 0;
  }
  const uint32_t lcores = rte_lcore_count();
  const uint32_t workers = worker_count(o, lcores);
  const uint64_t idle_sleep = idle_sleep_ns(o);
  const uint64_t deep_sleep = deep_sleep_ns(o, idle_sleep);
  if (o.rt_priority > 0 && idle_sleep == 0) {
    throw std::invalid_argument(
        "--rt-priority needs --idle-sleep: a busy-polling real-time thread would take its CPU "
        "from everything else");
  }
  net::PortSetup setup;
  setup.mbufs = o.mbufs;
  // A whole frame of the workload in one mbuf: the parser reads headers from the first segment
  // only, and memif receives a frame longer than the data room as a chain (dropped as
  // `truncated`). 128 B covers the testbed's headers (82 B) and a VLAN tag. Not with af_xdp: its
  // umem frames are the mbufs, at most a page (and its MTU is under 3.5 KB anyway).
  if (!net::any_af_xdp(static_cast<uint16_t>(tables.ports.size()))) {
    setup.data_room = static_cast<uint16_t>(std::max<uint32_t>(
        setup.data_room, RTE_PKTMBUF_HEADROOM + (plan->payload_bytes + 128 + 63) / 64 * 64));
  }
  rte_mempool* pool = nullptr;
  std::vector<net::PortState> ports = start_switch_ports(o, tables, workers, &setup, &pool);

  dataplane::RuntimeOptions ro;
  ro.workers = workers;
  ro.rx_queues = setup.rx_queues;
  ro.tx_queues = o.tx_queues;
  ro.queue_packets = o.queue_packets;
  ro.shaping = !o.no_shaping;
  if (!o.shaper_slack.empty()) {
    const std::optional<uint64_t> slack = spraylab::conf::parse_size_bytes(o.shaper_slack);
    if (!slack || *slack == 0) {
      throw std::invalid_argument(
          fmt::format("--shaper-slack {}: expected a size such as 9KB", o.shaper_slack));
    }
    ro.shaper_slack_bytes = *slack;
  }
  ro.socket = static_cast<int>(rte_socket_id());
  ro.routing = &plan->routing;
  auto rt = std::make_unique<dataplane::SwitchRuntime>(tables, ro);
  control::SwitchControl ctl(*rt, ports, pool, net::carrier_period(idle_sleep),
                             net::carrier_max_period(idle_sleep));
  ctl.register_telemetry();
  ctl.poll_links();
  std::vector<uint16_t> rxq;
  for (const auto& p : ports) rxq.push_back(p.rx_queues);
  auto plans = dataplane::plan_workers(workers, static_cast<uint16_t>(ports.size()), rxq);
  // memif links come and go on DPDK's interrupt thread: the workers take turns with it, so a peer
  // that dies mid-burst cannot crash them (intr_gate.h); client ports redial their server.
  const auto gate = make_gate(ports, workers, net::gate_hold_us(idle_sleep));
  for (auto& p : plans) {
    p.gate = gate.get();
    p.idle_sleep_max_ns = idle_sleep;
    p.tx_coalesce_turns = o.no_shaping ? o.tx_coalesce : 0;
    p.direct_tx = o.no_shaping && !o.no_direct_tx;
    p.rx_bursts = !o.no_shaping ? 1 : o.rx_bursts ? o.rx_bursts : default_rx_bursts(ports.size());
    p.idle_deep_ns = deep_sleep;
  }
  Metrics metrics;
  if (metrics_address) metrics = start_metrics(o, *metrics_address, *rt, workers, pool);

  fmt::print(stderr, "spraylab-switch {}: {} ports, {} workers, {} on {}\n", tables.name,
             ports.size(), workers, rt->algorithm(),
             lcores > 1 ? "worker lcores" : "the main lcore");
  ControlStep control(o, ctl, metrics.collector.get());
  forward(*rt, plans, control, o.rt_priority);
  if (gate) gate->stop();

  auto s = ctl.stats();
  s["forwarding_seconds"] = control.elapsed();
  if (!o.stats_json.empty()) std::ofstream(o.stats_json) << s.dump(2) << "\n";
  fmt::print(stderr, "spraylab-switch {}: stopped after {:.1f}s: rx {} tx {}\n", tables.name,
             control.elapsed(), s["totals"]["rx_packets"].get<uint64_t>(),
             s["totals"]["tx_packets"].get<uint64_t>());
  metrics.exposer.reset();  // no scrape may read the runtime once it goes
  net::stop_ports(ports);
  // The runtime is left to the process's end, not destroyed: rte_free zeroes what it frees, and
  // each of the two route tables (rte_lpm) is a 64 MB array the switch has barely touched, so
  // destroying them faulted in and cleared 128 MB, 0.4-2 s a switch, and a namespaced fabric's
  // down (3 s grace on 2 CPUs) killed every switch with SIGKILL. Nothing of the runtime outlives
  // the process: EAL's cleanup below unmaps its memory, mbufs and rings with the rest.
  static_cast<void>(rt.release());
  rte_eal_cleanup();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return spraylab::conf::guarded_main("spraylab-switch", [&] { return run(argc, argv); });
}
