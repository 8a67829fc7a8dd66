#include "fabric/cli/size_guard.h"

#include <fmt/format.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <unistd.h>

#include <optional>
#include <stdexcept>

#include "conf/topology_size.h"
#include "fabric/emu/mbuf_pool.h"
#include "switch/dataplane/switch_runtime.h"
#include "switch/lb/algorithm.h"
#include "topo/build.h"
#include "trafficgen/host_plan.h"
#include "trafficgen/workload.h"

namespace spraylab::fabric {
namespace {

// A mempool cache and its flush threshold's overflow per lcore: mbuf_pool.cpp's kCache x 2.
constexpr uint64_t kCacheFramesPerLcore = 2 * 512;

// lf_stack's store: an element (a pointer and a link) for every mbuf the pool may hold, in EAL's
// memory and written whole when the pool is made.
constexpr uint64_t kStoreBytes = 16;

std::string bytes_text(uint64_t bytes) {
  const auto b = static_cast<double>(bytes);
  if (b < 1e4) return fmt::format("{} B", bytes);  // a term: 6656 B, not 7 KB
  if (b < 1e6) return fmt::format("{:.0f} KB", b / 1e3);
  return b < 1e9 ? fmt::format("{:.0f} MB", b / 1e6) : fmt::format("{:.1f} GB", b / 1e9);
}

std::string count_text(uint64_t n) {
  return n < 10'000'000 ? fmt::format("{}", n)
                        : fmt::format("{:.1f} M", static_cast<double>(n) / 1e6);
}

// A frame's bytes in the fabric's pool, as make_pool (fabric/emu/mbuf_pool.cpp) lays it out: the
// mbuf and its buffer (DPDK's headroom and the frame; virtual time's pool is compact, its
// headroom the mbuf's own last bytes), in an object DPDK rounds and heads (rte_mempool_objhdr),
// plus the store's entry. Virtual frames hold their headers only (Fabric::frame_room): 336 B.
uint64_t pool_frame_bytes(Mode mode, uint32_t payload_bytes) {
  const bool compact = mode == Mode::kVirtual;
  const uint32_t frame = gen::kFrameHeaderBytes + (compact ? 0 : payload_bytes);
  const uint32_t elt = sizeof(rte_mbuf) + (compact ? 0 : RTE_PKTMBUF_HEADROOM) + frame;
  rte_mempool_objsz sz{};
  rte_mempool_calc_obj_size(elt, 0, &sz);
  return sz.total_size + kStoreBytes;
}

// What the balancers keep, by the traits of the ones the experiment runs anywhere (its default,
// layers, switches or upgrade): an upper bound when switches differ.
void count_balancer_state(const conf::BalancerPlan& plan, FabricSize& s) {
  lb::Traits any;
  bool all_every_port = true;
  const auto add = [&](const conf::BalancerSpec& b) {
    const lb::Traits& t = lb::info(b.algorithm).traits;
    any.destination_orders |= t.destination_orders;
    any.path_label |= t.path_label;
    all_every_port &= t.every_fabric_port;
  };
  add(plan.fallback);
  for (const auto& [level, b] : plan.per_layer) add(b);
  for (const auto& [name, b] : plan.per_switch) add(b);
  if (plan.upgrade) add(plan.upgrade->balancer);
  s.group_pairs = all_every_port ? 0 : s.pairs;
  s.order_leaf_ports = any.destination_orders ? s.leaves * s.ports : 0;
  s.path_leaf_ports = any.path_label ? s.leaves * s.ports : 0;
}

// The workload's schedule, as the run plan makes it (gen::make_run_plan) but without the routing
// its paths need: an all-pairs search, most of -n's time at 100 K hosts. The workloads defined
// over leaves get each rank's leaf switch (an id of it, as make_workload asks).
gen::RunPlan workload_plan(const conf::Experiment& exp, const topo::Topology& t) {
  std::vector<uint32_t> rank_of_node(t.nodes().size(), UINT32_MAX);
  for (uint32_t r = 0; r < t.hosts().size(); ++r) rank_of_node[t.hosts()[r]] = r;
  std::vector<uint32_t> leaf_of_rank(t.hosts().size(), UINT32_MAX);
  for (topo::NodeId leaf : t.leaves()) {
    for (topo::PortId p = 0; p < t.degree(leaf); ++p) {
      const uint32_t r = rank_of_node[t.peer(leaf, p).node];
      if (r != UINT32_MAX) leaf_of_rank[r] = leaf;
    }
  }
  gen::RunPlan plan;
  plan.schedule = gen::make_workload(exp.workload, static_cast<uint32_t>(t.hosts().size()),
                                     exp.seed, leaf_of_rank);
  plan.payload_bytes = exp.workload.payload_bytes;
  return plan;
}

uint64_t port_bytes(Mode mode) {
  return MemoryModel::kPerPort + (mode == Mode::kInProcess ? MemoryModel::kPerPortInProcess : 0);
}

}  // namespace

FabricSize estimate_size(const conf::Experiment& exp, Mode mode, uint32_t lcores) {
  // A generated switch no mode can run is said before the build, which for an MRLS of radix
  // 2000 took 5 s and 300 MB first (topology tools such as `topo stats` take such sizes).
  const std::optional<topo::GeneratedSize> generated = conf::generated_size(exp.topology);
  if (generated && generated->ports > dataplane::kMaxPorts) {
    throw std::invalid_argument(fmt::format(
        "topology: its {} generator gives a switch of {} ports; at most {} are supported",
        topo::to_string(exp.topology.generator), generated->ports, dataplane::kMaxPorts));
  }
  const topo::Topology t = [&] {
    try {
      return topo::build(exp.topology, exp.links);
    } catch (const topo::TopologyError& e) {  // a generator's (an MRLS draw): name the file
      throw topo::TopologyError(fmt::format("{}: topology: {}", exp.source, e.what()));
    }
  }();
  dataplane::check_switch_ports(t);  // a switch no mode can run says so first
  FabricSize s;
  s.hosts = t.hosts().size();
  s.switches = t.switches().size();
  for (topo::NodeId n : t.switches()) s.ports += t.degree(n);
  s.leaves = t.leaves().size();
  s.pairs = s.switches * s.leaves;
  count_balancer_state(exp.balancer, s);
  if (mode == Mode::kNamespaced) {
    s.processes = s.switches + s.leaves;
  } else {
    // The pool's size as the fabric asks for it (a host node per leaf: its engines), one pool:
    // --threads N splits the same frames among N pools. Before EAL, mbufs_needed counts no
    // lcore's cache: the run's lcores are added here.
    const gen::RunPlan plan = workload_plan(exp, t);
    s.frames = mbufs_needed(plan, s.ports, exp.buffer.bytes, t.links().size(),
                            static_cast<uint32_t>(s.leaves)) +
               uint64_t{lcores} * kCacheFramesPerLcore;
    s.frame_bytes = pool_frame_bytes(mode, plan.payload_bytes);
  }
  s.memory_bytes = model_bytes(s, mode);
  return s;
}

uint64_t model_bytes(const FabricSize& s, Mode mode) {
  using M = MemoryModel;
  if (mode == Mode::kNamespaced) return s.processes * M::kPerProcess;
  return M::kBase + s.ports * port_bytes(mode) + s.hosts * M::kPerHost + s.pairs * M::kPerPair +
         s.group_pairs * M::kPerPairGroups + s.order_leaf_ports * M::kPerLeafPortOrders +
         s.path_leaf_ports * M::kPerLeafPortPaths + s.frames * s.frame_bytes;
}

std::string describe(const FabricSize& s, Mode mode) {
  return fmt::format("{} hosts, {} switches ({} ports){}, about {}", s.hosts, s.switches, s.ports,
                     mode == Mode::kNamespaced ? fmt::format(", {} processes", s.processes) : "",
                     bytes_text(s.memory_bytes));
}

std::string itemize(const FabricSize& s, Mode mode) {
  using M = MemoryModel;
  if (mode == Mode::kNamespaced) {
    return fmt::format("{} processes x {}", s.processes, bytes_text(M::kPerProcess));
  }
  std::string text = fmt::format("{} base, {} ports x {}, {} hosts x {}, {} (switch, leaf) x {}",
                                 bytes_text(M::kBase), s.ports, bytes_text(port_bytes(mode)),
                                 s.hosts, bytes_text(M::kPerHost), count_text(s.pairs),
                                 bytes_text(M::kPerPair + (s.group_pairs ? M::kPerPairGroups : 0)));
  if (s.order_leaf_ports) {
    text += fmt::format(", {} (leaf, port) orders x {}", count_text(s.order_leaf_ports),
                        bytes_text(M::kPerLeafPortOrders));
  }
  if (s.path_leaf_ports) {
    text += fmt::format(", {} (leaf, port) paths x {}", count_text(s.path_leaf_ports),
                        bytes_text(M::kPerLeafPortPaths));
  }
  return text + fmt::format(", {} frames x {}", count_text(s.frames), bytes_text(s.frame_bytes));
}

uint64_t machine_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) : 0;
}

void check_fits(const FabricSize& s, Mode mode, const std::string& what, uint64_t memory) {
  if (memory == 0 || s.memory_bytes <= memory) return;
  throw std::invalid_argument(
      fmt::format("{}: {}: more than this machine's {} of memory (docs/runner.md, \"Size and "
                  "time guard\")",
                  what, describe(s, mode), bytes_text(memory)));
}

}  // namespace spraylab::fabric
