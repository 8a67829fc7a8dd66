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
#include <stdexcept>
#include <string_view>
#include <thread>
#include <vector>

#include "conf/cli_checks.h"
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
#include "switch/control_step.h"
#include "switch/dataplane/control_tx.h"
#include "switch/dataplane/switch_tables.h"
#include "switch/dataplane/worker.h"
#include "switch/switch_metrics.h"
#include "switch/switch_options.h"
#include "topo/build.h"

namespace {

std::atomic<bool> g_stop{false};
void on_signal(int) { g_stop.store(true); }

using Options = spraylab::dataplane::SwitchOptions;

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
  o.add_to(app);
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
  if (exp.buffer.flow_control == conf::FlowControl::kCredit) {
    // The credit frames travel only between the fabric's nodes (fabric/emu): a switch on DPDK
    // ports would wait for credits its peers never send.
    throw std::invalid_argument(
        "buffer.flow_control: credit runs in virtual time and on the in-process fabric only, not "
        "on spraylab-switch's DPDK ports (docs/switch.md, \"Credit-based links\")");
  }
  if (exp.buffer.virtual_channels > 1) {
    // Untested on DPDK ports (the test switch-pfc runs one class): one buffer per link here.
    throw std::invalid_argument(fmt::format(
        "buffer.virtual_channels: {} runs in virtual time and on the in-process fabric only; "
        "spraylab-switch on DPDK ports takes 1 (docs/switch.md, \"Deadlock and virtual "
        "channels\")",
        exp.buffer.virtual_channels));
  }
  auto plan = std::make_unique<Plan>(topo::build(exp.topology, exp.links));
  plan->payload_bytes = exp.workload.payload_bytes;
  const topo::AddressPlan addresses(plan->routing);
  plan->tables = dataplane::build_switch_tables(exp, plan->routing, addresses, o.switch_name);
  {
    // The loader's smallest whole data frame (conf/buffer_defaults.cpp, check_holds_a_frame).
    const conf::WorkloadSpec& w = exp.workload;
    const uint64_t data = w.message_bytes > 0
                              ? std::min<uint64_t>(w.payload_bytes, w.message_bytes)
                              : w.payload_bytes;
    dataplane::apply_trim_threshold(o.trim_threshold, plan->tables,
                                    data + conf::BufferSpec::kFrameHeaderBytes);
  }
  for (const std::string& r : o.routes) {
    dataplane::add_static_route(plan->tables, dataplane::parse_static_route(r));
  }
  return plan;
}

// --deep-sleep in ns (0: none, the --idle-sleep cap throughout).
uint64_t deep_sleep_ns(const Options& o, uint64_t idle_sleep) {
  if (o.deep_sleep.empty()) return 0;
  if (idle_sleep == 0) throw std::invalid_argument("--deep-sleep needs --idle-sleep");
  return spraylab::conf::sleep_cap_ns(o.deep_sleep).value_or(0);
}

// --workers, or every lcore but the main one. As many workers as lcores: the main lcore forwards
// too (main_forwards()).
uint32_t worker_count(const Options& o, uint32_t lcores) {
  const uint32_t workers = o.workers ? o.workers : std::max(1u, lcores - 1);
  if (workers > lcores) {
    throw std::invalid_argument(fmt::format(
        "--workers {} needs {} lcores (the main one forwards too when it has no other to spare); "
        "EAL has {} in all (-l)",
        workers, workers, lcores));
  }
  return workers;
}

// Whether the main lcore is worker 0, calling the control step between its turns: when EAL gave
// no lcore besides the workers' (one lcore, or --workers N with N lcores). That is l3fwd's
// layout, every lcore forwarding; with the main lcore apart, its 100 us control step wakes on a
// CPU a worker shares when there are no more CPUs than workers, preempting that worker 10,000
// times a second (docs/switch.md, "Multi-core").
bool main_forwards(uint32_t workers) { return workers == rte_lcore_count(); }

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

// The lcores the workers run on, in worker order: the main one first when it forwards.
std::vector<unsigned> worker_lcores(uint32_t workers) {
  std::vector<unsigned> lcores;
  if (main_forwards(workers)) lcores.push_back(rte_get_main_lcore());
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

// Runs the workers until g_stop: on the worker lcores with the control step on the main one, or,
// when the main lcore forwards too (main_forwards), worker 0 on it calling the control step
// between its turns and the others on the worker lcores. Each worker's thread is in SCHED_RR at
// `rt_priority` (if not 0) while it forwards.
void forward(spraylab::dataplane::SwitchRuntime& rt,
             const std::vector<spraylab::dataplane::WorkerPlan>& plans,
             spraylab::control::ControlStep& control, int rt_priority) {
  using namespace spraylab;
  const bool on_main = main_forwards(static_cast<uint32_t>(plans.size()));
  struct Launch {
    dataplane::SwitchRuntime* rt;
    const dataplane::WorkerPlan* plan;
    int rt_priority;
  };
  std::vector<Launch> launches;
  launches.reserve(plans.size());
  const size_t first = on_main ? 1 : 0;  // the plans the worker lcores run
  unsigned lcore;
  RTE_LCORE_FOREACH_WORKER(lcore) {
    if (first + launches.size() == plans.size()) break;
    launches.push_back({&rt, &plans[first + launches.size()], rt_priority});
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
  if (on_main) {
    net::apply_rt_priority("spraylab-switch", rt_priority);
    dataplane::run_worker(rt, plans[0], g_stop, [&] { control(); });
    if (rt_priority) net::make_thread_fair();  // the clean-up runs with everything else
  } else {
    while (!g_stop.load()) {
      control();
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
  }
  rte_eal_mp_wait_lcore();
}

// The pacing options, checked together: the workers EAL's lcores allow and the sleeps in ns.
struct Pacing {
  uint32_t workers = 1;
  uint64_t idle_sleep_ns = 0;  // 0: busy polling
  uint64_t deep_sleep_ns = 0;  // 0: the idle_sleep cap throughout
};

Pacing pacing_of(const Options& o) {
  Pacing p;
  p.workers = worker_count(o, rte_lcore_count());
  p.idle_sleep_ns = spraylab::conf::sleep_cap_ns(o.idle_sleep).value_or(0);
  p.deep_sleep_ns = deep_sleep_ns(o, p.idle_sleep_ns);
  if (o.rt_priority > 0 && p.idle_sleep_ns == 0) {
    throw std::invalid_argument(
        "--rt-priority needs --idle-sleep: a busy-polling real-time thread would take its CPU "
        "from everything else");
  }
  return p;
}

// The ports' set-up: --mbufs, and a whole frame of the workload in one mbuf: the parser reads
// headers from the first segment only, and memif receives a frame longer than the data room as a
// chain (dropped as `truncated`). 128 B covers the testbed's headers (82 B) and a VLAN tag. Not
// with af_xdp: its umem frames are the mbufs, at most a page (and its MTU is under 3.5 KB anyway).
spraylab::net::PortSetup port_setup(const Options& o, const Plan& plan) {
  spraylab::net::PortSetup setup;
  setup.mbufs = o.mbufs;
  if (!spraylab::net::any_af_xdp(static_cast<uint16_t>(plan.tables.ports.size()))) {
    setup.data_room = static_cast<uint16_t>(std::max<uint32_t>(
        setup.data_room, RTE_PKTMBUF_HEADROOM + (plan.payload_bytes + 128 + 63) / 64 * 64));
  }
  return setup;
}

std::unique_ptr<spraylab::dataplane::SwitchRuntime> make_runtime(
    const Options& o, const Plan& plan, const spraylab::net::PortSetup& setup, uint32_t workers) {
  using namespace spraylab;
  dataplane::RuntimeOptions ro;
  ro.workers = workers;
  ro.rx_queues = setup.rx_queues;
  ro.tx_queues = o.tx_queues;
  ro.queue_packets = o.queue_packets;
  ro.trim_queue_packets = o.trim_queue_packets;
  ro.shaping = !o.no_shaping;
  if (!o.shaper_slack.empty()) {
    const std::optional<uint64_t> slack = conf::parse_size_bytes(o.shaper_slack);
    if (!slack || *slack == 0) {
      throw std::invalid_argument(
          fmt::format("--shaper-slack {}: expected a size such as 9KB", o.shaper_slack));
    }
    ro.shaper_slack_bytes = *slack;
  }
  ro.socket = static_cast<int>(rte_socket_id());
  ro.routing = &plan.routing;
  return std::make_unique<dataplane::SwitchRuntime>(plan.tables, ro);
}

// One plan per worker: its queues, the gate, its sleeps and the --no-shaping send options.
std::vector<spraylab::dataplane::WorkerPlan> worker_plans(
    const Options& o, const Pacing& pacing, const std::vector<spraylab::net::PortState>& ports,
    spraylab::net::IntrGate* gate, bool per_worker_tx) {
  std::vector<uint16_t> rxq;
  for (const auto& p : ports) rxq.push_back(p.rx_queues);
  auto plans = spraylab::dataplane::plan_workers(
      pacing.workers, static_cast<uint16_t>(ports.size()), rxq, per_worker_tx);
  for (auto& p : plans) {
    p.gate = gate;
    p.idle_sleep_max_ns = pacing.idle_sleep_ns;
    p.tx_coalesce_turns = o.no_shaping ? o.tx_coalesce : 0;
    p.direct_tx = o.no_shaping && !o.no_direct_tx;
    p.rx_bursts = !o.no_shaping ? 1 : o.rx_bursts ? o.rx_bursts : default_rx_bursts(ports.size());
    p.idle_deep_ns = pacing.deep_sleep_ns;
  }
  return plans;
}

// buffer.flow_control: pfc: the reserve the pause frames come from (switch/dataplane/control_tx.h
// says why not the data's pool); nullptr without PFC.
rte_mempool* control_pool(const spraylab::dataplane::SwitchRuntime& rt) {
  using namespace spraylab;
  if (rt.pfc() == nullptr) return nullptr;
  rte_mempool* pool = rte_pktmbuf_pool_create(
      "pfc_frames", dataplane::control_pool_mbufs(rt.ports()), 0, 0,
      RTE_PKTMBUF_HEADROOM + dataplane::kControlFrameBytes, static_cast<int>(rte_socket_id()));
  if (pool == nullptr) {
    throw std::runtime_error(fmt::format("switch {}: no pool for the PFC frames: {}",
                                         rt.tables().name, rte_strerror(rte_errno)));
  }
  return pool;
}

// The switch's ports and runtime up, forwarding until a stop, then --stats-json and the last line.
void serve(const Options& o, const Plan& plan,
           const std::optional<spraylab::monitoring::Address>& metrics_address) {
  using namespace spraylab;
  const Pacing pacing = pacing_of(o);
  net::PortSetup setup = port_setup(o, plan);
  rte_mempool* pool = nullptr;
  std::vector<net::PortState> ports =
      start_switch_ports(o, plan.tables, pacing.workers, &setup, &pool);
  auto rt = make_runtime(o, plan, setup, pacing.workers);
  control::SwitchControl ctl(*rt, ports, pool, net::carrier_period(pacing.idle_sleep_ns),
                             net::carrier_max_period(pacing.idle_sleep_ns));
  ctl.register_telemetry();
  ctl.poll_links();
  // memif links come and go on DPDK's interrupt thread: the workers take turns with it, so a peer
  // that dies mid-burst cannot crash them (intr_gate.h); client ports redial their server.
  const auto gate = make_gate(ports, pacing.workers, net::gate_hold_us(pacing.idle_sleep_ns));
  auto plans = worker_plans(o, pacing, ports, gate.get(), rt->per_worker_tx());
  rte_mempool* const pfc_pool = control_pool(*rt);
  for (auto& p : plans) p.control_pool = pfc_pool;
  Metrics metrics;
  if (metrics_address) metrics = start_metrics(o, *metrics_address, *rt, pacing.workers, pool);

  fmt::print(stderr, "spraylab-switch {}: {} ports, {} workers, {} on {}\n", plan.tables.name,
             ports.size(), pacing.workers, rt->algorithm(),
             !main_forwards(pacing.workers) ? "worker lcores"
             : pacing.workers > 1           ? "the main and worker lcores"
                                            : "the main lcore");
  control::ControlStep control(o, ctl, metrics.collector.get(), g_stop);
  forward(*rt, plans, control, o.rt_priority);
  if (gate) gate->stop();

  auto s = ctl.stats();
  s["forwarding_seconds"] = control.elapsed();
  if (!o.stats_json.empty()) {
    const std::string error = conf::write_output_file(o.stats_json, s.dump(2) + "\n", "--stats-json");
    if (!error.empty()) fmt::print(stderr, "spraylab-switch: {}\n", error);
  }
  fmt::print(stderr, "spraylab-switch {}: stopped after {:.1f}s: rx {} tx {}\n", plan.tables.name,
             control.elapsed(), s["totals"]["rx_packets"].get<uint64_t>(),
             s["totals"]["tx_packets"].get<uint64_t>());
  metrics.exposer.reset();  // no scrape may read the runtime once it goes
  net::stop_ports(ports);
  // The runtime is left to the process's end, not destroyed: rte_free zeroes what it frees, and
  // each of the two route tables (rte_lpm) is a 64 MB array the switch has barely touched, so
  // destroying them faulted in and cleared 128 MB, 0.4-2 s a switch, and a namespaced fabric's
  // down (3 s grace on 2 CPUs) killed every switch with SIGKILL. Nothing of the runtime outlives
  // the process: EAL's cleanup unmaps its memory, mbufs and rings with the rest.
  static_cast<void>(rt.release());
}

int run(int argc, char** argv) {
  if (std::optional<std::vector<char*>> help =
          spraylab::net::own_help_args(argc, argv, "spraylab-switch")) {
    Options o;
    return parse_options(static_cast<int>(help->size()), help->data(), o).value_or(0);
  }
  if (!spraylab::net::start_eal(argc, argv, "spraylab-switch", on_signal)) return 2;
  spraylab::net::install_idle_wake_signal();  // SIGUSR1: out of deep idle (a run comes)

  Options o;
  if (const std::optional<int> status = parse_options(argc, argv, o)) {
    rte_eal_cleanup();
    return *status;
  }
  const std::optional<spraylab::monitoring::Address> metrics_address = o.metrics.address();
  const std::unique_ptr<Plan> plan = plan_switch(o);
  if (o.dump_tables) {
    fmt::print("{}\n", tables_json(plan->tables).dump(2));
  } else {
    serve(o, *plan, metrics_address);
  }
  rte_eal_cleanup();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return spraylab::conf::guarded_main("spraylab-switch", [&] { return run(argc, argv); });
}
