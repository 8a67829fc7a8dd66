#include "fabric/namespaced/plan.h"

#include <fmt/format.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <optional>
#include <stdexcept>

#include "conf/cli_checks.h"
#include "conf/loader.h"
#include "conf/units.h"
#include "fabric/namespaced/link_events.h"
#include "fabric/namespaced/pfc_headroom.h"
#include "fabric/run/time_scale.h"
#include "fabric/run/variants.h"
#include "switch/switch_options.h"
#include "topo/build.h"
#include "trafficgen/gen_options.h"

namespace spraylab::fabric::namespaced {
namespace {

namespace fs = std::filesystem;

// EAL memory per process, in ordinary (--no-huge) memory: only what a process touches is
// resident. A switch's rte_lpm alone reserves 64 MB (its first level), so 20 switches would take
// 1.3 GB of the 2 GB of hugepages scripts/setup.sh reserves; anonymous memory costs what is used.
constexpr int kSwitchMemoryMb = 512;
constexpr int kGenMemoryMb = 256;
constexpr uint32_t kSwitchMbufs = 4096;
// net_af_xdp fills each rx queue's fill ring from the port's pool when the queue is set up: 2048
// mbufs a port in DPDK 22.11 (ETH_AF_XDP_DFLT_NUM_DESCS), on top of what the switch itself holds.
constexpr uint32_t kAfXdpFillMbufs = 2048;
constexpr int kSwitchMetricsPort = 9561;
constexpr int kGenMetricsPort = 9562;
// A frame's bytes besides its payload, rounded up: Ethernet, IPv4, UDP and the testbed header
// (82 B), FCS, preamble and inter-frame gap.
constexpr uint64_t kFrameOverheadBytes = 128;

std::string lcores_arg() {
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  // One lcore, free to run on every CPU: the scheduler spreads the processes.
  return cpus > 1 ? fmt::format("0@(0-{})", cpus - 1) : "0@0";
}

std::vector<std::string> eal_args(const std::string& prefix, int memory_mb) {
  return {"--lcores", lcores_arg(), "--no-pci", "--no-huge", "-m", fmt::to_string(memory_mb),
          "--file-prefix", prefix, "--log-level", "lib.eal:error",
          // vhost-user's negotiation otherwise fills a log with a page per link.
          "--log-level", "lib.vhost.config:warning"};
}

// A memif ring's descriptors, as log2 (memif's rsize): 512 each way, 8 MB of shared memory a link.
constexpr uint32_t kMemifRingLog2 = 9;
// An af_xdp port's rx ring: DPDK 22.11's default (ETH_AF_XDP_DFLT_NUM_DESCS).
constexpr uint32_t kAfXdpRingSlots = 2048;

std::string memif_vdev(uint32_t index, bool server, const std::string& socket) {
  // bsize=8192: a frame of up to 8 KB in one descriptor (22.11's memif mangles frames chained
  // over several: the demo's 4 KB payloads looped as phantom frames at 2 KB).
  return fmt::format("net_memif{},role={},id=0,socket={},socket-abstract=no,bsize=8192,rsize={}",
                     index, server ? "server" : "client", socket, kMemifRingLog2);
}

// vhost-user links: the end nearer the core owns the socket as a net_vhost port (the vhost-user
// server, as a virtual switch does), the other end is a net_virtio_user port on it (a VM's view).
// virtio-user hands its memory to the server by file descriptor: --no-huge memory is a memfd in
// DPDK 22.11, so it can. 1024 descriptors: an idle-sleeping receiver's ring must hold what
// arrives while it sleeps (virtio-user fills its rx ring from its pool: kVirtioRxMbufs a port).
constexpr uint32_t kVirtioQueueSize = 1024;
constexpr uint32_t kVirtioRxMbufs = kVirtioQueueSize;

// Frames a link of kind `links` holds one way between its two processes.
uint32_t ring_slots(LinkKind links) {
  switch (links) {
    case LinkKind::kVeth:
      return kAfXdpRingSlots;
    case LinkKind::kVhost:
      return kVirtioQueueSize;
    case LinkKind::kMemif:
      break;
  }
  return 1u << kMemifRingLog2;
}

std::string vhost_vdev(uint32_t index, bool server, const std::string& socket) {
  if (server) return fmt::format("net_vhost{},iface={},queues=1", index, socket);
  return fmt::format("net_virtio_user{},path={},queues=1,queue_size={}", index, socket,
                     kVirtioQueueSize);
}

// The socket-backed link kinds: memif or vhost-user, one socket file per link.
std::string socket_vdev(LinkKind links, uint32_t index, bool server, const std::string& socket) {
  return links == LinkKind::kVhost ? vhost_vdev(index, server, socket)
                                   : memif_vdev(index, server, socket);
}

// The net_af_xdp port of a veth end: one queue, the switch's XDP program (it passes what is not
// the testbed's to the kernel, docs/switch-ports.md).
std::string veth_vdev(uint32_t index, const Wiring& w) {
  return fmt::format("net_af_xdp{},iface={},start_queue=0,queue_count=1,xdp_prog={}", index,
                     veth_name(index), w.xdp_prog);
}

// What every process of a plan is planned from.
struct PlanInput {
  const std::string& fabric;
  const topo::Topology& t;
  const Options& o;
  const Wiring& w;
  uint8_t top = 0;  // the highest switch level: its switches start first

  // The socket file of `server`'s port `port` (memif, vhost-user).
  std::string socket_of(topo::NodeId server, topo::PortId port) const {
    return fmt::format("{}/{}-p{}.sock", (fs::path(w.dir) / "sock").string(), t.node(server).name,
                       port);
  }
  // Real time only for a process that sleeps when idle: a busy-polling one (--idle-sleep '') in
  // SCHED_RR would hold its CPU from everything else, and the programs refuse the pair.
  int rt_priority() const { return o.idle_sleep.empty() ? 0 : w.rt_priority; }
};

void append(std::vector<std::string>& argv, const std::vector<std::string>& more) {
  argv.insert(argv.end(), more.begin(), more.end());
}

// A process's name, namespace, EAL file prefix and log; its program and EAL arguments.
Process process_of(const PlanInput& in, const std::string& node, Role role, int wave,
                   const std::string& program, int memory_mb) {
  Process p;
  p.node = node;
  p.role = role;
  p.wave = wave;
  p.netns = ns_prefix(in.fabric) + safe_name(node);
  p.prefix = p.netns;
  p.log = fs::path(in.w.dir) / "logs" / (node + ".log");
  p.argv = {program};
  append(p.argv, eal_args(p.prefix, memory_mb));
  return p;
}

// A switch's ports, one --vdev each in port order; returns how many are clients (on a socket the
// peer serves).
uint32_t add_switch_ports(const PlanInput& in, topo::NodeId s, Process& p) {
  const topo::Node& n = in.t.node(s);
  uint32_t clients = 0;
  for (topo::PortId port = 0; port < in.t.degree(s); ++port) {
    const topo::PortRef peer = in.t.peer(s, port);
    const topo::Node& pn = in.t.node(peer.node);
    bool server = true;
    if (pn.kind == topo::NodeKind::kSwitch) {
      if (pn.level == n.level) {
        // check_runnable refused it before any process was planned.
        throw std::logic_error(fmt::format("{} and {}: a link within one level", n.name, pn.name));
      }
      server = n.level > pn.level;
    }
    p.argv.push_back("--vdev");
    if (in.o.links == LinkKind::kVeth) {
      p.argv.push_back(veth_vdev(port, in.w));
      continue;
    }
    const std::string path = server ? in.socket_of(s, port) : in.socket_of(peer.node, peer.port);
    if (server) p.serves.push_back(path);
    if (!server) ++clients;
    p.argv.push_back(socket_vdev(in.o.links, port, server, path));
  }
  return clients;
}

Process switch_process(const PlanInput& in, topo::NodeId s) {
  const topo::Node& n = in.t.node(s);
  Process p =
      process_of(in, n.name, Role::kSwitch, in.top - n.level, in.w.switch_bin, kSwitchMemoryMb);
  p.metrics = fmt::format("{}:{}", in.w.metrics_host, kSwitchMetricsPort);
  p.ports = static_cast<uint32_t>(in.t.degree(s));
  const uint32_t clients = add_switch_ports(in, s, p);
  dataplane::SwitchOptions so;
  so.config = in.w.experiment;
  so.switch_name = n.name;
  so.idle_sleep = in.o.idle_sleep;
  // The switch refuses --deep-sleep without --idle-sleep: a busy poller never sleeps deeper.
  if (!in.o.idle_sleep.empty()) so.deep_sleep = in.o.deep_sleep;
  so.rt_priority = in.rt_priority();
  so.mbufs = kSwitchMbufs + (in.o.links == LinkKind::kVeth ? kAfXdpFillMbufs * p.ports : 0) +
             (in.o.links == LinkKind::kVhost ? kVirtioRxMbufs * clients : 0);
  if (in.w.shaper_slack_bytes > 0) so.shaper_slack = fmt::to_string(in.w.shaper_slack_bytes);
  so.metrics.set_address(p.metrics);
  p.argv.push_back("--");
  append(p.argv, so.to_argv());
  return p;
}

// The spraylab-gen of a leaf's hosts: one port per host, in the leaf's port order.
Process gen_process(const PlanInput& in, topo::NodeId leaf) {
  const topo::Node& n = in.t.node(leaf);
  Process p = process_of(in, gen_node(n.name), Role::kGen, in.top + 1, in.w.gen_bin, kGenMemoryMb);
  p.results = fs::path(in.w.dir) / "results" / (p.node + ".json");
  p.metrics = fmt::format("{}:{}", in.w.metrics_host, kGenMetricsPort);
  for (topo::PortId port = 0; port < in.t.degree(leaf); ++port) {
    const topo::PortRef peer = in.t.peer(leaf, port);
    if (in.t.node(peer.node).kind != topo::NodeKind::kHost) continue;
    p.argv.push_back("--vdev");
    p.argv.push_back(in.o.links == LinkKind::kVeth
                         ? veth_vdev(p.ports, in.w)
                         : socket_vdev(in.o.links, p.ports, false, in.socket_of(leaf, port)));
    ++p.ports;
    p.hosts.push_back(in.t.node(peer.node).name);
  }
  gen::GenOptions go;
  go.config = in.w.experiment;
  for (const auto& h : p.hosts) go.hosts += (go.hosts.empty() ? "" : ",") + h;
  go.start_file = (fs::path(in.w.dir) / "start").string();
  go.results = p.results;
  go.idle_sleep = in.o.idle_sleep;
  go.rt_priority = in.rt_priority();
  go.link_wait = in.o.link_timeout_s;
  go.timeout = in.o.run_timeout_s;
  go.metrics.set_address(p.metrics);
  p.argv.push_back("--");
  append(p.argv, go.to_argv());
  return p;
}

}  // namespace

std::string safe_name(const std::string& s) {
  std::string out = s;
  for (char& c : out) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') c = '_';
  }
  return out;
}

std::string ns_prefix(const std::string& fabric) { return "sl-" + fabric + "-"; }

std::string gen_node(const std::string& leaf) { return "g-" + leaf; }

std::string veth_name(uint32_t index) { return fmt::format("eth{}", index + 1); }

MgmtNet mgmt_net(const std::string& fabric) {
  uint32_t h = 2166136261u;  // FNV-1a: the same name gives the same network on every run
  for (unsigned char c : fabric) h = (h ^ c) * 16777619u;
  // 10.200.0.0 - 10.249.255.0: away from the 10.0-10.199 a site is likelier to use.
  return {fmt::format("slb{:08x}", h), fmt::format("10.{}.{}.", 200 + h % 50, (h / 50) % 256)};
}

std::string MgmtNet::host_veth(size_t index) const {
  // An interface name has at most 15 characters: "slv", 6 hex digits of the bridge's, the index.
  return fmt::format("slv{}-{}", bridge.substr(5), index);
}

uint64_t shaper_slack_bytes(const conf::Experiment& exp) {
  // Two of the workload's frames (payload, headers, FCS, preamble and gap), as the generator's
  // pacer may catch up two frames after a late turn (trafficgen/host_engine.cpp).
  return 2 * (uint64_t{exp.workload.payload_bytes} + kFrameOverheadBytes);
}

namespace {

// The buffer.pfc keys the experiment file sets itself (the loader filled in the others), from one
// parse of its text.
struct FilePfcKeys {
  bool headroom = false;
  bool xoff = false;
};

FilePfcKeys file_pfc_keys(const std::string& text) {
  const YAML::Node root = YAML::Load(text);
  // A key the file lacks is an invalid node: IsDefined() first, every other test throws on it.
  const YAML::Node buffer = root["buffer"];
  if (!buffer.IsDefined() || !buffer.IsMap()) return {};
  const YAML::Node pfc = buffer["pfc"];
  if (!pfc.IsDefined() || !pfc.IsMap()) return {};
  return {pfc["headroom"].IsDefined(), pfc["xoff"].IsDefined()};
}

// flow_control: pfc: the headroom of links whose processes sleep between polls (pfc_headroom.h)
// as buffer.pfc.headroom where the file sets none (XOFF, if the file sets none either, is the
// buffer less it: conf/buffer_defaults.h). Refused where the buffer cannot hold it; a file's own
// headroom below it is kept, and said.
void add_pfc_headroom(const std::string& text, const conf::Experiment& exp, const Options& o,
                      double scale, VariantRequest& request) {
  conf::Experiment run = exp;
  slow_down(&run, scale);
  if (o.links == LinkKind::kVeth) {
    run.workload.payload_bytes = std::min(run.workload.payload_bytes, kVethPayloadBytes);
  }
  const PollingLink link{run.links, run.workload.payload_bytes,
                         conf::sleep_cap_ns(o.idle_sleep).value_or(0), shaper_slack_bytes(run),
                         ring_slots(o.links)};
  const uint64_t headroom = polling_pfc_headroom_bytes(link);
  const uint64_t bytes = exp.buffer.bytes;
  const FilePfcKeys file = file_pfc_keys(text);
  if (file.headroom) {
    if (exp.buffer.pfc.headroom < headroom) {
      fmt::print(stderr,
                 "note: buffer.pfc.headroom {} B is below what a pause has behind it on this "
                 "fabric ({}): pfc_headroom drops may follow (docs/switch.md, \"Wall clock\")\n",
                 exp.buffer.pfc.headroom, polling_pfc_headroom_why(link));
    }
    return;
  }
  const bool xoff = file.xoff;
  if (headroom >= bytes || (xoff && exp.buffer.pfc.xoff + headroom > bytes)) {
    throw std::invalid_argument(fmt::format(
        "buffer.flow_control: pfc on a namespaced fabric: the PFC headroom its links need ({}) "
        "does not fit in buffer.bytes ({} B){}: a larger buffer.bytes, a shorter --idle-sleep or "
        "a slower --rate, or a buffer.pfc.headroom of the file's own (docs/switch.md, \"Wall "
        "clock\")",
        polling_pfc_headroom_why(link), bytes,
        xoff ? fmt::format(" above buffer.pfc.xoff ({} B)", exp.buffer.pfc.xoff)
             : std::string(" with room below XOFF")));
  }
  fmt::print(stderr, "note: buffer.pfc.headroom {} (docs/switch.md, \"Wall clock\")\n",
             polling_pfc_headroom_why(link));
  request.sets.push_back({"buffer.pfc.headroom", {fmt::to_string(headroom)}});
}

}  // namespace

void check_runnable(const conf::Experiment& e) {
  for (const conf::ExplicitLink& l : e.topology.links) {
    if (l.rate_bps || l.delay_ns) {
      throw std::invalid_argument(fmt::format(
          "{}: the namespaced fabric runs every link at links.rate and links.delay: per-link rates "
          "or delays of an explicit topology ({} - {}) are not supported yet (issue 15)",
          e.source, l.a, l.b));
    }
  }
  if (e.buffer.virtual_channels > 1) {
    throw std::invalid_argument(fmt::format(
        "{}: buffer.virtual_channels: {} runs in virtual time and on the in-process fabric only; "
        "the namespaced fabric's spraylab-switch takes 1 (docs/switch.md, \"Deadlock and "
        "virtual channels\")",
        e.source, e.buffer.virtual_channels));
  }
  if (e.buffer.flow_control == conf::FlowControl::kCredit) {
    // Its switches are spraylab-switch processes, which send pause frames (and spraylab-gen
    // obeys them) but no credit frames: a credit link would never get its credits back.
    throw std::invalid_argument(fmt::format(
        "{}: buffer.flow_control: credit runs in virtual time and on the in-process fabric only, "
        "not on the namespaced fabric (docs/switch.md, \"Credit-based links\")",
        e.source));
  }
  check_events(e);
  // A switch process serves the links to the level below and is a client above (memif's roles):
  // a link within one level has no such order.
  const topo::Topology t = topo::build(e.topology, e.links);
  for (topo::NodeId s : t.switches()) {
    for (topo::PortId port = 0; port < t.degree(s); ++port) {
      const topo::Node& peer = t.node(t.peer(s, port).node);
      if (peer.kind == topo::NodeKind::kSwitch && peer.level == t.node(s).level) {
        throw std::invalid_argument(fmt::format(
            "{}: {} and {} are switches of one level; the namespaced fabric does not support "
            "links between them yet (issue 15)",
            e.source, t.node(s).name, peer.name));
      }
    }
  }
}

void check_process_count(uint64_t processes, const std::string& what) {
  if (processes <= kMgmtMaxProcesses) return;
  throw std::invalid_argument(fmt::format(
      "{}: a namespaced fabric of {} processes (a switch each, a generator per leaf); its "
      "management network (one /24) holds {}",
      what, processes, kMgmtMaxProcesses));
}

std::string fabric_experiment(const Options& o, double* rate_bps, double* scale) {
  return fabric_experiment_of(conf::read_experiment_text(o.experiment), o.experiment, o,
                              rate_bps, scale);
}

std::string fabric_experiment_of(const std::string& text, const std::string& source,
                                 const Options& o, double* rate_bps, double* scale) {
  const conf::Experiment exp = conf::load_experiment_string(text, source);
  double fastest = exp.links.rate_bps;
  check_runnable(exp);
  VariantRequest request;
  request.algorithms_option = "--algorithm";
  // Its settings are the fabric's, not the user's --set: errors say so.
  request.set_origin = "the namespaced fabric's";
  if (!o.algorithm.empty()) request.algorithms = {o.algorithm};
  // An af_xdp frame is one umem chunk (at most a 4 KB page, less its headroom) in DPDK 22.11, and
  // a veth's MTU is 1500: a larger payload is cut to what fits, and said.
  if (o.links == LinkKind::kVeth && exp.workload.payload_bytes > kVethPayloadBytes) {
    request.sets.push_back({"workload.payload", {fmt::to_string(kVethPayloadBytes)}});
    fmt::print(
        stderr,
        "note: veth links: workload.payload {} -> {} (af_xdp frames fit one 1500-byte MTU)\n",
        exp.workload.payload_bytes, kVethPayloadBytes);
  }
  *rate_bps = fastest;
  *scale = 1;
  if (o.rate != "file") {
    const std::string text_rate = o.rate.empty() ? conf::format_rate(kNamespacedRateBps) : o.rate;
    const std::optional<double> bps = conf::parse_rate_bps(text_rate);
    if (!bps || *bps <= 0) {
      throw std::invalid_argument(
          fmt::format("--rate {}: expected a rate such as 100Mbps, or 'file'", text_rate));
    }
    // The same slowing down as the in-process fabric's (run/time_scale.h), as settings of the
    // file every process reads.
    const double k = slowdown_factor(exp, *bps);
    if (k > 1) {
      *rate_bps = *bps;
      *scale = k;
      for (auto& [key, value] : slow_down_settings(exp, k)) request.sets.push_back({key, {value}});
    }
  }
  if (exp.buffer.flow_control == conf::FlowControl::kPfc) {
    add_pfc_headroom(text, exp, o, *scale, request);
  }
  const std::vector<Variant> variants = expand_variants(text, source, request);
  return variants.at(0).yaml;
}

// Every process of the fabric: a spraylab-switch per switch, a spraylab-gen per leaf's hosts.
// memif and vhost-user: the end nearer the core listens (memif role=server, net_vhost; a leaf for
// its hosts), so processes start level by level from the core down and every client finds its
// server's socket file.
std::vector<Process> plan_processes(const std::string& name, const topo::Topology& t,
                                    const Options& o, const Wiring& w) {
  PlanInput in{name, t, o, w};
  for (topo::NodeId s : t.switches()) in.top = std::max(in.top, t.node(s).level);
  std::vector<Process> out;
  for (topo::NodeId s : t.switches()) out.push_back(switch_process(in, s));
  for (topo::NodeId leaf : t.leaves()) out.push_back(gen_process(in, leaf));
  return out;
}

std::vector<NodeLink> node_links(const topo::Topology& t) {
  std::vector<NodeLink> out;
  for (topo::NodeId s : t.switches()) {
    const topo::Node& n = t.node(s);
    uint32_t host_ports = 0;  // a leaf's generator numbers its ports in the leaf's port order
    for (topo::PortId port = 0; port < t.degree(s); ++port) {
      const topo::PortRef peer = t.peer(s, port);
      const topo::Node& pn = t.node(peer.node);
      if (pn.kind == topo::NodeKind::kHost) {
        out.push_back({{n.name, veth_name(port)}, {gen_node(n.name), veth_name(host_ports++)}});
      } else if (n.level > pn.level) {  // each switch link once, from its upper end
        out.push_back({{n.name, veth_name(port)}, {pn.name, veth_name(peer.port)}});
      }
    }
  }
  return out;
}

nlohmann::ordered_json discovery_targets(const std::string& fabric,
                                         const std::vector<Process>& processes) {
  nlohmann::ordered_json targets = nlohmann::ordered_json::array();
  for (const Process& p : processes) {
    targets.push_back(
        {{"targets", {p.metrics}},
         {"labels", {{"fabric", fabric}, {"node", p.node}, {"role", role_name(p.role)}}}});
  }
  return targets;
}

}  // namespace spraylab::fabric::namespaced
