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
#include "trafficgen/gen_cli.h"
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
      throw gen::UsageError(fmt::format("--start-at is {:.1f} s away (at most 60)", wait));
    }
    if (wait > 0) start_tsc = rte_rdtsc() + static_cast<uint64_t>(wait * static_cast<double>(hz));
  }
  return start_tsc;
}

// One engine per lcore (a worker; the main lcore when EAL gave no worker), each owning whole
// ports (a port's queue is polled by one lcore): ports in order of first use, dealt round robin.
Engines make_engines(const gen::RunPlan& plan, rte_mempool* pool, uint64_t start_tsc,
                     const gen::BurstIo& tx) {
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
gen::GenSource gen_source(const gen::RunPlan& plan, const Engines& engines,
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
  for (const gen::CctBound& b : gen::collective_bounds(plan, engines.view())) {
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

// ---- The engines' lcores ----------------------------------------------------------------------

// An engine's lcore. With memif ports it takes turns with DPDK's interrupt thread, where memif
// links come and go (net/intr_gate.h): a switch killed mid-burst cannot crash it.
struct EngineLaunch {
  gen::HostEngine* engine;
  net::IntrGate* gate;
  uint32_t poller;
  uint64_t idle_sleep_ns;  // --idle-sleep (0: busy polling)
  int rt_priority;         // --rt-priority (0: the fair class)
};

// TSC cycles as ns for IdleSleep (UINT64_MAX, "never", stays so).
uint64_t tsc_ns(uint64_t tsc, double ns_per_cycle) {
  return tsc == UINT64_MAX ? UINT64_MAX
                           : static_cast<uint64_t>(static_cast<double>(tsc) * ns_per_cycle);
}

// One engine's turn and, when it did nothing, --idle-sleep's nap until its next pacer slot or
// timer at the latest.
void poll_engine(gen::HostEngine& engine, net::IdleSleep& idle, net::IntrGate* gate,
                 uint32_t poller, double ns_per_cycle) {
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
  while (!g_stop.load(std::memory_order_relaxed)) {
    if (l->gate) l->gate->checkpoint(l->poller);
    poll_engine(*l->engine, idle, l->gate, l->poller, ns_per_cycle);
  }
  if (l->gate) l->gate->leave(l->poller);
  if (l->rt_priority) net::make_thread_fair();
  return 0;
}

// The engines running: one per worker lcore, or the only one polled by the main lcore's loop
// (poll_main). halt() stops every engine's polling and keeps the ports open; finish() also lets
// the interrupt thread run freely again, before the ports close.
class EngineLcores {
 public:
  EngineLcores(const Engines& engines, const std::vector<unsigned>& lcores,
               const std::vector<net::PortState>& ports, uint64_t idle_sleep_ns, int rt_priority)
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
        launches_.push_back({engines.list[e].get(), gate_.get(), e, idle_sleep_ns, rt_priority});
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
  void poll_main(uint64_t now) {
    if (main_engine_ == nullptr || halted_) {
      // Nothing to poll here: with --idle-sleep the main lcore naps between control turns.
      idle_.idle(tsc_ns(now, ns_per_cycle_), UINT64_MAX);
      return;
    }
    if (gate_) gate_->checkpoint(0);
    poll_engine(*main_engine_, idle_, gate_.get(), 0, ns_per_cycle_);
  }
  bool halted() const { return halted_; }
  void halt() {
    g_stop.store(true);  // workers return; the main lcore polls no more
    rte_eal_mp_wait_lcore();
    if (halted_) return;
    if (main_engine_ && gate_) gate_->leave(0);
    halted_ = true;
  }
  void finish() {
    halt();
    if (gate_) gate_->stop();  // before the ports close: the interrupt thread runs freely again
    if (main_rt_) net::make_thread_fair();  // results and clean-up run with everything else
  }

 private:
  net::IdleSleep idle_;
  double ns_per_cycle_;
  std::unique_ptr<net::IntrGate> gate_;
  std::vector<EngineLaunch> launches_;
  gen::HostEngine* main_engine_ = nullptr;
  bool halted_ = false;
  bool main_rt_ = false;
};

// Every port's device counters (rte_eth_stats) when the results are written: what reached the
// device and what it lost before the engines saw it. `imissed` is, for an af_xdp port, the AF_XDP
// socket's drops (no fill-ring buffer: a poller away too long), `rx_nombuf` an mbuf pool run dry;
// a frame lost there is counted nowhere else. Frames still on their way when a run completes (a
// late ACK) arrive after this, as they do after the engines' own counters.
nlohmann::ordered_json port_stats_json() {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  uint16_t port;
  RTE_ETH_FOREACH_DEV(port) {
    rte_eth_stats st{};
    if (rte_eth_stats_get(port, &st) != 0) continue;
    char name[RTE_ETH_NAME_MAX_LEN] = {};
    rte_eth_dev_get_name_by_port(port, name);
    out.push_back({{"port", port},
                   {"name", name},
                   {"ipackets", st.ipackets},
                   {"imissed", st.imissed},
                   {"ierrors", st.ierrors},
                   {"rx_nombuf", st.rx_nombuf},
                   {"opackets", st.opackets},
                   {"oerrors", st.oerrors}});
  }
  return out;
}

// ---- The main lcore's loop ----------------------------------------------------------------------

// Each port's link as the generator sees it: the PMD's link status and, for an af_xdp / af_packet
// port, its kernel interface's carrier (those PMDs report their link up whatever the interface
// does: net/carrier_watch.h), read on a control thread of its own, never on an engine's lcore.
class PortLinks {
 public:
  PortLinks(const std::vector<net::PortState>& ports, std::chrono::microseconds carrier_period,
            std::chrono::microseconds carrier_max_period)
      : ports_(ports), carrier_index_(RTE_MAX_ETHPORTS, -1) {
    std::vector<std::string> ifaces;
    for (const auto& p : ports_) {
      if (p.iface.empty()) continue;
      carrier_index_[p.port_id] = static_cast<int>(ifaces.size());
      ifaces.push_back(p.iface);
    }
    if (!ifaces.empty()) {
      carrier_ = std::make_unique<net::CarrierWatch>(std::move(ifaces), carrier_period,
                                                     carrier_max_period);
    }
  }
  const std::vector<net::PortState>& ports() const { return ports_; }
  bool watches_carrier() const { return carrier_ != nullptr; }
  // The carrier of `port_id`'s interface at the watch's last read; true for a port without one.
  // An inline relaxed load: cheap enough for an engine's tx burst.
  bool carrier(uint16_t port_id) const {
    const int i = carrier_index_[port_id];
    return i < 0 || carrier_->up(static_cast<size_t>(i));
  }
  bool up(uint16_t port_id) const { return net::link_up(port_id) && carrier(port_id); }

 private:
  const std::vector<net::PortState>& ports_;
  std::vector<int> carrier_index_;  // by port id; -1: the PMD's link status is the whole truth
  std::unique_ptr<net::CarrierWatch> carrier_;
};

// The engines' transmit for ports with a carrier watch (empty: rte_eth_tx_burst as it is). While
// an af_xdp / af_packet port's carrier is down the device takes nothing: its frames wait in the
// engine's tx slots, as they do on a memif or vhost-user port whose peer is gone, instead of being
// handed to a kernel that would drop them. Nothing is lost: a run that ends so counts them as
// `tx_pending` (--stats-json), and what the outage lost on the way is sent again.
gen::BurstIo carrier_gated_tx(const PortLinks& links) {
  if (!links.watches_carrier()) return {};
  return [&links](uint16_t port, rte_mbuf** pkts, uint16_t n) -> uint16_t {
    return links.carrier(port) ? rte_eth_tx_burst(port, 0, pkts, n) : 0;
  };
}

// Logs every change of a port's link ("spraylab-gen: port 0 (net_memif0): link down"). While a
// link is down its frames wait in the engine's tx slots (the device takes none, or for af_xdp /
// af_packet the engine offers none: carrier_gated_tx) and messages stay outstanding; when it is
// back they go out, and what the outage lost is sent again by the retransmission timeout.
class LinkLog {
 public:
  explicit LinkLog(const PortLinks& links) : links_(links) {
    for (const auto& p : links_.ports()) up_.push_back(links_.up(p.port_id));
  }
  void poll() {
    const auto& ports = links_.ports();
    for (size_t i = 0; i < ports.size(); ++i) {
      const bool up = links_.up(ports[i].port_id);
      if (up == up_[i]) continue;
      up_[i] = up;
      fmt::print(stderr, "spraylab-gen: port {} ({}): link {}\n", ports[i].port_id, ports[i].name,
                 up ? "up" : "down");
    }
  }

 private:
  const PortLinks& links_;
  std::vector<bool> up_;
};

// --progress: messages done/total, send rate, elapsed; rewritten in place five times a second on
// a terminal, else one line a second.
class ProgressLine {
 public:
  ProgressLine(bool on, uint64_t start_tsc, uint64_t hz)
      : on_(on), tty_(isatty(STDERR_FILENO)), hz_(hz), next_(start_tsc), last_tsc_(start_tsc) {}
  void update(uint64_t now, double elapsed, const Engines& engines) {
    if (!on_ || now < next_) return;
    const uint64_t b = engines.tx_bytes();
    const double dt = static_cast<double>(now - last_tsc_) / static_cast<double>(hz_);
    const double gbps = dt > 0 ? static_cast<double>(b - last_bytes_) * 8 / dt / 1e9 : 0;
    fmt::print(stderr, "{}messages {}/{}  sending {:.2f} Gb/s  elapsed {:.1f} s{}",
               tty_ ? "\r" : "", engines.done(), engines.total(), gbps, elapsed,
               tty_ ? "   " : "\n");
    last_bytes_ = b;
    last_tsc_ = now;
    next_ = now + (tty_ ? hz_ / 5 : hz_);
  }
  // Ends the line being rewritten on a terminal.
  void end_line() const {
    if (on_ && tty_) fmt::print(stderr, "\n");
  }

 private:
  bool on_, tty_;
  uint64_t hz_, next_, last_tsc_, last_bytes_ = 0;
};

// The main lcore: polls its engine if it has one and, every 100 µs, watches links, prints
// progress and looks for a stop reason. A run that finished with --hold or --linger writes its
// results at once and goes on answering peers until released, the linger is over or a signal
// comes; --hold's "quiesce" stops all polling meanwhile.
class RunLoop {
 public:
  RunLoop(const gen::GenOptions& cli, const gen::RunPlan& plan, const Engines& engines,
          EngineLcores& lcores, LinkLog& link_log, uint64_t start_tsc)
      : cli_(cli),
        plan_(plan),
        engines_(engines),
        lcores_(lcores),
        link_log_(link_log),
        hz_(rte_get_tsc_hz()),
        start_tsc_(start_tsc),
        control_every_(hz_ / 10000),  // 100 µs
        linger_cycles_(linger_cycles(cli, plan, hz_)),
        progress_(cli.progress, start_tsc, hz_) {
    info_.config = cli.config;
    info_.start_ns = engines.list[0]->ns_of(start_tsc);
  }

  void run() {
    uint64_t next_control = 0;
    while (true) {
      const uint64_t now = rte_rdtsc();
      if (g_quiesce.load(std::memory_order_relaxed) && !lcores_.halted() && reported_) quiesce();
      lcores_.poll_main(now);
      if (now < next_control) continue;
      next_control = now + control_every_;
      if (!control(now)) return;
    }
  }

  // After the engines stopped: the results, unless written at the finish and still true.
  void finish() {
    progress_.end_line();
    if (!results_written_ || info_.stopped_by != gen::StopReason::kCompleted) write_results();
  }

  gen::StopReason stopped_by() const { return info_.stopped_by; }
  uint64_t finish_tsc() const { return finish_tsc_; }

 private:
  static uint64_t linger_cycles(const gen::GenOptions& cli, const gen::RunPlan& plan, uint64_t hz) {
    const double s = cli.linger >= 0
                         ? cli.linger
                         : std::max(0.1, 3e-9 * static_cast<double>(plan.retransmit_timeout_ns));
    return static_cast<uint64_t>(s * static_cast<double>(hz));
  }

  void quiesce() {
    lcores_.halt();
    fmt::print("quiesced\n");
    std::fflush(stdout);
  }

  // One control turn; false when the run is over.
  bool control(uint64_t now) {
    link_log_.poll();
    const double elapsed =
        now > start_tsc_ ? static_cast<double>(now - start_tsc_) / static_cast<double>(hz_) : 0;
    progress_.update(now, elapsed, engines_);
    if (!reported_) {
      const std::optional<gen::StopReason> reason = stop_reason(elapsed);
      if (!reason) return true;
      if (!stop(now, *reason)) return false;
    }
    if (g_signal.load()) return false;
    if (cli_.hold ? g_released.load() : now - finish_tsc_ >= linger_cycles_) return false;
    // Write once, right after finishing (the harness reads the file while we hold).
    if (!results_written_) write_results();
    return true;
  }

  std::optional<gen::StopReason> stop_reason(double elapsed) const {
    if (engines_.finished()) return gen::StopReason::kCompleted;
    if (g_signal.load()) return gen::StopReason::kSignal;
    if (cli_.duration > 0 && elapsed >= cli_.duration) return gen::StopReason::kDuration;
    if (cli_.timeout > 0 && elapsed >= cli_.timeout) return gen::StopReason::kTimeout;
    return std::nullopt;
  }

  // The run stopped for `reason`: true if it goes on answering peers (--hold, --linger).
  bool stop(uint64_t now, gen::StopReason reason) {
    info_.stopped_by = reason;
    finish_tsc_ = now;
    reported_ = true;
    // --duration with --hold: no more data, but ACKs and receiving go on until released, so
    // what the run put in flight drains and is counted.
    const bool drain = reason == gen::StopReason::kDuration && cli_.hold;
    if (drain) {
      for (const auto& e : engines_.list) e->stop_data();
    }
    if (!((reason == gen::StopReason::kCompleted || drain) && (cli_.hold || linger_cycles_ > 0)))
      return false;
    // Finished: results now; keep answering peers while holding or lingering.
    progress_.end_line();
    return true;
  }

  // --results' file, and one JSON line on standard output.
  void write_results() {
    results_written_ = true;
    info_.end_ns = engines_.list[0]->ns_of(finish_tsc_);
    info_.completed = engines_.finished();
    auto j = gen::results_json(plan_, engines_.view(), info_);
    j["ports"] = port_stats_json();
    if (!cli_.results.empty()) std::ofstream(cli_.results) << j.dump(2) << "\n";
    fmt::print("{}\n", nlohmann::json{{"completed", info_.completed},
                                      {"stopped_by", std::string(gen::to_string(info_.stopped_by))},
                                      {"messages_done", engines_.done()},
                                      {"messages", engines_.total()},
                                      {"results", cli_.results}}
                           .dump());
    std::fflush(stdout);
  }

  const gen::GenOptions& cli_;
  const gen::RunPlan& plan_;
  const Engines& engines_;
  EngineLcores& lcores_;
  LinkLog& link_log_;
  const uint64_t hz_, start_tsc_, control_every_, linger_cycles_;
  ProgressLine progress_;
  gen::RunInfo info_;
  uint64_t finish_tsc_ = 0;
  bool reported_ = false, results_written_ = false;
};

// ---- Results and stats --------------------------------------------------------------------------

// --stats-json: every counter, the engines' busy cycles against the run's, and frames never
// taken by a device (the mbuf pool's levels are added once the engines are gone).
nlohmann::ordered_json engine_stats(const Engines& engines, uint64_t start_tsc,
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
  if (!path.empty()) std::ofstream(path) << stats.dump(2) << "\n";
}

// ---- run ----------------------------------------------------------------------------------------

int run(int argc, char** argv) {
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
  const PortLinks links(ports.list, net::carrier_period(idle_sleep_ns),
                        net::carrier_max_period(idle_sleep_ns));
  Engines engines = make_engines(plan, ports.pool, start_tsc, carrier_gated_tx(links));
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

  LinkLog link_log(links);
  EngineLcores running(engines, lcores, ports.list, idle_sleep_ns, cli.rt_priority);
  RunLoop loop(cli, plan, engines, running, link_log, start_tsc);
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
