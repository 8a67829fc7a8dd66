#include "fabric/emu/fabric.h"

#include <fmt/format.h>
#include <rte_cycles.h>
#include <rte_lcore.h>

#include <algorithm>
#include <memory>

#include "fabric/emu/mbuf_pool.h"
#include "switch/dataplane/switch_tables.h"
#include "topo/build.h"
#include "trafficgen/packet.h"

namespace spraylab::fabric {
namespace {

// Frames a link may hold: what is in flight (a few at these delays) and what a sender put on it
// ahead of time (a switch's burst slack, a host pacer's catch-up), with room to spare.
constexpr uint32_t kLinkSlots = 1024;

// The fabric's route table, kept for the process: rte_free clears what it frees, and clearing an
// rte_lpm's 64 MB first level (pages the run never touched, faulted in just to be zeroed) took
// 7 % of a 432-host run. The next fabric of the same topology (the next variant of `spraylab
// run`) takes the same table; another topology's frees it first, as the table's name is
// process-global. The last one is never freed: the process's exit takes it back.
std::shared_ptr<const dataplane::SharedRoutes> process_routes(std::vector<topo::Prefix> prefixes) {
  static auto* kept = new std::shared_ptr<const dataplane::SharedRoutes>();
  prefixes = dataplane::SharedRoutes::canonical(std::move(prefixes));
  auto same = [&prefixes](const std::vector<topo::Prefix>& held) {
    return std::equal(prefixes.begin(), prefixes.end(), held.begin(), held.end(),
                      [](const topo::Prefix& a, const topo::Prefix& b) {
                        return a.addr == b.addr && a.len == b.len;
                      });
  };
  if (*kept != nullptr && same((*kept)->prefixes())) return *kept;
  kept->reset();  // before the new one takes the name
  *kept = std::make_shared<const dataplane::SharedRoutes>("fabric_routes", std::move(prefixes),
                                                          static_cast<int>(rte_socket_id()));
  return *kept;
}

}  // namespace

Fabric::Fabric(const conf::Experiment& exp, Mode mode, uint64_t start_delay_ns,
               std::chrono::steady_clock::time_point deadline, uint32_t partitions)
    : mode_(mode), exp_(exp), start_delay_ns_(start_delay_ns), deadline_(deadline) {
  topology_ = std::make_unique<topo::Topology>(topo::build(exp_.topology, exp_.links));
  check_deadline("the topology");
  routing_ = std::make_unique<topo::Routing>(*topology_);
  check_deadline("the routing");
  addresses_ = std::make_unique<topo::AddressPlan>(*routing_);
  plan_ = gen::make_run_plan(exp_, gen::options_from_experiment(exp_, *topology_));
  check_deadline("the run plan");
  if (plan_.rate_bps <= 0) {
    throw std::invalid_argument("the fabric paces every host: workload.load must be > 0");
  }
  const auto leaves = static_cast<uint32_t>(routing_->leaves().size());
  uint64_t switch_ports = 0;
  for (topo::NodeId n : topology_->switches()) switch_ports += topology_->degree(n);
  // Partitions: in virtual time only (the wall clock has its lcores).
  partitions_ = partition_switches(*topology_, *routing_, mode_ == Mode::kVirtual ? partitions : 1);
  // A pool per partition, each grown lazily by its partition's thread (mbuf_pool.h): a frame's
  // host takes it from its own partition's pool, and whoever frees it returns it there; each
  // sized for the messages its hosts send or receive.
  std::vector<uint32_t> rank_partition;
  if (partitions_.count > 1) {
    rank_partition.resize(plan_.ranks.size());
    for (size_t r = 0; r < plan_.ranks.size(); ++r) {
      const int32_t local = plan_.local_of_rank[r];  // every rank is the fabric's own
      if (local < 0) continue;
      rank_partition[r] = partitions_.of_switch[addresses_->leaf_of_host(plan_.hosts[local].node)];
    }
  }
  for (uint32_t p = 0; p < partitions_.count; ++p) {
    const uint32_t need =
        mbufs_needed(plan_, switch_ports, exp_.buffer.bytes, topology_->links().size(), leaves,
                     rank_partition, partitions_.count, p);
    pools_.push_back(fabric_pool(p, need, std::min<uint32_t>(need, 8192), frame_room(),
                                 mode_ == Mode::kVirtual));
  }
  for (uint32_t p = 0; p < partitions_.count; ++p)
    queues_.push_back(std::make_unique<EventQueue>());
  double shortest = 0;
  for (const topo::Link& l : topology_->links()) {
    shortest = shortest == 0 ? l.delay_ns : std::min(shortest, l.delay_ns);
  }
  window_ns_ = std::max<uint64_t>(1, static_cast<uint64_t>(shortest));
  build_switches();
  check_deadline("the switches");
  build_hosts();
  check_deadline("the switches and hosts");
  build_links();
  if (exp_.buffer.flow_control == conf::FlowControl::kPfc) {
    // Pause frames come from the switch's own partition's pool: only that partition's thread
    // draws from (and grows) it.
    for (uint32_t i = 0; i < switches_.size(); ++i)
      switches_[i]->set_control_pool(pools_[partitions_.of_switch[i]]);
    for (auto& h : hosts_) h->enable_pfc();
  }
  if (exp_.buffer.flow_control == conf::FlowControl::kCredit) {
    // Credit frames, the same: each node's from its own partition's pool (a host node's
    // partition is its leaf's).
    for (uint32_t i = 0; i < switches_.size(); ++i)
      switches_[i]->set_control_pool(pools_[partitions_.of_switch[i]]);
    const dataplane::CreditLimits limits{exp_.buffer.credit.bytes, exp_.buffer.credit.unit,
                                         exp_.buffer.virtual_channels};
    for (uint32_t h = 0; h < hosts_.size(); ++h) {
      hosts_[h]->enable_credits(limits, pools_[partitions_.of_switch[host_leaf_[h]]]);
    }
  }
  link_events_ = topo::plan_link_events(exp_, *topology_);
  applied_at_.assign(link_events_.size(), UINT64_MAX);
  rerouted_.assign(link_events_.size(), 0);
  tx_at_event_.resize(link_events_.size());
  for (auto& q : queues_) {
    q->reserve((nodes_.size() + 4 * links_.size()) / partitions_.count + link_events_.size());
  }
}

Fabric::~Fabric() = default;

uint32_t Fabric::frame_room() const {
  // Virtual time carries no payload: a frame's mbuf holds its headers (Ethernet, IPv4, UDP, the
  // testbed header: all the engine writes and all anything reads), while its data_len and
  // pkt_len say its length on the wire, which is what the links serialise, the queues count and
  // the counters add. The forwarder parses, routes and rewrites headers only; the engine decodes
  // the testbed header only; no one reads a payload byte. So a frame in flight costs ~450 B
  // instead of its 4 KB payload. In-process, mbufs carry whole frames (a probe or a capture may
  // look at them).
  return mode_ == Mode::kVirtual ? gen::kFrameHeaderBytes
                                 : gen::kFrameHeaderBytes + plan_.payload_bytes;
}

void Fabric::check_deadline(const std::string& done) const {
  if (std::chrono::steady_clock::now() < deadline_) return;
  throw BuildTimeout(fmt::format(
      "the wall-clock limit (--timeout) passed while building the fabric ({} built; {} switches, "
      "{} hosts)",
      done, topology_->switches().size(), topology_->hosts().size()));
}

void Fabric::build_switches() {
  // One route table for all switches (route_lookup.h: one per switch would not fit).
  std::vector<dataplane::SwitchTables> tables;
  // Every switch knows every leaf: the leaves' prefixes are one copy for all, and the union of
  // the switches' routes is merged as it grows (a list of every switch's would be O(switches x
  // leaves) for a moment: 2 GB at 100 K hosts).
  const auto leaves = dataplane::leaf_prefixes_of(*routing_, *addresses_);
  std::vector<topo::Prefix> prefixes;
  for (const auto& l : *leaves) prefixes.push_back(l.prefix);
  size_t merged = 0;
  for (topo::NodeId n : topology_->switches()) {
    check_deadline(fmt::format("the tables of {} switches", tables.size()));
    tables.push_back(dataplane::build_switch_tables(exp_, *routing_, *addresses_,
                                                    topology_->node(n).name, leaves));
    for (const auto& r : tables.back().routes) prefixes.push_back(r.prefix);
    if (prefixes.size() > 2 * merged + 4096) {
      prefixes = dataplane::SharedRoutes::canonical(std::move(prefixes));
      merged = prefixes.size();
    }
  }
  routes_ = process_routes(std::move(prefixes));
  dataplane::RuntimeOptions ro;
  ro.workers = 1;
  ro.rx_queues = 1;
  ro.shaping = true;
  ro.socket = static_cast<int>(rte_socket_id());
  ro.routing = routing_.get();
  ro.shared_routes = routes_;
  ro.ring_memory = rings_.memory();
  for (auto& t : tables) {
    const auto id = static_cast<uint32_t>(nodes_.size());
    const uint32_t part = partitions_.of_switch[id];
    EventQueue* events = mode_ == Mode::kVirtual ? queues_[part].get() : nullptr;
    switches_.push_back(std::make_unique<SwitchNode>(std::move(t), ro, events, id));
    nodes_.push_back(switches_.back().get());
    part_of_node_.push_back(part);
  }
}

void Fabric::build_hosts() {
  if (mode_ == Mode::kVirtual) {
    tsc_hz_ = 1'000'000'000;  // engine ticks are ns
    start_tsc_ = kVirtualStartNs;
    start_ns_ = kVirtualStartNs;
  } else {
    tsc_hz_ = rte_get_tsc_hz();
    start_tsc_ = rte_rdtsc() + start_delay_ns_ * tsc_hz_ / 1'000'000'000;
    start_ns_ =
        static_cast<uint64_t>(static_cast<double>(start_tsc_) * 1e9 / static_cast<double>(tsc_hz_));
  }
  // One engine per leaf: every host under it. (An engine per host would hold per-message tables
  // once per host: hosts x messages.)
  for (uint32_t leaf : routing_->leaves()) {
    std::vector<uint32_t> local;
    for (uint32_t i = 0; i < plan_.hosts.size(); ++i) {
      if (addresses_->leaf_of_host(plan_.hosts[i].node) == leaf) local.push_back(i);
    }
    if (local.empty()) continue;
    most_hosts_per_node_ = std::max(most_hosts_per_node_, static_cast<uint32_t>(local.size()));
    const auto id = static_cast<uint32_t>(nodes_.size());
    const uint32_t part = partitions_.of_switch[leaf];
    EventQueue* events = mode_ == Mode::kVirtual ? queues_[part].get() : nullptr;
    hosts_.push_back(std::make_unique<HostNode>(plan_, local, pools_[part],
                                                static_cast<uint32_t>(hosts_.size()), tsc_hz_,
                                                start_tsc_, events, id, &message_slots_));
    host_leaf_.push_back(leaf);
    nodes_.push_back(hosts_.back().get());
    part_of_node_.push_back(part);
  }
}

void Fabric::build_links() {
  const topo::Topology& t = *topology_;
  const topo::SwitchGraph& g = routing_->graph();
  // Host node and port of every host (by node id).
  std::vector<std::pair<uint32_t, uint16_t>> host_at(t.nodes().size(), {UINT32_MAX, 0});
  for (uint32_t h = 0; h < hosts_.size(); ++h) {
    for (uint32_t i = 0; i < plan_.hosts.size(); ++i) {
      if (addresses_->leaf_of_host(plan_.hosts[i].node) == host_leaf_[h]) {
        host_at[plan_.hosts[i].node] = {h, plan_.hosts[i].port};
      }
    }
  }
  const bool virtual_time = mode_ == Mode::kVirtual;
  const auto host_base = static_cast<uint32_t>(switches_.size());
  // Connects end `me` (sending on `out`, receiving on `in`) and tells `in` whom to wake; returns
  // its partition.
  auto attach = [&](const topo::PortRef& me, Link* in, Link* out) {
    const topo::Node& n = t.node(me.node);
    if (n.kind == topo::NodeKind::kSwitch) {
      const uint32_t sw = g.index_of(me.node);
      switches_[sw]->connect(me.port, in, out);
      if (virtual_time) in->set_consumer(queues_[part_of_node_[sw]].get(), sw, me.port);
      return part_of_node_[sw];
    }
    const auto [h, port] = host_at[me.node];
    hosts_[h]->connect(port, in, out);
    const uint32_t node = host_base + h;
    if (virtual_time) {
      in->set_consumer(queues_[part_of_node_[node]].get(), node, hosts_[h]->slot_of(port));
      hosts_[h]->record_wakes(port);
    }
    return part_of_node_[node];
  };
  const dataplane::RingMemory memory = rings_.memory();
  for (uint32_t id = 0; id < t.links().size(); ++id) {
    const topo::Link& l = t.links()[id];
    links_.push_back(std::make_unique<Link>(fmt::format("fl{}a", id), l.rate_bps, l.delay_ns,
                                            kLinkSlots, memory));
    Link* ab = links_.back().get();
    links_.push_back(std::make_unique<Link>(fmt::format("fl{}b", id), l.rate_bps, l.delay_ns,
                                            kLinkSlots, memory));
    Link* ba = links_.back().get();
    if (attach(l.a, ba, ab) != attach(l.b, ab, ba) && virtual_time) {
      for (Link* crossing : {ab, ba}) {
        crossing->set_crossing();
        crossing_.push_back(crossing);
      }
    }
  }
}

std::vector<const gen::HostEngine*> Fabric::engines() const {
  std::vector<const gen::HostEngine*> v;
  for (const auto& h : hosts_) v.push_back(&h->engine());
  return v;
}

}  // namespace spraylab::fabric
