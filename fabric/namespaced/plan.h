// How an experiment becomes processes and links, for the namespaced fabric (`spraylab fabric up`,
// fabric/namespaced/launcher.cpp) and for its containerlab export
// (fabric/namespaced/containerlab.cpp), so both run the same command lines: one spraylab-switch per
// switch, one spraylab-gen per leaf's hosts, and every link either a memif socket in the fabric's
// folder or a veth pair whose ends are the nodes' eth1, eth2, ... (containerlab's names), read by
// net_af_xdp with the switch's own XDP program.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "conf/experiment.h"
#include "fabric/namespaced/launcher.h"
#include "topo/topology.h"

namespace spraylab::fabric::namespaced {

// What only the caller knows of a fabric's processes: where things are as the processes see them
// (the launcher's paths in a namespace, the container's paths in an export) and what it resolved
// for this machine. Everything else (link kind, sleeps, timeouts) is the fabric's Options.
struct Wiring {
  std::string dir;                         // the fabric's folder: sock/, results/, start
  std::string experiment;                  // the experiment file the processes read
  std::string switch_bin;                  // spraylab-switch
  std::string gen_bin;                     // spraylab-gen
  std::string xdp_prog;                    // veth: the XDP program of the switch's net_af_xdp ports
  std::string metrics_host = "127.0.0.1";  // where each process serves /metrics
  // Every process's --rt-priority, resolved (namespaced_rt_priority; 0: the fair scheduler).
  // Not passed when Options::idle_sleep is empty (busy polling).
  int rt_priority = 0;
  // Every switch's --shaper-slack in bytes (0: the switch's default, a burst of MTU frames).
  uint64_t shaper_slack_bytes = 0;
};

// One end of a process-level link: a node (a switch, or "g-<leaf>") and its interface (veth).
struct LinkEnd {
  std::string node;
  std::string iface;
};
struct NodeLink {
  LinkEnd a;  // the end nearer the core (a leaf for its hosts)
  LinkEnd b;
};

// A name that is safe in a namespace, a file prefix and a path.
std::string safe_name(const std::string& s);
// The prefix of every namespace and EAL file prefix of fabric `fabric`: "sl-<fabric>-".
std::string ns_prefix(const std::string& fabric);
// The generator process of a leaf's hosts.
std::string gen_node(const std::string& leaf);
// A veth end's name: the index-th link of a node is eth<index + 1>, as containerlab names them.
std::string veth_name(uint32_t index);

// What the namespaced fabric cannot run, said before anything starts (`run --mode namespaced`,
// -n included, `fabric up`, `fabric export`): per-link rates or delays of an explicit topology,
// links between switches of one level, credit-based links, more than one virtual channel, and
// link events that need rerouting (check_events). Throws std::invalid_argument naming the
// experiment file.
void check_runnable(const conf::Experiment& e);

// A fabric of more processes than its management network holds (kMgmtMaxProcesses) is refused
// before anything is made (`fabric up`, `run --mode namespaced`); `what` names the experiment.
void check_process_count(uint64_t processes, const std::string& what);

// The experiment as the fabric runs it: the algorithm and the rate applied, time constants
// stretched like the in-process fabric's (docs/fabric.md, "Rates"). Returns the YAML and sets
// *rate_bps and *scale.
std::string fabric_experiment(const Options& o, double* rate_bps, double* scale);
// The same for a document already read: a variant of `spraylab run --mode namespaced` (its -n
// included), `source` naming the file it came from.
std::string fabric_experiment_of(const std::string& text, const std::string& source,
                                 const Options& o, double* rate_bps, double* scale);

// Every switch's shaper slack in a namespaced fabric: two of the workload's frames. Its processes
// sleep between polls, and a switch sends what its slack allows at once on waking: with the
// switch's default (32 MTU frames) the bursts alone made queues of ~100 KB, deeper than what the
// balancers make (docs/fabric.md).
uint64_t shaper_slack_bytes(const conf::Experiment& exp);

// Every process of fabric `name` (a switch per switch, a generator per leaf's hosts) as `o` and
// `w` say, in start order waves: servers of memif sockets before their clients. Each command line
// is written from the program's options struct (switch/switch_options.h, trafficgen/gen_options.h).
std::vector<Process> plan_processes(const std::string& name, const topo::Topology& t,
                                    const Options& o, const Wiring& w);

// The management network of a namespaced fabric: a bridge in the host's namespace and one
// address per process on it (the process's mgmt0), so a Prometheus outside the namespaces reaches
// every /metrics, as containerlab's management network does for containers. Named and numbered
// from the fabric's name alone, so `fabric down` finds it after a crash of anything.
struct MgmtNet {
  std::string bridge;                         // "slb" and 8 hex digits
  std::string prefix;                         // "10.A.B.": the bridge is .1, process i is .(i + 2)
  std::string host_veth(size_t index) const;  // the host's end of process index's mgmt0
};
MgmtNet mgmt_net(const std::string& fabric);
inline constexpr size_t kMgmtMaxProcesses = 250;

// Prometheus file-based service discovery of fabric `fabric`: one target group per process, at
// its metrics address, labelled fabric, node and role (docs/monitoring.md).
nlohmann::ordered_json discovery_targets(const std::string& fabric,
                                         const std::vector<Process>& processes);

// Every link between processes, each once: switch to switch, and a leaf to its generator.
std::vector<NodeLink> node_links(const topo::Topology& t);

}  // namespace spraylab::fabric::namespaced
