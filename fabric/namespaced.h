// The namespaced fabric (issue 15, docs/fabric.md "One process per node"): every switch of an
// experiment is a spraylab-switch process and every leaf's hosts a spraylab-gen process, each in
// a network namespace of its own, wired with memif links whose socket files live in the fabric's
// folder. `spraylab fabric up|status|start|down` (namespaced_cli.cpp) drive it; this file plans
// the processes and starts, inspects and removes them. It runs the two programs as they are: a
// launcher, not a data path.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace spraylab::fabric::ns {

// The default link rate: what this 2-CPU machine sustains with 28 processes (docs/fabric.md).
inline constexpr double kNamespacedRateBps = 100e6;

struct UpOptions {
  std::string experiment;          // the experiment file
  std::string links = "memif";     // only memif so far
  std::string rate;                // every link's rate ("100Mbps"); "file": the file's; "": default
  std::string dir;                 // the fabric's folder; "": /run/spraylab/<name>
  std::string name;                // "": the experiment's name
  std::string algorithm;           // "": the file's load_balancer.algorithm
  std::string idle_sleep = "20ms";  // --idle-sleep of every process
  double link_timeout_s = 60;      // for every process to report its links up
  double run_timeout_s = 300;      // each generator's --timeout
};

// One process of the fabric, as planned and (pid) as started.
struct Process {
  std::string node;  // a switch's name, or "g-<leaf>" for a leaf's hosts
  std::string role;  // "switch" or "gen"
  int wave = 0;      // start order: servers of memif sockets before their clients
  std::string netns;
  std::string prefix;  // EAL --file-prefix
  std::string log;
  std::string metrics;  // host:port inside its namespace
  std::vector<std::string> argv;
  std::vector<std::string> serves;  // memif socket files it listens on
  std::vector<std::string> hosts;   // gen: the hosts it emulates
  std::string results;              // gen: its results JSON
  uint32_t ports = 0;
  int pid = 0;
};

struct FabricState {
  std::string name;
  std::string dir;
  std::string experiment;  // the fabric's own copy (rate applied)
  std::string links;
  double rate_bps = 0;
  double time_scale = 1;
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
int up(const UpOptions& o);
// `fabric status`: processes, links, queue depths; with cpu_seconds > 0 also each process's CPU
// over that many seconds. Returns 0 when every process is alive.
int status(const std::string& dir, double cpu_seconds);
// `fabric start`: starts the workload on every generator at once and waits for them; prints
// what they report. With `again`, starts a fresh set of generators afterwards for another run.
int start(const std::string& dir, double timeout_s, bool again);
// `fabric down`: every process, namespace, socket, runtime and hugepage file of fabric `name`,
// whatever state it is in (also after a kill -9 of any part, or of `up` itself).
int down(const std::string& name, const std::string& dir);

}  // namespace spraylab::fabric::ns
