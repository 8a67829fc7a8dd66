#include "fabric/namespaced/run_namespaced.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <thread>
#include <utility>

#include <yaml-cpp/yaml.h>

#include "conf/loader.h"
#include "fabric/namespaced/generator_merge.h"
#include "fabric/namespaced/launcher.h"
#include "fabric/namespaced/link_events.h"
#include "fabric/namespaced/plan.h"
#include "fabric/run/machine_bound.h"
#include "fabric/run/port_summary.h"
#include "fabric/run/stop_request.h"
#include "net/wire.h"
#include "topo/build.h"
#include "trafficgen/host_plan.h"

namespace spraylab::fabric {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

// The generators start this long after they are released: every one reads the start file first.
constexpr double kStartDelayS = 0.5;
// Queue samples over telemetry: one request per switch each time, so no more often than this
// (a sample period of the experiment's, stretched, is often shorter).
constexpr uint64_t kMinSamplePeriodNs = 50'000'000;
// After SIGTERM (timeout, clock limit) the generators write their results and exit.
constexpr double kStopGraceS = 10;

volatile std::sig_atomic_t g_stop = 0;
void on_stop_signal(int signal) {
  g_stop = 1;
  request_stop(signal);  // so the runner tells an interrupted run from a failed one (runner.cpp)
}

double unix_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// One switch egress port of the fabric, in FabricResult::ports order (switches in topology order,
// ports in port order, as in the other modes), and the process that has it.
struct PortPlace {
  const namespaced::Process* process = nullptr;
  uint16_t port = 0;
  bool to_host = false;
};

// Every switch port as a PortSummary (names, levels, layers) and where to ask for it.
std::vector<PortSummary> port_layout(const topo::Topology& t, const namespaced::FabricState& st,
                                     std::vector<PortPlace>* places, double* host_capacity_bps) {
  std::map<std::string, const namespaced::Process*> by_node;
  for (const namespaced::Process& p : st.processes) by_node[p.node] = &p;
  uint32_t top = 0;
  for (topo::NodeId s : t.switches()) top = std::max<uint32_t>(top, t.node(s).level);
  std::vector<PortSummary> out;
  *host_capacity_bps = 0;
  for (topo::NodeId s : t.switches()) {
    const topo::Node& n = t.node(s);
    for (topo::PortId port = 0; port < t.degree(s); ++port) {
      const topo::PortRef peer = t.peer(s, port);
      const topo::Node& pn = t.node(peer.node);
      const bool to_host = pn.kind == topo::NodeKind::kHost;
      PortSummary ps;
      ps.switch_name = n.name;
      ps.port = static_cast<uint16_t>(port);
      ps.peer = pn.name;
      ps.level = n.level;
      ps.layer = layer_name(n.level, top, to_host, pn.level);
      out.push_back(std::move(ps));
      places->push_back({by_node.at(n.name), static_cast<uint16_t>(port), to_host});
      if (to_host) *host_capacity_bps += t.links()[n.links[port]].rate_bps;
    }
  }
  return out;
}

// A telemetry connection per switch, opened once for the run.
class Sessions {
 public:
  namespaced::TelemetrySession& of(const namespaced::Process* p) {
    auto& s = sessions_[p];
    if (!s) s = std::make_unique<namespaced::TelemetrySession>(p->prefix);
    return *s;
  }

 private:
  std::map<const namespaced::Process*, std::unique_ptr<namespaced::TelemetrySession>> sessions_;
};

// A command's reply as an object (empty if the process did not answer).
json ask(Sessions& sessions, const namespaced::Process* p, const std::string& command) {
  std::optional<json> j = sessions.of(p).command(command);
  return j && j->is_object() ? *j : json::object();
}

// One command's replies within one pass over the ports: each process is asked once, however
// many of its ports the pass reads.
class Replies {
 public:
  Replies(Sessions& sessions, std::string command)
      : sessions_(sessions), command_(std::move(command)) {}
  const json& of(const namespaced::Process* p) {
    auto it = replies_.find(p);
    if (it == replies_.end()) it = replies_.emplace(p, ask(sessions_, p, command_)).first;
    return it->second;
  }

 private:
  Sessions& sessions_;
  std::string command_;
  std::map<const namespaced::Process*, json> replies_;
};

uint64_t at_port(const json& ports, const char* key, uint16_t port) {
  const auto it = ports.find(key);
  if (it == ports.end() || !it->is_array() || port >= it->size()) return 0;
  return (*it)[port].get<uint64_t>();
}

// Counters of every port: what /spraylab/ports has, and the drops of every reason (one
// /spraylab/port request per port: the ports command leaves nested objects out).
struct PortCounts {
  uint64_t tx_packets = 0, tx_bytes = 0, ecn_marks = 0, trims = 0, drops = 0;
  // buffer.flow_control: pfc (0 without: the switch has no such fields).
  uint64_t pause_sent = 0, resume_sent = 0, pause_received = 0, resume_received = 0;
  uint64_t paused_ns = 0, headroom_drops = 0;
};
std::vector<PortCounts> port_counts(const std::vector<PortPlace>& places, Sessions& sessions) {
  std::vector<PortCounts> out(places.size());
  Replies ports(sessions, "/spraylab/ports");
  for (size_t i = 0; i < places.size(); ++i) {
    const PortPlace& pl = places[i];
    const json& j = ports.of(pl.process);
    out[i].tx_packets = at_port(j, "tx_packets", pl.port);
    out[i].tx_bytes = at_port(j, "tx_bytes", pl.port);
    out[i].ecn_marks = at_port(j, "ecn_marks", pl.port);
    out[i].trims = at_port(j, "trims", pl.port);
    out[i].pause_sent = at_port(j, "pfc_pause_sent", pl.port);
    out[i].resume_sent = at_port(j, "pfc_resume_sent", pl.port);
    out[i].pause_received = at_port(j, "pfc_pause_received", pl.port);
    out[i].resume_received = at_port(j, "pfc_resume_received", pl.port);
    out[i].paused_ns = at_port(j, "pfc_paused_ns", pl.port);
    const json one = ask(sessions, pl.process, fmt::format("/spraylab/port,{}", pl.port));
    for (const auto& [key, value] : one.items()) {
      if (key.starts_with("drops_") && value.is_number()) out[i].drops += value.get<uint64_t>();
    }
    out[i].headroom_drops = one.value("drops_pfc_headroom", uint64_t{0});
  }
  return out;
}

// The depth of every port, and the wire bytes sent to hosts since `base`, at `t_ns`.
void sample(const std::vector<PortPlace>& places, const std::vector<PortCounts>& base,
            uint64_t t_ns, Sessions& sessions, FabricResult* r) {
  Replies ports(sessions, "/spraylab/ports");
  uint64_t wire = 0;
  for (size_t i = 0; i < places.size(); ++i) {
    const PortPlace& pl = places[i];
    const json& j = ports.of(pl.process);
    r->samples.push_back({t_ns, static_cast<uint32_t>(i),
                          static_cast<uint32_t>(at_port(j, "queue_packets", pl.port)),
                          static_cast<uint32_t>(at_port(j, "queue_bytes", pl.port))});
    if (!pl.to_host) continue;
    const uint64_t packets = at_port(j, "tx_packets", pl.port) - base[i].tx_packets;
    const uint64_t bytes = at_port(j, "tx_bytes", pl.port) - base[i].tx_bytes;
    wire += bytes + packets * net::kWireOverhead;
  }
  r->delivered.push_back({t_ns, wire});
}

// Each generator's results file, or nullopt while it has none.
std::optional<json> read_results(const namespaced::Process& p) {
  std::ifstream in(p.results);
  if (!in) return std::nullopt;
  json j = json::parse(in, nullptr, false);
  if (j.is_discarded()) return std::nullopt;
  return j;
}

// Removes what a run puts in the fabric's folder, and the folder if nothing else is in it.
void remove_run_files(const std::string& dir) {
  std::error_code ec;
  for (const char* sub : {"logs", "results", "sock"}) fs::remove_all(fs::path(dir) / sub, ec);
  for (const char* f : {"experiment.yaml", "variant.yaml"}) fs::remove(fs::path(dir) / f, ec);
  fs::remove(dir, ec);  // only if empty
}

// After fresh generators joined a running fabric: until every switch has every link up again
// and has taken in what the generators sent while warming their links (2048 frames a port, which
// the leaves drop), so that none of it lands in the next run's counters. At most 20 s.
void settle(const namespaced::FabricState& st) {
  Sessions sessions;
  uint64_t last = UINT64_MAX;
  const auto t0 = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - t0 < std::chrono::seconds(20)) {
    if (g_stop) throw std::runtime_error("interrupted");
    bool all_up = true;
    uint64_t rx = 0;
    for (const namespaced::Process& p : st.processes) {
      if (p.role != namespaced::Role::kSwitch) continue;
      const json ports = ask(sessions, &p, "/spraylab/ports");
      for (uint16_t i = 0; i < p.ports; ++i) {
        all_up = all_up && at_port(ports, "up", i) == 1;
        rx += at_port(ports, "rx_packets", i);
      }
    }
    if (all_up && rx == last) return;
    last = rx;
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
}

// The experiment without its load_balancer section (variants with the same one can share a
// fabric), and that section as a YAML flow map (what /spraylab/lb_set takes).
std::string without_balancer(const std::string& yaml) {
  YAML::Node root = YAML::Load(yaml);
  root.remove("load_balancer");
  YAML::Emitter e;
  e << root;
  return e.c_str();
}

std::string balancer_flow(const std::string& yaml) {
  const YAML::Node root = YAML::Load(yaml);
  YAML::Emitter e;
  e.SetMapFormat(YAML::Flow);
  e.SetSeqFormat(YAML::Flow);
  e << root["load_balancer"];
  return e.c_str();
}

// One variant's run on a fabric that is up: the generators released and followed to their end
// (queue samples, link events, progress, the wall-clock and clock limits), then their results
// and every switch port's counters over the run.
class VariantRun {
 public:
  VariantRun(const std::string& dir, const FabricOptions& opts, std::function<double()> wall_s)
      : opts_(opts),
        wall_s_(std::move(wall_s)),
        st_(namespaced::read_state(dir)),
        exp_(conf::load_experiment_file(st_.experiment)),
        t_(topo::build(exp_.topology, exp_.links)),
        events_(exp_, t_, st_, [this](const namespaced::Process& p, const std::string& command) {
          return ask(sessions_, &p, command);
        }) {
    r_.mode = Mode::kNamespaced;
    r_.time_scale = st_.time_scale;
    r_.machine_bound =
        machine_bound_reason({.mode = Mode::kNamespaced,
                              .cpus = online_cpus(),
                              .threads = static_cast<uint32_t>(st_.processes.size())});
    r_.ports = port_layout(t_, st_, &places_, &r_.host_capacity_bps);
    const gen::RunPlan plan = gen::make_run_plan(exp_, gen::options_from_experiment(exp_, t_));
    messages_total_ = plan.schedule.messages.size();
    for (const auto& m : plan.schedule.messages) payload_total_ += m.bytes;
  }
  VariantRun(const VariantRun&) = delete;
  VariantRun& operator=(const VariantRun&) = delete;

  FabricResult run() {
    base_ = port_counts(places_, sessions_);
    start_at_ = namespaced::release_generators(st_, kStartDelayS);
    run_started_ = std::chrono::steady_clock::now();
    watch();
    merge_results();
    port_totals();
    r_.link_events = events_.to_json();
    if (r_.completed) events_.restore();  // the next variant may run on this fabric
    return std::move(r_);
  }

 private:
  uint64_t run_ns() const {
    const double t = unix_now() - start_at_;
    return t > 0 ? static_cast<uint64_t>(t * 1e9) : uint64_t{0};
  }
  double run_s() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - run_started_).count();
  }

  // Until every generator has exited, or a limit stopped them and the grace period is over.
  void watch() {
    const uint64_t period = std::max(exp_.measurement.queue_sample_ns, kMinSamplePeriodNs);
    const uint64_t clock_limit =
        opts_.max_clock_ns
            ? static_cast<uint64_t>(static_cast<double>(opts_.max_clock_ns) * st_.time_scale)
            : UINT64_MAX;
    uint64_t next_sample = 0, next_progress = 0;
    double stop_sent_at = -1;
    while (true) {
      if (g_stop) throw std::runtime_error("interrupted");
      const bool started = unix_now() >= start_at_;
      const uint64_t now = run_ns();
      if (started && !stop_) events_.apply_due(now, [this] { return run_ns(); });
      if (started && now >= next_sample) {
        sample(places_, base_, now, sessions_, &r_);
        next_sample = now + period;
      }
      const bool all_exited = collect_exited();
      if (!stop_ && run_s() >= opts_.max_wall_seconds) stop_ = gen::StopReason::kTimeout;
      if (!stop_ && now >= clock_limit) stop_ = gen::StopReason::kDuration;
      if (stop_ && stop_sent_at < 0) {
        namespaced::stop_generators(st_);
        stop_sent_at = run_s();
      }
      const bool finished = all_exited || (stop_ && run_s() - stop_sent_at > kStopGraceS);
      if (opts_.progress && (finished || now >= next_progress)) {
        report_progress(now);
        next_progress = now + opts_.progress_period_ns;
      }
      if (finished) break;
      // 10 ms between looks, less when a link event is due sooner.
      const uint64_t due = events_.next_at();
      const uint64_t nap =
          started && due > now ? std::min<uint64_t>(due - now, 10'000'000) : uint64_t{10'000'000};
      std::this_thread::sleep_for(std::chrono::nanoseconds(nap));
    }
    end_at_ = unix_now();
    std::filesystem::remove(fs::path(st_.dir) / "start");
  }

  // Takes in the results of the generators that finished; true when every one has exited.
  // A generator writes its results when it finishes, then lingers a while answering its peers
  // (--linger): its results are final once they are there.
  bool collect_exited() {
    bool all_exited = true;
    for (const namespaced::Process& p : st_.processes) {
      if (p.role != namespaced::Role::kGen || results_.count(p.node)) continue;
      const bool alive = namespaced::running(p);
      std::optional<json> res = read_results(p);
      if (alive && !res) {
        all_exited = false;
        continue;
      }
      if (alive && !res->value("completed", false)) {
        all_exited = false;  // stopped early (a signal): wait for it to exit
        continue;
      }
      results_[p.node] = res ? *res : json::object();
      for (const auto& m : res ? (*res)["messages"] : json::array()) {
        messages_done_ += m.value("completed", false) ? 1 : 0;
      }
    }
    return all_exited;
  }

  void report_progress(uint64_t now) const {
    Progress p;
    p.messages_done = messages_done_;
    p.messages_total = messages_total_;
    p.clock_ns = now;
    p.wall_seconds = wall_s_();
    if (!r_.delivered.empty() && payload_total_ > 0) {
      p.done_fraction = std::min(1.0, static_cast<double>(r_.delivered.back().wire_bytes) /
                                          static_cast<double>(payload_total_));
    }
    opts_.progress(p);
  }

  // The generators' results as one (what the summary reads in every mode), and how it ended.
  void merge_results() {
    std::vector<json> parts;
    bool every_part = true;
    for (const namespaced::Process& p : st_.processes) {
      if (p.role != namespaced::Role::kGen) continue;
      const auto it = results_.find(p.node);
      if (it == results_.end() || it->second.empty()) {
        every_part = false;
        fmt::print(stderr, "spraylab run: generator {} wrote no results (its log: {})\n", p.node,
                   p.log);
        continue;
      }
      parts.push_back(it->second);
    }
    if (!parts.empty()) r_.generator = merge_generator_results(parts);
    if (exp_.buffer.flow_control == conf::FlowControl::kPfc) host_pfc();
    r_.completed = every_part && !stop_ && r_.generator.value("completed", false);
    r_.stopped_by =
        r_.completed ? gen::StopReason::kCompleted : stop_.value_or(gen::StopReason::kStalled);
    // The run: from the generators' start to the last one's end (their TSC in ns, one clock).
    const uint64_t gen_elapsed =
        r_.generator.is_object() ? r_.generator.value("elapsed_ns", 0ull) : 0;
    r_.clock_ns =
        gen_elapsed > 0 ? gen_elapsed : static_cast<uint64_t>((end_at_ - start_at_) * 1e9);
  }

  // buffer.flow_control: pfc: the hosts' side of the pauses, from the generators' counters
  // (docs/generator.md, "PFC pauses"; listed only when a MAC control frame arrived).
  void host_pfc() {
    r_.pfc = true;
    const json counters = r_.generator.is_object() ? r_.generator.value("counters", json::object())
                                                   : json::object();
    r_.host_pfc.pause_received = counters.value("rx_pfc_pauses", uint64_t{0});
    r_.host_pfc.resume_received = counters.value("rx_pfc_resumes", uint64_t{0});
    r_.host_pfc.paused_ns = counters.value("pfc_paused_ns", uint64_t{0});
    r_.host_pfc.bad_control = counters.value("rx_bad_mac_control", uint64_t{0});
  }

  // Each port's counters over the run and its exact deepest queue since the release.
  void port_totals() {
    const std::vector<PortCounts> end = port_counts(places_, sessions_);
    Replies maxima(sessions_, "/spraylab/queue_max");
    for (size_t i = 0; i < places_.size(); ++i) {
      const PortPlace& pl = places_[i];
      const json& max = maxima.of(pl.process);
      PortSummary& ps = r_.ports[i];
      ps.max_packets = at_port(max, "packets", pl.port);
      ps.max_bytes = at_port(max, "bytes", pl.port);
      ps.tx_packets = end[i].tx_packets - base_[i].tx_packets;
      ps.tx_bytes = end[i].tx_bytes - base_[i].tx_bytes;
      ps.ecn_marks = end[i].ecn_marks - base_[i].ecn_marks;
      ps.trims = end[i].trims - base_[i].trims;
      ps.drops = end[i].drops - base_[i].drops;
      ps.pause_sent = end[i].pause_sent - base_[i].pause_sent;
      ps.resume_sent = end[i].resume_sent - base_[i].resume_sent;
      ps.pause_received = end[i].pause_received - base_[i].pause_received;
      ps.resume_received = end[i].resume_received - base_[i].resume_received;
      ps.paused_ns = end[i].paused_ns - base_[i].paused_ns;
      ps.headroom_drops = end[i].headroom_drops - base_[i].headroom_drops;
      ps.utilisation = port_utilisation(ps.tx_bytes, ps.tx_packets, st_.rate_bps, r_.clock_ns);
    }
    set_p99_bytes(r_.samples, &r_.ports);
    // The last delivery window ends with the run.
    if (r_.delivered.empty() || r_.delivered.back().t_ns < r_.clock_ns) {
      sample(places_, base_, r_.clock_ns, sessions_, &r_);
      r_.samples.resize(r_.samples.size() - places_.size());  // a delivery sample only
    }
  }

  const FabricOptions& opts_;
  const std::function<double()> wall_s_;
  const namespaced::FabricState st_;
  const conf::Experiment exp_;
  const topo::Topology t_;
  Sessions sessions_;
  namespaced::LinkEvents events_;
  std::vector<PortPlace> places_;
  uint64_t messages_total_ = 0, payload_total_ = 0;
  FabricResult r_;
  std::vector<PortCounts> base_;
  double start_at_ = 0, end_at_ = 0;
  std::chrono::steady_clock::time_point run_started_;
  std::map<std::string, json> results_;  // by generator node, once it has exited
  uint64_t messages_done_ = 0;
  std::optional<gen::StopReason> stop_;
};

}  // namespace

// SIGINT and SIGTERM only set g_stop while a NamespacedRunner lives (and interrupt fabric up's
// waits), so the fabric is always taken down; a signal ignored at the start stays ignored (a
// script's background job: runner.cpp); the earlier handlers come back after.
class StopSignals {
 public:
  StopSignals() {
    g_stop = 0;
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    catch_unless_ignored(SIGINT, sa, old_int_);
    catch_unless_ignored(SIGTERM, sa, old_term_);
    namespaced::set_interrupt_flag(&g_stop);
  }
  ~StopSignals() {
    namespaced::set_interrupt_flag(nullptr);
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

NamespacedRunner::NamespacedRunner(namespaced::Options o) : o_(std::move(o)) {
  name_ = namespaced::safe_name(o_.name.empty() ? fmt::format("run{}", getpid()) : o_.name);
  dir_ = o_.dir.empty() ? namespaced::default_dir(name_) : fs::absolute(o_.dir).string();
  g_stop = 0;
  signals_ = std::make_unique<StopSignals>();
}

NamespacedRunner::~NamespacedRunner() {
  try {
    finish();
  } catch (const std::exception& e) {
    fmt::print(stderr, "spraylab run: fabric down {} --dir {}: {}\n", name_, dir_, e.what());
  }
}

void NamespacedRunner::down() {
  if (!up_) return;
  up_ = false;
  namespaced::down(name_, dir_, false);
}

void NamespacedRunner::finish() {
  const bool was_up = up_;
  down();
  if (was_up || !all_completed_) {
    if (all_completed_) {
      remove_run_files(dir_);
    } else {
      fmt::print(stderr, "spraylab run: the fabric's logs and results stay in {}\n", dir_);
    }
  }
}

FabricResult NamespacedRunner::run(const std::string& yaml, const FabricOptions& opts) {
  try {
    FabricResult r = run_once(yaml, opts);
    if (!r.completed) {
      all_completed_ = false;
      down();  // frames may be left in it: the next variant gets a fresh fabric
    }
    return r;
  } catch (...) {
    all_completed_ = false;
    down();
    throw;
  }
}

void NamespacedRunner::bring_up(const std::string& yaml, const FabricOptions& opts) {
  const std::string key = without_balancer(yaml);
  if (up_ && key == fabric_key_) {
    // Only the balancer differs: set it on every switch, and fresh generators for the run.
    namespaced::FabricState st = namespaced::read_state(dir_);
    namespaced::set_balancers(st, balancer_flow(yaml));
    if (!namespaced::restart_generators(st)) {
      throw std::runtime_error(
          fmt::format("fabric {}: the generators did not restart (logs in {}/logs)", name_, dir_));
    }
    settle(st);
    return;
  }
  down();
  namespaced::Options up = o_;
  up.name = name_;
  up.dir = dir_;
  up.run_timeout_s = opts.max_wall_seconds;  // each generator's own guard
  up.verbose = false;
  up.experiment = (fs::path(dir_) / "variant.yaml").string();
  fs::create_directories(dir_);
  std::ofstream(up.experiment) << yaml;
  up_ = true;  // from here down() has something to take down
  if (namespaced::up(up) != 0) {
    throw std::runtime_error(
        fmt::format("fabric {} did not come up (logs in {}/logs)", name_, dir_));
  }
  fabric_key_ = key;
}

FabricResult NamespacedRunner::run_once(const std::string& yaml, const FabricOptions& opts) {
  const auto wall0 = std::chrono::steady_clock::now();
  const auto wall_s = [wall0] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  };
  if (g_stop) throw std::runtime_error("interrupted");
  bring_up(yaml, opts);
  FabricResult r = VariantRun(dir_, opts, wall_s).run();
  if (g_stop) throw std::runtime_error("interrupted");
  r.wall_seconds = wall_s();
  return r;
}

}  // namespace spraylab::fabric
