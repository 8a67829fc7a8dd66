// The namespaced fabric (issue 15, docs/fabric.md "One process per node"): every switch of an
// experiment is a spraylab-switch process and every leaf's hosts a spraylab-gen process, each in
// a network namespace of its own, wired with memif links whose socket files live in the fabric's
// folder. `spraylab fabric up|status|start|down` (cli/fabric_cli.cpp) drive it; this file plans
// the processes and starts, inspects and removes them. It runs the two programs as they are: a
// launcher, not a data path.
#pragma once

#include <csignal>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "fabric/namespaced/names.h"

namespace spraylab::fabric::namespaced {

// The default link rate: what this 2-CPU machine sustains with 28 processes (docs/fabric.md).
inline constexpr double kNamespacedRateBps = 100e6;
// veth links: the largest payload whose frame fits a 1500-byte MTU and an af_xdp chunk (the
// fabric cuts a larger one to it, and says so).
inline constexpr uint32_t kVethPayloadBytes = 1400;
inline constexpr int kNamespacedNice = -10;
// --rt-priority's default: by link kind (namespaced_rt_priority).
inline constexpr int kNamespacedRtPriority = -1;

// The data path's SCHED_RR priority a fabric of `links` gets when --rt-priority is -1: 1 over
// veth, 0 (the fair scheduler at --nice) over memif and vhost. Over veth a third of memif's frame
// size means three times the wake-ups, and under the fair scheduler they came late enough to fill
// every switch's queues; over memif real time made the balancers' ranking less repeatable, for a
// reason not yet known. The measurements: docs/fabric.md, "Real-time wake-ups".
inline int namespaced_rt_priority(int rt_priority, LinkKind links) {
  if (rt_priority >= 0) return rt_priority;
  return links == LinkKind::kVeth ? 1 : 0;
}

// A namespaced fabric as `fabric up`, `fabric export` and `spraylab run --mode namespaced` bring
// it up: one struct, one set of defaults (docs/fabric.md lists them).
struct Options {
  std::string experiment;  // the experiment file
  LinkKind links = LinkKind::kMemif;
  std::string rate;       // the fastest link's ("100Mbps", time_scale.h); "file"; "": default
  std::string dir;        // the fabric's folder; "": /run/spraylab/<name>
  std::string name;       // "": the experiment's name
  std::string algorithm;  // "": the file's load_balancer.algorithm
  std::string idle_sleep = "20ms";  // --idle-sleep of every process
  // Every switch's --deep-sleep: its longest sleep after 2 s without a frame. `start` and the
  // runner wake the switches (SIGUSR1) before they release the generators (docs/fabric.md).
  std::string deep_sleep = "100ms";
  // Every process's nice value. A process that sleeps whenever its polls come back empty wakes
  // for every frame, and on a busy machine each wake-up waits behind the other runnable tasks:
  // at -10 it goes first (as the in-process fabric's worker does), so a shaper slot is not
  // missed because a compiler holds the CPU (docs/fabric.md).
  int nice = kNamespacedNice;
  // Every process's data path in SCHED_RR at this priority (0: not), on top of the nice value,
  // because nice alone still let a busy machine delay a switch's wake-ups by milliseconds and its
  // links lost most of their rate (net/realtime.h, docs/fabric.md "Real-time wake-ups"). -1: by
  // link kind (namespaced_rt_priority). Safe as every process sleeps when idle (--idle-sleep is
  // required with it), and the kernel's real-time throttling leaves the rest of the machine 5% of
  // each CPU even if the fabric wanted it all.
  int rt_priority = kNamespacedRtPriority;
  // For every process to report its links up: 28 processes on this 2-CPU machine take 15-25 s,
  // more with other work beside them.
  double link_timeout_s = 120;
  double run_timeout_s = 300;  // each generator's --timeout
  // false: one line on stderr instead of the process table on stdout (`spraylab run`, whose
  // stdout is the results table).
  bool verbose = true;
};

// One process of the fabric, as planned and (pid) as started.
struct Process {
  std::string node;  // a switch's name, or "g-<leaf>" for a leaf's hosts
  Role role = Role::kSwitch;
  int wave = 0;  // start order: servers of memif sockets before their clients
  std::string netns;
  std::string prefix;  // EAL --file-prefix
  std::string log;
  uint64_t log_from = 0;  // where this process's lines start in `log` (appended to on a restart)
  std::string metrics;    // host:port inside its namespace
  std::vector<std::string> argv;
  std::vector<std::string> serves;  // memif / vhost-user socket files it listens on
  std::vector<std::string> hosts;   // gen: the hosts it emulates
  std::string results;              // gen: its results JSON
  uint32_t ports = 0;
  int pid = 0;
};

struct FabricState {
  std::string name;
  std::string dir;
  std::string experiment;  // the fabric's own copy (rate applied)
  LinkKind links = LinkKind::kMemif;
  double rate_bps = 0;
  double time_scale = 1;
  int nice = 0;              // of every process (UpOptions::nice)
  std::string spraylab_bin;  // the folder of spraylab-switch and spraylab-gen
  std::vector<Process> processes;
};

// The folder of a fabric by name: /run/spraylab/<name>.
std::string default_dir(const std::string& name);
// `dir` if given, else the folder of `name`, else that of the one fabric that is up. Throws
// std::invalid_argument when there is none or several.
std::string default_dir_of(const std::string& name, const std::string& dir);

// `fabric up`: plans, starts and waits for every process; writes <dir>/state.json. Returns 0
// when every process reports its links up, 1 otherwise (the processes are left for `down`).
int up(const Options& o);
// `fabric status`: processes, links, queue depths; with cpu_seconds > 0 also each process's CPU
// over that many seconds. Returns 0 when every process is alive.
int status(const std::string& dir, double cpu_seconds);
// `fabric start`: starts the workload on every generator at once and waits for them; prints
// what they report. Generators that ran before (an earlier start) are replaced by a fresh set
// first; with `again`, a fresh set starts afterwards, ready for the next start.
int start(const std::string& dir, double timeout_s, bool again);
// `fabric down`: every process, namespace, socket, runtime and hugepage file of fabric `name`,
// whatever state it is in (also after a kill -9 of any part, or of `up` itself). Its one line
// goes to stdout, or to stderr when not `verbose`.
int down(const std::string& name, const std::string& dir, bool verbose = true);

// What `spraylab run --mode namespaced` (fabric/namespaced/run_namespaced.cpp) drives a fabric
// with.
//
// While `*flag` is set (a signal handler's), up()'s waits throw std::runtime_error("interrupted")
// instead of waiting on; null: never.
void set_interrupt_flag(const volatile std::sig_atomic_t* flag);
// The state `up` recorded in `dir`; throws std::invalid_argument when there is none.
FabricState read_state(const std::string& dir);
// True while `p` runs and is still the process started (reaps it once it has exited).
bool running(const Process& p);
// One connection to the DPDK telemetry socket of the process with EAL file prefix `prefix`, kept
// for many commands: each new connection costs the process a thread (DPDK starts one per
// client), which a busy machine feels when a run samples 20 switches every 50 ms.
class TelemetrySession {
 public:
  explicit TelemetrySession(std::string prefix);
  ~TelemetrySession();
  TelemetrySession(const TelemetrySession&) = delete;
  TelemetrySession& operator=(const TelemetrySession&) = delete;
  // The reply's value, or nullopt when the process does not answer.
  std::optional<nlohmann::ordered_json> command(const std::string& command);

 private:
  bool open_socket();
  std::string prefix_;
  int fd_ = -1;
};

// A DPDK telemetry command to the process with EAL file prefix `prefix`, its reply's value, or
// nullopt when it does not answer.
std::optional<nlohmann::ordered_json> telemetry(const std::string& prefix,
                                                const std::string& command);
// Resets every switch's queue maxima and lets every waiting generator start `delay_s` from now
// (the start file). Returns that start as UNIX time in seconds. Throws std::runtime_error when a
// generator is not waiting for the start.
double release_generators(const FabricState& st, double delay_s);
// SIGTERM to every generator still running: each stops and writes its results.
void stop_generators(const FabricState& st);
// A fresh set of generators, waiting for the next release (`fabric start --again`): the old ones
// are stopped first (SIGTERM, SIGKILL after 3 s). `st` gets the new pids. False when one is not
// ready within 60 s.
bool restart_generators(FabricState& st);
// Every switch's load balancer (telemetry /spraylab/lb_set, docs/switch.md): `load_balancer` is
// the experiment's load_balancer section as a YAML flow map. Throws std::runtime_error naming a
// switch that refused it.
void set_balancers(const FabricState& st, const std::string& load_balancer);

}  // namespace spraylab::fabric::namespaced
