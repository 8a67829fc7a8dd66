#include "fabric/namespaced/launcher.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <glob.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "conf/loader.h"
#include "conf/units.h"
#include "fabric/namespaced/plan.h"
#include "switch/dataplane/switch_runtime.h"
#include "topo/build.h"

namespace spraylab::fabric::namespaced {
namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

namespace {

constexpr const char* kRunDir = "/run/spraylab";
constexpr const char* kDpdkRunDir = "/var/run/dpdk";
// The line spraylab-gen prints when its links are up and warmed and it waits for the start.
constexpr const char* kGenReady = "spraylab-gen: waiting for ";

double now_s() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

double since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

void sleep_ms(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

const volatile std::sig_atomic_t* g_interrupt = nullptr;  // set_interrupt_flag

// Throws when the caller's interrupt flag is set (Ctrl-C of `spraylab run`): the caller then
// takes the fabric down.
void throw_if_interrupted() {
  if (g_interrupt != nullptr && *g_interrupt != 0) throw std::runtime_error("interrupted");
}

// In a forked child: replaces it with `argv` (no shell); exits 127 if that fails.
[[noreturn]] void exec_argv(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  execvp(args[0], args.data());
  _exit(127);
}

// Runs a command (no shell) and waits; returns its exit status. Its output goes to ours unless
// `quiet`.
int run_command(const std::vector<std::string>& argv, bool quiet = false) {
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(fmt::format("fork: {}", std::strerror(errno)));
  if (pid == 0) {
    if (quiet) {
      const int nul = open("/dev/null", O_WRONLY);
      dup2(nul, 1);
      dup2(nul, 2);
    }
    exec_argv(argv);
  }
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

// A command's standard output (no shell).
std::string command_output(const std::vector<std::string>& argv) {
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error("pipe failed");
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], 1);
    close(fds[0]);
    close(fds[1]);
    const int nul = open("/dev/null", O_WRONLY);
    dup2(nul, 2);
    exec_argv(argv);
  }
  close(fds[1]);
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int st = 0;
  waitpid(pid, &st, 0);
  return out;
}

// The fabric's namespaces that exist now (`ip netns list`), by name prefix.
std::vector<std::string> namespaces_with_prefix(const std::string& prefix) {
  std::vector<std::string> out;
  std::istringstream in(command_output({"ip", "netns", "list"}));
  std::string line;
  while (std::getline(in, line)) {
    const std::string name = line.substr(0, line.find(' '));
    if (name.starts_with(prefix)) out.push_back(name);
  }
  return out;
}

// The host's interfaces of a fabric's management network: its bridge and the host ends of the
// processes' mgmt0 veths (`ip -o link show`).
std::vector<std::string> mgmt_links_on_host(const MgmtNet& m) {
  std::vector<std::string> out;
  const std::string veth_prefix = m.host_veth(0).substr(0, m.host_veth(0).rfind('-') + 1);
  std::istringstream in(command_output({"ip", "-o", "link", "show"}));
  std::string line;
  while (std::getline(in, line)) {
    // "12: slv1a2b3c-0@if3: <...": the name ends at '@' or ':'.
    const size_t start = line.find(": ");
    if (start == std::string::npos) continue;
    const std::string name = line.substr(start + 2, line.find_first_of("@:", start + 2) - start - 2);
    if (name == m.bridge || name.starts_with(veth_prefix)) out.push_back(name);
  }
  return out;
}

// Processes whose network namespace is `netns` (`ip netns pids`).
std::vector<int> pids_in_namespace(const std::string& netns) {
  std::vector<int> out;
  std::istringstream in(command_output({"ip", "netns", "pids", netns}));
  int pid;
  while (in >> pid) out.push_back(pid);
  return out;
}

// True while `pid` runs (a zombie has finished).
bool alive(int pid) {
  if (pid <= 0 || kill(pid, 0) != 0) return false;
  std::ifstream stat(fmt::format("/proc/{}/stat", pid));
  std::string line;
  if (!std::getline(stat, line)) return false;
  const size_t close_paren = line.rfind(')');
  return close_paren == std::string::npos || close_paren + 2 >= line.size() ||
         line[close_paren + 2] != 'Z';
}

// True if `pid` is still the process we started: its command line names its file prefix (a
// recorded pid may have been reused after a crash).
bool is_ours(int pid, const std::string& prefix) {
  std::ifstream in(fmt::format("/proc/{}/cmdline", pid), std::ios::binary);
  std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return cmdline.find(std::string("--file-prefix") + '\0' + prefix + '\0') != std::string::npos;
}

// Reaps `pid` if it is our child and has exited (no zombie left behind by `up` or `start`).
void reap(int pid) {
  int st;
  waitpid(pid, &st, WNOHANG);
}

// The folder of spraylab-switch and spraylab-gen: next to this program (installed), or the
// build tree's switch/ and trafficgen/ beside fabric/. SPRAYLAB_BIN_DIR overrides.
std::string program_path(const std::string& program) {
  if (const char* env = std::getenv("SPRAYLAB_BIN_DIR")) return fs::path(env) / program;
  const fs::path self = fs::read_symlink("/proc/self/exe").parent_path();
  if (fs::exists(self / program)) return self / program;
  const fs::path built =
      self.parent_path() / (program == "spraylab-switch" ? "switch" : "trafficgen") / program;
  if (fs::exists(built)) return built;
  throw std::runtime_error(
      fmt::format("cannot find {} next to {} or in the build tree (set SPRAYLAB_BIN_DIR)", program,
                  self.string()));
}

json to_json(const FabricState& st) {
  json j;
  j["fabric"] = st.name;
  j["dir"] = st.dir;
  j["experiment"] = st.experiment;
  j["links"] = link_kind_name(st.links);
  j["rate_bps"] = st.rate_bps;
  j["time_scale"] = st.time_scale;
  j["nice"] = st.nice;
  j["processes"] = json::array();
  for (const Process& p : st.processes) {
    j["processes"].push_back({{"node", p.node},
                              {"role", role_name(p.role)},
                              {"wave", p.wave},
                              {"netns", p.netns},
                              {"prefix", p.prefix},
                              {"pid", p.pid},
                              {"log", p.log},
                              {"log_from", p.log_from},
                              {"metrics", p.metrics},
                              {"ports", p.ports},
                              {"hosts", p.hosts},
                              {"results", p.results},
                              {"serves", p.serves},
                              {"argv", p.argv}});
  }
  return j;
}

FabricState from_json(const json& j) {
  FabricState st;
  st.name = j.at("fabric").get<std::string>();
  st.dir = j.at("dir").get<std::string>();
  st.experiment = j.at("experiment").get<std::string>();
  const std::string links = j.at("links").get<std::string>();
  const std::optional<LinkKind> kind = find_link_kind(links);
  if (!kind) {
    throw std::invalid_argument(fmt::format("{}: unknown link kind '{}' (expected {})", st.dir,
                                            links, link_kind_choices()));
  }
  st.links = *kind;
  st.rate_bps = j.at("rate_bps").get<double>();
  st.time_scale = j.at("time_scale").get<double>();
  st.nice = j.value("nice", 0);
  for (const auto& pj : j.at("processes")) {
    Process p;
    p.node = pj.at("node").get<std::string>();
    const std::string role = pj.at("role").get<std::string>();
    const std::optional<Role> known = find_role(role);
    if (!known) {
      throw std::invalid_argument(
          fmt::format("{}: process {} has an unknown role '{}'", st.dir, p.node, role));
    }
    p.role = *known;
    p.wave = pj.at("wave").get<int>();
    p.netns = pj.at("netns").get<std::string>();
    p.prefix = pj.at("prefix").get<std::string>();
    p.pid = pj.at("pid").get<int>();
    p.log = pj.at("log").get<std::string>();
    p.log_from = pj.value("log_from", uint64_t{0});
    p.metrics = pj.at("metrics").get<std::string>();
    p.ports = pj.at("ports").get<uint32_t>();
    p.hosts = pj.at("hosts").get<std::vector<std::string>>();
    p.results = pj.at("results").get<std::string>();
    p.serves = pj.at("serves").get<std::vector<std::string>>();
    p.argv = pj.at("argv").get<std::vector<std::string>>();
    st.processes.push_back(std::move(p));
  }
  return st;
}

std::string state_path(const std::string& dir) { return fs::path(dir) / "state.json"; }

// Written whole, then renamed: a reader never sees half a file, and a crash leaves the last.
void save_state(const FabricState& st) {
  const std::string tmp = state_path(st.dir) + ".tmp";
  std::ofstream(tmp) << to_json(st).dump(2) << "\n";
  fs::rename(tmp, state_path(st.dir));
}

std::optional<FabricState> load_state(const std::string& dir) {
  std::ifstream in(state_path(dir));
  if (!in) return std::nullopt;
  return from_json(json::parse(in));
}

// Starts `p` in its namespace, detached (its own session; output to its log), and returns its
// pid: `ip netns exec` enters the namespace and execs the program, so the pid is the program's.
int spawn(const Process& p, const std::string& log_mode, int nice) {
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(fmt::format("fork: {}", std::strerror(errno)));
  if (pid == 0) {
    setsid();
    if (nice != 0) setpriority(PRIO_PROCESS, 0, nice);  // inherited across exec
    const int flags = O_WRONLY | O_CREAT | (log_mode == "a" ? O_APPEND : O_TRUNC);
    const int log = open(p.log.c_str(), flags, 0644);
    const int nul = open("/dev/null", O_RDONLY);
    if (log >= 0) {
      dup2(log, 1);
      dup2(log, 2);
    }
    if (nul >= 0) dup2(nul, 0);
    std::vector<std::string> argv = {"ip", "netns", "exec", p.netns};
    argv.insert(argv.end(), p.argv.begin(), p.argv.end());
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp("ip", args.data());
    _exit(127);
  }
  return pid;
}

std::string log_tail(const std::string& path, size_t lines = 5) {
  std::ifstream in(path);
  std::vector<std::string> all;
  std::string line;
  while (std::getline(in, line)) all.push_back(line);
  std::string out;
  for (size_t i = all.size() > lines ? all.size() - lines : 0; i < all.size(); ++i) {
    out += "    " + all[i] + "\n";
  }
  return out;
}

// True if the log at `path`, from byte `from` on, has a line containing `text`.
bool log_has(const std::string& path, const std::string& text, uint64_t from = 0) {
  std::ifstream in(path);
  if (from > 0) in.seekg(static_cast<std::streamoff>(from));
  std::string line;
  while (std::getline(in, line)) {
    if (line.find(text) != std::string::npos) return true;
  }
  return false;
}

// A DPDK telemetry command to the process with file prefix `prefix` (its UNIX socket in the
// runtime folder, reachable from any namespace: it is a file). nullopt if it does not answer.
std::optional<json> telemetry_reply(const std::string& prefix, const std::string& command) {
  return TelemetrySession(prefix).command(command);
}

// A switch's ports as its telemetry reports them (arrays indexed by port), or nullopt.
std::optional<json> switch_ports(const Process& p) {
  std::optional<json> j = telemetry_reply(p.prefix, "/spraylab/ports");
  if (!j || !j->is_object() || !j->contains("up")) return std::nullopt;
  return j;
}

uint32_t ports_up(const json& ports) {
  uint32_t n = 0;
  for (const auto& v : ports["up"]) n += v.get<uint64_t>() ? 1 : 0;
  return n;
}

// Ready: a switch with every link up, a generator with its links up and warmed, waiting for
// the start.
bool ready(const Process& p) {
  if (p.role == Role::kGen) return log_has(p.log, kGenReady, p.log_from);
  const std::optional<json> ports = switch_ports(p);
  return ports && ports_up(*ports) == p.ports;
}

// Starts the processes of one wave and waits until each serves its socket files.
// Polls until `done()`, while `p` runs and for at most 60 s from `t0`; `what` names what it
// waits for in the error ("no socket X", "ports not started").
template <class Done>
void wait_in_start_up(Process& p, std::chrono::steady_clock::time_point t0, const std::string& what,
                      Done done) {
  while (!done()) {
    throw_if_interrupted();
    reap(p.pid);
    if (!alive(p.pid)) {
      throw std::runtime_error(fmt::format("{} ({}) exited during start-up; its log {}:\n{}",
                                           p.node, role_name(p.role), p.log, log_tail(p.log)));
    }
    if (since(t0) > 60) {
      throw std::runtime_error(
          fmt::format("{}: {} after 60 s; its log {}:\n{}", p.node, what, p.log, log_tail(p.log)));
    }
    sleep_ms(5);
  }
}

void start_wave(FabricState& st, int wave, const std::string& log_mode) {
  std::vector<Process*> started;
  for (Process& p : st.processes) {
    if (p.wave != wave) continue;
    for (const std::string& s : p.serves) fs::remove(s);  // a killed server leaves its own
    // Appended to, a log holds the lines of the processes before this one (a restarted
    // generator's "waiting for" among them): what says this one is ready comes after here.
    std::error_code ec;
    const uintmax_t size = fs::file_size(p.log, ec);
    p.log_from = log_mode == "a" && !ec ? size : 0;
    p.pid = spawn(p, log_mode, st.nice);
    started.push_back(&p);
  }
  save_state(st);
  const auto t0 = std::chrono::steady_clock::now();
  for (Process* p : started) {
    // The socket file appears at bind(), a moment before listen(): a client that dials then is
    // refused, and DPDK 22.11's memif client gives up at once. A switch that has started its
    // ports (its "N ports" line) listens on every server socket.
    for (const std::string& s : p->serves) {
      wait_in_start_up(*p, t0, "no socket " + s, [&s] { return fs::exists(s); });
    }
    if (p->role != Role::kSwitch) continue;
    const std::string started_line = fmt::format("spraylab-switch {}: {} ports", p->node, p->ports);
    wait_in_start_up(*p, t0, "ports not started",
                     [&] { return log_has(p->log, started_line, p->log_from); });
  }
}

// Waits until every process of `role` (every process: nullopt) is ready; false after `timeout_s`,
// naming those that are not.
bool wait_ready(FabricState& st, std::optional<Role> role, double timeout_s) {
  const auto t0 = std::chrono::steady_clock::now();
  std::set<std::string> pending;
  for (const Process& p : st.processes) {
    if (!role || p.role == *role) pending.insert(p.node);
  }
  while (!pending.empty()) {
    throw_if_interrupted();
    for (const Process& p : st.processes) {
      if (!pending.count(p.node)) continue;
      reap(p.pid);
      if (!alive(p.pid)) {
        fmt::print(stderr, "spraylab fabric: {} exited; its log {}:\n{}", p.node, p.log,
                   log_tail(p.log));
        return false;
      }
      if (ready(p)) pending.erase(p.node);
    }
    if (pending.empty()) break;
    if (since(t0) > timeout_s) {
      std::string names;
      for (const auto& n : pending) names += " " + n;
      fmt::print(stderr, "spraylab fabric: not ready after {:.0f} s:{}\n", timeout_s, names);
      return false;
    }
    sleep_ms(20);
  }
  return true;
}

void remove_runtime_files(const std::string& prefix) {
  std::error_code ec;
  fs::remove_all(fs::path(kDpdkRunDir) / prefix, ec);
  glob_t g{};
  const std::string pattern = fmt::format("/dev/hugepages/{}*", prefix);
  if (glob(pattern.c_str(), 0, nullptr, &g) == 0) {
    for (size_t i = 0; i < g.gl_pathc; ++i) unlink(g.gl_pathv[i]);
  }
  globfree(&g);
}

// CPU time (user + system, every thread) of `pid` in clock ticks, or -1.
long cpu_ticks(int pid) {
  std::ifstream in(fmt::format("/proc/{}/stat", pid));
  std::string line;
  if (!std::getline(in, line)) return -1;
  std::istringstream rest(line.substr(line.rfind(')') + 2));
  std::string field;
  long utime = 0, stime = 0;
  for (int i = 3; i <= 15 && rest >> field; ++i) {
    if (i == 14) utime = std::stol(field);
    if (i == 15) stime = std::stol(field);
  }
  return utime + stime;
}

long rss_kb(int pid) {
  std::ifstream in(fmt::format("/proc/{}/status", pid));
  std::string line;
  while (std::getline(in, line)) {
    if (line.starts_with("VmRSS:")) return std::stol(line.substr(6));
  }
  return -1;
}

// A fabric's folder from its name or --dir; the one fabric under /run/spraylab when neither.
std::string resolve_dir(const std::string& name, const std::string& dir) {
  if (!dir.empty()) return dir;
  if (!name.empty()) return default_dir(name);
  std::vector<std::string> found;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(kRunDir, ec)) {
    if (fs::exists(e.path() / "state.json")) found.push_back(e.path());
  }
  if (found.size() == 1) return found[0];
  throw std::invalid_argument(found.empty() ? "no fabric is up (no /run/spraylab/*/state.json)"
                                            : "several fabrics are up: name one (or --dir)");
}

FabricState require_state(const std::string& dir) {
  std::optional<FabricState> st = load_state(dir);
  if (!st) throw std::invalid_argument(fmt::format("no fabric state in {}", dir));
  return *st;
}

void run_or_throw(const std::vector<std::string>& argv) {
  if (run_command(argv, true) != 0) {
    std::string line;
    for (const std::string& a : argv) line += (line.empty() ? "" : " ") + a;
    throw std::runtime_error(fmt::format("`{}` failed", line));
  }
}

// The XDP program of veth ports (switch/xdp/meson.build, spraylab_xdp_gen.o: spraylab-gen's UDP
// port): installed beside the programs' lib folder, or in the build tree. SPRAYLAB_XDP_PROG
// overrides.
std::string xdp_program_path() {
  if (const char* env = std::getenv("SPRAYLAB_XDP_PROG")) return env;
  const fs::path self = fs::read_symlink("/proc/self/exe").parent_path();
  for (const fs::path& candidate :
       {self.parent_path() / "switch" / "xdp" / "spraylab_xdp_gen.o",
        self.parent_path() / "lib" / "spraylab" / "spraylab_xdp_gen.o",
        self.parent_path() / "lib" / "x86_64-linux-gnu" / "spraylab" / "spraylab_xdp_gen.o"}) {
    if (fs::exists(candidate)) return candidate;
  }
  throw std::runtime_error(fmt::format(
      "cannot find spraylab_xdp_gen.o in the build tree or beside {} (set SPRAYLAB_XDP_PROG)",
      self.string()));
}

// --links veth: one veth pair per link, each end created in its process's namespace with the
// name the plan gave it (eth1, eth2, ... in port order, as containerlab names them).
void add_veth_links(const FabricState& st, const topo::Topology& t) {
  std::map<std::string, std::string> netns;
  for (const Process& p : st.processes) netns[p.node] = p.netns;
  for (const NodeLink& l : node_links(t)) {
    const std::string& a = netns.at(l.a.node);
    const std::string& b = netns.at(l.b.node);
    run_or_throw({"ip", "link", "add", l.a.iface, "netns", a, "type", "veth", "peer", "name",
                  l.b.iface, "netns", b});
    run_or_throw({"ip", "-n", a, "link", "set", l.a.iface, "up"});
    run_or_throw({"ip", "-n", b, "link", "set", l.b.iface, "up"});
  }
}

// Prometheus's file-based service discovery of the fabric (docs/monitoring.md).
std::string discovery_path(const std::string& dir) {
  return fs::path(dir) / "prometheus-targets.json";
}

// The management network (namespaced/plan.h): the bridge, and per process a veth whose mgmt0
// end, in the process's namespace, has the process's address; each process's metrics address
// becomes that address.
void add_mgmt_net(FabricState& st) {
  const MgmtNet m = mgmt_net(st.name);
  check_process_count(st.processes.size(), "fabric " + st.name);
  if (command_output({"ip", "-o", "-4", "addr", "show"}).find(" " + m.prefix) !=
      std::string::npos) {
    throw std::runtime_error(fmt::format(
        "the management network {}0/24 of fabric {} is in use on this machine (another fabric "
        "whose name hashes to it?): give --name another name",
        m.prefix, st.name));
  }
  run_or_throw({"ip", "link", "add", m.bridge, "type", "bridge"});
  run_or_throw({"ip", "addr", "add", m.prefix + "1/24", "dev", m.bridge});
  run_or_throw({"ip", "link", "set", m.bridge, "up"});
  for (size_t i = 0; i < st.processes.size(); ++i) {
    Process& p = st.processes[i];
    const std::string address = fmt::format("{}{}", m.prefix, i + 2);
    run_or_throw({"ip", "link", "add", m.host_veth(i), "type", "veth", "peer", "name", "mgmt0",
                  "netns", p.netns});
    run_or_throw({"ip", "link", "set", m.host_veth(i), "master", m.bridge, "up"});
    run_or_throw({"ip", "-n", p.netns, "addr", "add", address + "/24", "dev", "mgmt0"});
    run_or_throw({"ip", "-n", p.netns, "link", "set", "mgmt0", "up"});
    p.metrics = address + p.metrics.substr(p.metrics.rfind(':'));
  }
}

// Where the shipped Prometheus config looks for every fabric's targets.
constexpr const char* kTargetsDir = "/run/spraylab/targets";
std::string shared_discovery_path(const std::string& fabric) {
  return fs::path(kTargetsDir) / (fabric + ".json");
}

// One target per process, labelled with the fabric, the node and its role: in the fabric's
// folder, and where monitoring/prometheus/prometheus.yml finds every fabric's.
void write_discovery_file(const FabricState& st) {
  const json targets = discovery_targets(st.name, st.processes);
  std::ofstream(discovery_path(st.dir)) << targets.dump(2) << "\n";
  fs::create_directories(kTargetsDir);
  std::ofstream(shared_discovery_path(st.name)) << targets.dump(2) << "\n";
}

}  // namespace

std::string default_dir(const std::string& name) { return fs::path(kRunDir) / safe_name(name); }

std::string default_dir_of(const std::string& name, const std::string& dir) {
  return resolve_dir(name, dir);
}

TelemetrySession::TelemetrySession(std::string prefix) : prefix_(std::move(prefix)) {}

TelemetrySession::~TelemetrySession() {
  if (fd_ >= 0) close(fd_);
}

bool TelemetrySession::open_socket() {
  const std::string path = fmt::format("{}/{}/dpdk_telemetry.v2", kDpdkRunDir, prefix_);
  fd_ = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
  if (fd_ < 0) return false;
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path.c_str());
  timeval tv{1, 0};
  setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  char hello[1024];  // the process's greeting: version, pid, max_output_len
  if (connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      recv(fd_, hello, sizeof hello, 0) <= 0) {
    close(fd_);
    fd_ = -1;
    return false;
  }
  return true;
}

std::optional<json> TelemetrySession::command(const std::string& command) {
  // A connection the process closed (it restarted, or timed out) is opened again, once.
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (fd_ < 0 && !open_socket()) return std::nullopt;
    std::string buf(1 << 16, '\0');
    ssize_t n = -1;
    if (send(fd_, command.data(), command.size(), MSG_NOSIGNAL) ==
        static_cast<ssize_t>(command.size())) {
      n = recv(fd_, buf.data(), buf.size(), 0);
    }
    if (n <= 0) {
      close(fd_);
      fd_ = -1;
      continue;
    }
    const json reply = json::parse(buf.substr(0, static_cast<size_t>(n)), nullptr, false);
    // The reply is keyed by the command without its parameters ("/spraylab/port,3").
    const std::string key = command.substr(0, command.find(','));
    if (reply.is_object() && reply.contains(key)) return reply[key];
    return std::nullopt;
  }
  return std::nullopt;
}

namespace {

// `fabric up` refuses a fabric that is up, or whose namespaces a crash left behind.
void check_not_up(const FabricState& st) {
  if (const std::optional<FabricState> old = load_state(st.dir)) {
    throw std::invalid_argument(
        fmt::format("fabric {} is up (or was not taken down): spraylab fabric down {} --dir {}",
                    old->name, old->name, st.dir));
  }
  if (!namespaces_with_prefix(ns_prefix(st.name)).empty()) {
    throw std::invalid_argument(fmt::format("namespaces {}* exist: spraylab fabric down {} first",
                                            ns_prefix(st.name), st.name));
  }
}

// The fabric's folder, without a former run's start file and results, with the experiment as the
// processes read it.
void prepare_dir(FabricState& st, const std::string& yaml) {
  for (const char* sub : {"sock", "logs", "results"})
    fs::create_directories(fs::path(st.dir) / sub);
  fs::remove(fs::path(st.dir) / "start");
  for (const auto& e : fs::directory_iterator(fs::path(st.dir) / "results")) fs::remove(e.path());
  st.experiment = fs::path(st.dir) / "experiment.yaml";
  std::ofstream(st.experiment) << yaml;
}

// The processes of `o`'s fabric with this machine's paths.
std::vector<Process> plan_here(const Options& o, const FabricState& st, const conf::Experiment& exp,
                               const topo::Topology& t) {
  Wiring w;
  w.dir = st.dir;
  w.experiment = st.experiment;
  w.switch_bin = program_path("spraylab-switch");
  w.gen_bin = program_path("spraylab-gen");
  if (o.links == LinkKind::kVeth) w.xdp_prog = xdp_program_path();
  w.rt_priority = namespaced_rt_priority(o.rt_priority, o.links);
  w.shaper_slack_bytes = shaper_slack_bytes(exp);
  w.metrics_host = "0.0.0.0";  // reached over the management network (add_mgmt_net)
  return plan_processes(st.name, t, o, w);
}

void create_namespaces(const FabricState& st) {
  for (const Process& p : st.processes) {
    if (run_command({"ip", "netns", "add", p.netns}) != 0 ||
        run_command({"ip", "-n", p.netns, "link", "set", "lo", "up"}) != 0) {
      throw std::runtime_error(fmt::format("cannot create network namespace {}", p.netns));
    }
  }
}

// One line on what is up and, verbose, the process table and where to go from here.
void print_up(const Options& o, const FabricState& st, const topo::Topology& t, bool ok,
              double took) {
  uint32_t switches = 0, gens = 0, links = 0;
  for (const Process& p : st.processes) {
    (p.role == Role::kSwitch ? switches : gens)++;
    links += p.ports;
  }
  fmt::print(o.verbose ? stdout : stderr,
             "fabric {}: {} switches, {} generators ({} hosts), {} {} links, {} per link{} in "
             "{:.1f} s ({})\n",
             st.name, switches, gens, t.hosts().size(), links / 2, link_kind_name(st.links),
             conf::format_rate(st.rate_bps),
             st.time_scale > 1 ? fmt::format(" (time x{:g})", st.time_scale) : "", took,
             ok ? "every link up" : "NOT every link up");
  if (!o.verbose) return;
  fmt::print("{:<12} {:<6} {:>7}  {:<22} metrics\n", "node", "role", "pid", "namespace");
  for (const Process& p : st.processes) {
    fmt::print("{:<12} {:<6} {:>7}  {:<22} curl -s http://{}/metrics\n", p.node, role_name(p.role),
               p.pid, p.netns, p.metrics);
  }
  fmt::print(
      "state {}; logs {}/logs; Prometheus targets {}; `spraylab fabric start` runs the "
      "workload, `spraylab fabric down {}` removes it all\n",
      state_path(st.dir), st.dir, discovery_path(st.dir), st.name);
}

}  // namespace

int up(const Options& o) {
  if (geteuid() != 0) throw std::invalid_argument("fabric up needs root (ip netns add)");
  const auto t0 = std::chrono::steady_clock::now();
  FabricState st;
  st.links = o.links;
  st.nice = o.nice;
  const std::string yaml = fabric_experiment(o, &st.rate_bps, &st.time_scale);
  const conf::Experiment exp = conf::load_experiment_file(o.experiment);
  st.name = safe_name(o.name.empty() ? exp.name : o.name);
  st.dir = o.dir.empty() ? default_dir(st.name) : fs::absolute(o.dir).string();
  check_not_up(st);
  prepare_dir(st, yaml);
  const conf::Experiment fabric_exp = conf::load_experiment_file(st.experiment);
  const topo::Topology t = topo::build(fabric_exp.topology, fabric_exp.links);
  dataplane::check_switch_ports(t);  // before any namespace: each switch would refuse to start
  st.processes = plan_here(o, st, fabric_exp, t);
  save_state(st);  // from here `down` finds whatever exists

  create_namespaces(st);
  if (st.links == LinkKind::kVeth) add_veth_links(st, t);
  add_mgmt_net(st);
  save_state(st);
  write_discovery_file(st);
  int waves = 0;
  for (const Process& p : st.processes) waves = std::max(waves, p.wave + 1);
  for (int w = 0; w < waves; ++w) start_wave(st, w, "w");
  const bool ok = wait_ready(st, std::nullopt, o.link_timeout_s);
  print_up(o, st, t, ok, since(t0));
  return ok ? 0 : 1;
}

int status(const std::string& dir, double cpu_seconds) {
  const FabricState st = require_state(dir);
  std::map<int, long> ticks0;
  if (cpu_seconds > 0) {
    for (const Process& p : st.processes) ticks0[p.pid] = cpu_ticks(p.pid);
    std::this_thread::sleep_for(std::chrono::duration<double>(cpu_seconds));
  }
  const double hz = static_cast<double>(sysconf(_SC_CLK_TCK));
  bool all_alive = true;
  double cpu_total = 0;
  long rss_total = 0;
  fmt::print("fabric {} ({}, {} per link), {}\n", st.name, link_kind_name(st.links),
             conf::format_rate(st.rate_bps), st.dir);
  for (const Process& p : st.processes) {
    const bool running = alive(p.pid) && is_ours(p.pid, p.prefix);
    all_alive = all_alive && running;
    std::string detail;
    if (!running) {
      detail = fs::exists(p.results) ? "finished" : "not running";
    } else if (p.role == Role::kSwitch) {
      if (const std::optional<json> ports = switch_ports(p)) {
        std::string depths;
        for (const auto& d : (*ports)["queue_packets"])
          depths += fmt::format(" {}", d.get<uint64_t>());
        uint64_t rx = 0, tx = 0;
        for (const auto& v : (*ports)["rx_packets"]) rx += v.get<uint64_t>();
        for (const auto& v : (*ports)["tx_packets"]) tx += v.get<uint64_t>();
        detail = fmt::format("links {}/{} up, queues [{} ], rx {} tx {}", ports_up(*ports), p.ports,
                             depths, rx, tx);
      } else {
        detail = "no telemetry answer";
      }
    } else {
      std::string hosts;
      for (const auto& h : p.hosts) hosts += (hosts.empty() ? "" : ",") + h;
      detail = fmt::format("hosts {}, {}", hosts,
                           log_has(p.log, kGenReady, p.log_from)
                               ? "links up, waiting for the start or running"
                               : "starting");
    }
    std::string cpu;
    if (cpu_seconds > 0 && running) {
      const double pct =
          100.0 * static_cast<double>(cpu_ticks(p.pid) - ticks0[p.pid]) / hz / cpu_seconds;
      cpu_total += pct;
      cpu = fmt::format(" cpu {:.1f}%", pct);
    }
    const long rss = running ? rss_kb(p.pid) : 0;
    rss_total += rss;
    // The metrics URL too, as `up` prints it (issue 43): status is where a user looks later.
    fmt::print("{:<12} {:<6} {:>7} {:<8} rss {:>4} MB{}  {}  http://{}/metrics\n", p.node,
               role_name(p.role), p.pid, running ? "running" : "gone", rss / 1024, cpu, detail,
               p.metrics);
  }
  if (cpu_seconds > 0) {
    fmt::print("total cpu {:.1f}% of one core over {:g} s; rss {} MB\n", cpu_total, cpu_seconds,
               rss_total / 1024);
  }
  return all_alive ? 0 : 1;
}

void set_interrupt_flag(const volatile std::sig_atomic_t* flag) { g_interrupt = flag; }

FabricState read_state(const std::string& dir) { return require_state(dir); }

bool running(const Process& p) {
  reap(p.pid);
  return alive(p.pid) && is_ours(p.pid, p.prefix);
}

std::optional<json> telemetry(const std::string& prefix, const std::string& command) {
  return telemetry_reply(prefix, command);
}

double release_generators(const FabricState& st, double delay_s) {
  for (const Process& p : st.processes) {
    if (p.role == Role::kGen && !(alive(p.pid) && log_has(p.log, kGenReady, p.log_from))) {
      throw std::runtime_error(
          fmt::format("generator {} is not waiting for the start ({})", p.node, p.log));
    }
  }
  // The switches' queue maxima restart here: what a run reports is its own. SIGUSR1 wakes each
  // switch out of deep idle (--deep-sleep), so the run's first frames find it polling at the
  // --idle-sleep cap (net/idle_sleep.h).
  for (const Process& p : st.processes) {
    if (p.role != Role::kSwitch) continue;
    if (running(p)) kill(p.pid, SIGUSR1);
    telemetry(p.prefix, "/spraylab/queue_max");
  }
  const std::string start_file = fs::path(st.dir) / "start";
  const double at = now_s() + delay_s;
  std::ofstream(start_file + ".tmp") << fmt::format("{:.6f}\n", at);
  fs::rename(start_file + ".tmp", start_file);
  return at;
}

void stop_generators(const FabricState& st) {
  for (const Process& p : st.processes) {
    if (p.role == Role::kGen && running(p)) kill(p.pid, SIGTERM);
  }
}

int start(const std::string& dir, double timeout_s, bool again) {
  FabricState st = require_state(dir);
  const std::string start_file = fs::path(st.dir) / "start";
  // A start after an earlier one (issue 43): its generators ran and exited, so fresh ones come
  // first; --again on the earlier start only saves the wait.
  const bool waiting = std::all_of(st.processes.begin(), st.processes.end(), [](const Process& p) {
    return p.role != Role::kGen || (running(p) && log_has(p.log, kGenReady, p.log_from));
  });
  if (!waiting) {
    fmt::print(stderr, "fabric {}: the generators ran before; starting fresh ones\n", st.name);
    if (!restart_generators(st)) return 1;
  }
  release_generators(st, 0.5);
  const auto t0 = std::chrono::steady_clock::now();
  bool finished = false;
  while (!finished && since(t0) < timeout_s) {
    finished = true;
    for (const Process& p : st.processes) {
      if (p.role != Role::kGen) continue;
      reap(p.pid);
      finished = finished && !alive(p.pid);
    }
    if (!finished) sleep_ms(20);
  }
  fs::remove(start_file);
  // What the generators report: every message, and the collective across them.
  uint64_t done = 0, total = 0;
  int64_t first_tx = INT64_MAX, last_ack = 0;
  uint64_t bound = 0;
  bool completed = finished;
  for (const Process& p : st.processes) {
    if (p.role != Role::kGen) continue;
    std::ifstream in(p.results);
    if (!in) {
      fmt::print(stderr, "spraylab fabric: {} wrote no results; its log {}:\n{}", p.node, p.log,
                 log_tail(p.log));
      completed = false;
      continue;
    }
    const json r = json::parse(in);
    completed = completed && r.value("completed", false);
    for (const auto& m : r["messages"]) {
      ++total;
      done += m.value("completed", false) ? 1 : 0;
    }
    for (const auto& c : r["collectives"]) {
      if (c.contains("first_tx_ns")) first_tx = std::min(first_tx, c["first_tx_ns"].get<int64_t>());
      if (c.contains("last_ack_ns")) last_ack = std::max(last_ack, c["last_ack_ns"].get<int64_t>());
      bound = std::max(bound, c.value("bound_ns", uint64_t{0}));
    }
  }
  uint64_t max_queue = 0;
  for (const Process& p : st.processes) {
    if (p.role != Role::kSwitch) continue;
    const std::optional<json> q = telemetry(p.prefix, "/spraylab/queue_max");
    if (q && q->is_object() && q->contains("packets")) {
      for (const auto& v : (*q)["packets"]) max_queue = std::max(max_queue, v.get<uint64_t>());
    } else {
      // A switch that answers nothing (gone) or not this command: its queues are not known.
      fmt::print(stderr, "spraylab fabric: {} did not answer /spraylab/queue_max\n", p.node);
    }
  }
  const double cct_us = last_ack > first_tx ? static_cast<double>(last_ack - first_tx) / 1e3 : 0.0;
  json summary = {{"completed", completed},
                  {"messages_done", done},
                  {"messages", total},
                  {"cct_us", cct_us},
                  {"bound_us", static_cast<double>(bound) / 1e3},
                  {"max_queue_packets", max_queue},
                  {"time_scale", st.time_scale},
                  {"wall_seconds", since(t0)}};
  fmt::print("{}\n", summary.dump());
  fmt::print(stderr,
             "fabric {}: {}/{} messages, CCT {:.1f} us (bound {:.1f} us, {} per link; x{:g} "
             "slower than the file), max queue {} packets\n",
             st.name, done, total, cct_us, static_cast<double>(bound) / 1e3,
             conf::format_rate(st.rate_bps), st.time_scale, max_queue);
  if (again && !restart_generators(st)) return 1;
  return completed ? 0 : 1;
}

bool restart_generators(FabricState& st) {
  // The old ones may linger (answering their peers' retransmissions): they go first, as their
  // memif connections and ports must be free for the new ones.
  std::vector<int> old;
  for (const Process& p : st.processes) {
    if (p.role == Role::kGen && running(p)) {
      kill(p.pid, SIGTERM);
      old.push_back(p.pid);
    }
  }
  const auto t0 = std::chrono::steady_clock::now();
  auto any_alive = [&old] {
    for (int pid : old) {
      reap(pid);
      if (alive(pid)) return true;
    }
    return false;
  };
  while (any_alive() && since(t0) < 3) sleep_ms(20);
  for (int pid : old) {
    if (alive(pid)) kill(pid, SIGKILL);
  }
  while (any_alive() && since(t0) < 8) sleep_ms(20);
  int gen_wave = 0;
  for (const Process& p : st.processes) {
    if (p.role != Role::kGen) continue;
    fs::remove(p.results);
    gen_wave = p.wave;
  }
  start_wave(st, gen_wave, "a");
  return wait_ready(st, Role::kGen, 60);
}

void set_balancers(const FabricState& st, const std::string& load_balancer) {
  for (const Process& p : st.processes) {
    if (p.role != Role::kSwitch) continue;
    const std::optional<json> r = telemetry(p.prefix, "/spraylab/lb_set," + load_balancer);
    if (!r || !r->is_object() || !r->contains("algorithm")) {
      throw std::runtime_error(
          fmt::format("switch {}: /spraylab/lb_set {} failed: {}", p.node, load_balancer,
                      r && r->contains("error") ? (*r)["error"].get<std::string>() : "no answer"));
    }
  }
}

int down(const std::string& name, const std::string& dir_arg, bool verbose) {
  std::string dir;
  try {
    dir = resolve_dir(name, dir_arg);
  } catch (const std::invalid_argument&) {
    if (name.empty()) throw;
    dir = default_dir(name);
  }
  const std::optional<FabricState> st = load_state(dir);
  const std::string fabric = st ? st->name : safe_name(name);
  if (fabric.empty()) throw std::invalid_argument("fabric down: name the fabric");
  // Everything that may be there: the recorded processes and namespaces, and any namespace of
  // the fabric's prefix (`up` may have died before it recorded them).
  std::set<std::string> namespaces;
  std::set<std::string> prefixes;
  std::map<int, std::string> pids;  // pid -> node
  if (st) {
    for (const Process& p : st->processes) {
      namespaces.insert(p.netns);
      prefixes.insert(p.prefix);
      if (alive(p.pid) && is_ours(p.pid, p.prefix)) pids[p.pid] = p.node;
    }
  }
  for (const std::string& n : namespaces_with_prefix(ns_prefix(fabric))) {
    namespaces.insert(n);
    prefixes.insert(n);
  }
  for (const std::string& n : namespaces) {
    for (int pid : pids_in_namespace(n)) pids[pid] = n;
  }
  // Politely first (the switch and the generator stop their ports and EAL), then SIGKILL.
  for (const auto& kv : pids) kill(kv.first, SIGTERM);
  const auto t0 = std::chrono::steady_clock::now();
  auto any_alive = [&] {
    for (const auto& kv : pids) {
      reap(kv.first);
      if (alive(kv.first)) return true;
    }
    return false;
  };
  while (any_alive() && since(t0) < 3) sleep_ms(20);
  uint32_t killed = 0;
  for (const auto& kv : pids) {
    if (alive(kv.first)) {
      kill(kv.first, SIGKILL);
      ++killed;
    }
  }
  while (any_alive() && since(t0) < 8) sleep_ms(20);
  std::error_code ec;
  // The host's ends of the mgmt0 veths first: deleting one end removes the pair at once, while a
  // namespace's links go only when the kernel's cleanup of the namespace runs, a moment after
  // `ip netns del` returns (a check right after down once found a host end still there).
  const MgmtNet mgmt = mgmt_net(fabric);
  for (const std::string& link : mgmt_links_on_host(mgmt)) {
    if (link != mgmt.bridge) run_command({"ip", "link", "del", link}, true);
  }
  for (const std::string& n : namespaces) run_command({"ip", "netns", "del", n}, true);
  run_command({"ip", "link", "del", mgmt.bridge}, true);
  // A link made by an `ip` that `up` had started before it died can appear after the loop above.
  for (const auto t1 = std::chrono::steady_clock::now();
       !mgmt_links_on_host(mgmt).empty() && since(t1) < 5; sleep_ms(50)) {
    for (const std::string& link : mgmt_links_on_host(mgmt)) run_command({"ip", "link", "del", link}, true);
  }
  fs::remove(discovery_path(dir), ec);
  fs::remove(shared_discovery_path(fabric), ec);
  for (const auto& e : fs::directory_iterator(kDpdkRunDir, ec)) {
    if (e.path().filename().string().starts_with(ns_prefix(fabric)))
      prefixes.insert(e.path().filename().string());
  }
  for (const std::string& p : prefixes) remove_runtime_files(p);
  fs::remove_all(fs::path(dir) / "sock", ec);
  fs::remove(fs::path(dir) / "start", ec);
  fs::remove(state_path(dir), ec);
  const std::vector<std::string> left = namespaces_with_prefix(ns_prefix(fabric));
  const std::vector<std::string> links_left = mgmt_links_on_host(mgmt);
  fmt::print(verbose ? stdout : stderr,
             "fabric {}: {} processes stopped ({} with SIGKILL), {} namespaces removed{}{}\n", fabric,
             pids.size(), killed, namespaces.size(),
             left.empty() ? "" : fmt::format("; {} namespaces could not be removed", left.size()),
             links_left.empty() ? ""
                                : fmt::format("; links left on the host: {}", fmt::join(links_left, " ")));
  return left.empty() && links_left.empty() && !any_alive() ? 0 : 1;
}

}  // namespace spraylab::fabric::namespaced
