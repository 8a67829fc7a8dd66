#include "fabric/namespaced/run_namespaced.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <stdexcept>
#include <thread>

#include <yaml-cpp/yaml.h>

#include "conf/loader.h"
#include "fabric/namespaced/generator_merge.h"
#include "fabric/namespaced/launcher.h"
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
  uint64_t tx_packets = 0, tx_bytes = 0, ecn_marks = 0, drops = 0;
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
    const json one = ask(sessions, pl.process, fmt::format("/spraylab/port,{}", pl.port));
    for (const auto& [key, value] : one.items()) {
      if (key.starts_with("drops_") && value.is_number()) out[i].drops += value.get<uint64_t>();
    }
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

FabricResult NamespacedRunner::run_once(const std::string& yaml, const FabricOptions& opts) {
  const auto wall0 = std::chrono::steady_clock::now();
  const auto wall_s = [&wall0] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  };
  if (g_stop) throw std::runtime_error("interrupted");
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
  } else {
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

  FabricResult r;
  r.mode = Mode::kNamespaced;
  bool completed = false;
  {
    const namespaced::FabricState st = namespaced::read_state(dir_);
    const conf::Experiment exp = conf::load_experiment_file(st.experiment);
    const topo::Topology t = topo::build(exp.topology, exp.links);
    r.time_scale = st.time_scale;
    r.machine_bound = machine_bound_reason({.mode = Mode::kNamespaced,
                                            .cpus = online_cpus(),
                                            .threads = static_cast<uint32_t>(st.processes.size())});
    std::vector<PortPlace> places;
    r.ports = port_layout(t, st, &places, &r.host_capacity_bps);
    const gen::RunPlan plan = gen::make_run_plan(exp, gen::options_from_experiment(exp, t));
    uint64_t payload_total = 0;
    for (const auto& m : plan.schedule.messages) payload_total += m.bytes;

    Sessions sessions;
    const std::vector<PortCounts> base = port_counts(places, sessions);
    const double start_at = namespaced::release_generators(st, kStartDelayS);
    const auto run_ns = [start_at] {
      const double t = unix_now() - start_at;
      return t > 0 ? static_cast<uint64_t>(t * 1e9) : uint64_t{0};
    };
    const uint64_t period = std::max(exp.measurement.queue_sample_ns, kMinSamplePeriodNs);
    const uint64_t clock_limit =
        opts.max_clock_ns
            ? static_cast<uint64_t>(static_cast<double>(opts.max_clock_ns) * st.time_scale)
            : UINT64_MAX;
    const auto run_started = std::chrono::steady_clock::now();
    const auto run_s = [&run_started] {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - run_started).count();
    };
    std::map<std::string, json> results;  // by generator node, once it has exited
    uint64_t next_sample = 0, next_progress = 0, messages_done = 0;
    std::optional<gen::StopReason> stop;
    double stop_sent_at = -1;
    while (true) {
      if (g_stop) throw std::runtime_error("interrupted");
      const uint64_t now = run_ns();
      if (unix_now() >= start_at && now >= next_sample) {
        sample(places, base, now, sessions, &r);
        next_sample = now + period;
      }
      // A generator writes its results when it finishes, then lingers a while answering its
      // peers (--linger): its results are final once they are there.
      bool all_exited = true;
      for (const namespaced::Process& p : st.processes) {
        if (p.role != namespaced::Role::kGen || results.count(p.node)) continue;
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
        results[p.node] = res ? *res : json::object();
        for (const auto& m : res ? (*res)["messages"] : json::array()) {
          messages_done += m.value("completed", false) ? 1 : 0;
        }
      }
      if (!stop && run_s() >= opts.max_wall_seconds) stop = gen::StopReason::kTimeout;
      if (!stop && now >= clock_limit) stop = gen::StopReason::kDuration;
      if (stop && stop_sent_at < 0) {
        namespaced::stop_generators(st);
        stop_sent_at = run_s();
      }
      const bool finished = all_exited || (stop && run_s() - stop_sent_at > kStopGraceS);
      if (opts.progress && (finished || now >= next_progress)) {
        Progress p;
        p.messages_done = messages_done;
        p.messages_total = plan.schedule.messages.size();
        p.clock_ns = now;
        p.wall_seconds = wall_s();
        if (!r.delivered.empty() && payload_total > 0) {
          p.done_fraction = std::min(1.0, static_cast<double>(r.delivered.back().wire_bytes) /
                                              static_cast<double>(payload_total));
        }
        opts.progress(p);
        next_progress = now + opts.progress_period_ns;
      }
      if (finished) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    const double end_at = unix_now();
    std::filesystem::remove(fs::path(st.dir) / "start");

    // The generators' results as one (what the summary reads in every mode).
    std::vector<json> parts;
    bool every_part = true;
    for (const namespaced::Process& p : st.processes) {
      if (p.role != namespaced::Role::kGen) continue;
      const auto it = results.find(p.node);
      if (it == results.end() || it->second.empty()) {
        every_part = false;
        fmt::print(stderr, "spraylab run: generator {} wrote no results (its log: {})\n", p.node,
                   p.log);
        continue;
      }
      parts.push_back(it->second);
    }
    if (!parts.empty()) r.generator = merge_generator_results(parts);
    completed = every_part && !stop && r.generator.value("completed", false);
    r.completed = completed;
    r.stopped_by =
        completed ? gen::StopReason::kCompleted : stop.value_or(gen::StopReason::kStalled);
    // The run: from the generators' start to the last one's end (their TSC in ns, one clock).
    const uint64_t gen_elapsed =
        r.generator.is_object() ? r.generator.value("elapsed_ns", 0ull) : 0;
    r.clock_ns = gen_elapsed > 0 ? gen_elapsed : static_cast<uint64_t>((end_at - start_at) * 1e9);

    // Each port's counters over the run and its exact deepest queue since the release.
    const std::vector<PortCounts> end = port_counts(places, sessions);
    Replies maxima(sessions, "/spraylab/queue_max");
    for (size_t i = 0; i < places.size(); ++i) {
      const PortPlace& pl = places[i];
      const json& max = maxima.of(pl.process);
      PortSummary& ps = r.ports[i];
      ps.max_packets = at_port(max, "packets", pl.port);
      ps.max_bytes = at_port(max, "bytes", pl.port);
      ps.tx_packets = end[i].tx_packets - base[i].tx_packets;
      ps.tx_bytes = end[i].tx_bytes - base[i].tx_bytes;
      ps.ecn_marks = end[i].ecn_marks - base[i].ecn_marks;
      ps.drops = end[i].drops - base[i].drops;
      ps.utilisation = port_utilisation(ps.tx_bytes, ps.tx_packets, st.rate_bps, r.clock_ns);
    }
    set_p99_bytes(r.samples, &r.ports);
    // The last delivery window ends with the run.
    if (r.delivered.empty() || r.delivered.back().t_ns < r.clock_ns) {
      sample(places, base, r.clock_ns, sessions, &r);
      r.samples.resize(r.samples.size() - places.size());  // a delivery sample only
    }
  }
  if (g_stop) throw std::runtime_error("interrupted");
  r.wall_seconds = wall_s();
  return r;
}

}  // namespace spraylab::fabric
