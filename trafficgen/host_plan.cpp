#include "trafficgen/host_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <set>

#include "conf/bernoulli_check.h"
#include "conf/units.h"
#include "topo/build.h"
#include "topo/feasible_load.h"
#include "topo/link_events.h"
#include "topo/minimal_reach.h"
#include "topo/routing.h"
#include "trafficgen/packet.h"
#include "trafficgen/workload.h"

namespace spraylab::gen {
namespace {

// "h12" -> ("h", 12); false if the name does not end in digits.
bool split_name(const std::string& s, std::string* prefix, uint32_t* number) {
  size_t i = s.size();
  while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9') --i;
  if (i == s.size() || i == 0) return false;
  *prefix = s.substr(0, i);
  return std::from_chars(s.data() + i, s.data() + s.size(), *number).ec == std::errc();
}

}  // namespace

std::vector<std::string> parse_host_list(const std::string& list, const topo::Topology& t) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  auto add = [&](const std::string& name) {
    const topo::NodeId n = t.find(name);
    if (n == topo::kNoNode || t.node(n).kind != topo::NodeKind::kHost) {
      throw PlanError(fmt::format("--hosts: '{}' is not a host of the topology (hosts are {}..{})",
                                  name, t.node(t.hosts().front()).name,
                                  t.node(t.hosts().back()).name));
    }
    if (!seen.insert(name).second) throw PlanError(fmt::format("--hosts: '{}' given twice", name));
    out.push_back(name);
  };
  size_t start = 0;
  while (start <= list.size()) {
    const size_t comma = std::min(list.find(',', start), list.size());
    const std::string item = list.substr(start, comma - start);
    start = comma + 1;
    if (item.empty()) throw PlanError(fmt::format("--hosts '{}': empty item", list));
    const size_t dash = item.find('-');
    if (dash == std::string::npos) {
      add(item);
      continue;
    }
    std::string p1, p2;
    uint32_t a = 0, b = 0;
    const std::string lo = item.substr(0, dash), hi = item.substr(dash + 1);
    if (!split_name(lo, &p1, &a) || !split_name(hi, &p2, &b) || p1 != p2 || a > b) {
      throw PlanError(fmt::format(
          "--hosts: '{}' is not a range; expected e.g. h0-h3 (same prefix, ascending)", item));
    }
    for (uint32_t i = a; i <= b; ++i) add(fmt::format("{}{}", p1, i));
  }
  if (out.empty()) throw PlanError("--hosts: no hosts given");
  return out;
}

double parse_send_rate(const std::string& text, double link_rate_bps) {
  if (text == "unlimited") return 0;
  double v = 0;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
  if (r.ec == std::errc() && r.ptr == text.data() + text.size()) {
    if (!(v > 0 && v <= 1)) {
      throw PlanError(
          fmt::format("--rate {}: a plain number is a fraction of the link rate, in (0, 1]", text));
    }
    return v * link_rate_bps;
  }
  const auto bps = conf::parse_rate_bps(text);
  if (!bps || !(*bps > 0)) {
    throw PlanError(fmt::format(
        "--rate '{}': expected a fraction of the link rate (0.5), a rate (10Gbps) or unlimited",
        text));
  }
  return *bps;
}

namespace {

// `workload.load: feasible`: ρmax of the workload's traffic matrix on the topology as the link
// events leave it (every down, up and rate change applied, whenever it happens: the paper's
// failures are there from the start), topo/feasible_load.h.
double feasible_fraction(const conf::Experiment& exp, const topo::Topology& t) {
  const topo::Routing routing(t);
  const topo::SwitchGraph& g = routing.graph();
  std::vector<bool> down(g.edges(), false);
  std::vector<double> rate(g.edges(), 0.0);
  for (uint32_t s = 0; s < g.size(); ++s) {
    const topo::Node& node = t.node(g.node_of(s));
    for (uint32_t e = g.begin(s); e < g.end(s); ++e)
      rate[e] = t.links()[node.links[g.port(e)]].rate_bps;
  }
  for (const topo::PlannedLinkEvent& ev : topo::plan_link_events(exp, t)) {
    for (const topo::PortRef& end : ev.ends) {
      const uint32_t sw = g.index_of(end.node);
      const uint32_t e = topo::edge_of_port(g, sw, end.port);
      if (ev.action == conf::LinkAction::kRate) {
        rate[e] = ev.rate_bps;
      } else {
        down[e] = ev.action == conf::LinkAction::kDown;
      }
    }
  }
  // Each host sends at the line rate, split over its messages by their bytes (all collectives
  // together); a host link carries what its host sends or receives.
  const gen::Schedule schedule =
      make_workload(exp.workload, static_cast<uint32_t>(t.hosts().size()), exp.seed);
  std::vector<double> sent(t.hosts().size(), 0.0), received(t.hosts().size(), 0.0);
  for (const gen::Message& m : schedule.messages) sent[m.src] += static_cast<double>(m.bytes);
  std::vector<uint32_t> leaf_of(t.hosts().size());
  for (size_t h = 0; h < t.hosts().size(); ++h) {
    const topo::Node& host = t.node(t.hosts()[h]);
    const topo::Link& l = t.links()[host.links[0]];
    const topo::NodeId leaf = l.a.node == t.hosts()[h] ? l.b.node : l.a.node;
    leaf_of[h] = routing.leaf_rank(g.index_of(leaf));
  }
  std::vector<topo::LeafDemand> demand;
  for (const gen::Message& m : schedule.messages) {
    const double share = static_cast<double>(m.bytes) / sent[m.src];
    received[m.dst] += share;
    demand.push_back({leaf_of[m.src], leaf_of[m.dst], share});
  }
  double host_peak = 1;
  for (double r : received) host_peak = std::max(host_peak, r);
  return topo::feasible_load(routing, down, rate, topo::slowest_host_link(t).rate_bps, demand,
                             host_peak);
}

}  // namespace

HostPlanOptions options_from_experiment(const conf::Experiment& exp, const topo::Topology& t) {
  HostPlanOptions go;
  for (topo::NodeId n : t.hosts()) go.hosts.push_back(t.node(n).name);
  const double load = exp.workload.load_feasible ? feasible_fraction(exp, t) : exp.workload.load;
  go.rate_bps = load * topo::slowest_host_link(t).rate_bps;
  go.injection = exp.workload.injection;
  if (go.injection == Injection::kBernoulli) {
    // The arrivals carry the load; a host sends what has arrived at the line rate.
    go.injection_load = load;
    go.rate_bps = topo::slowest_host_link(t).rate_bps;
  }
  go.ack_every = exp.workload.ack_every;
  go.entropy = exp.workload.entropy;
  go.entropy_params = {exp.workload.entropy_range,       exp.workload.reps_buffer,
                       exp.workload.reps_freezing,       exp.workload.bitmap_ecn_penalty,
                       exp.workload.bitmap_nack_penalty, exp.workload.bitmap_max_penalty};
  go.retransmit_timeout_ns = exp.workload.retransmit_timeout_ns;
  go.seed = exp.seed;
  go.cc = exp.workload.cc;
  go.initial_window_bdp = exp.workload.initial_window_bdp;
  go.initial_window_bytes = exp.workload.initial_window_bytes;
  go.trim = exp.buffer.trim;
  go.cc_tuning = exp.workload.tuning;
  return go;
}

namespace {

// workload.injection: bernoulli, for the MRLS paper's patterns (conf/bernoulli_check.h): the
// file's settings as spraylab-gen's --payload and load leave them.
void check_bernoulli(const conf::WorkloadSpec& w, const HostPlanOptions& o) {
  if (const std::optional<conf::BernoulliProblem> problem = conf::bernoulli_problem(
          w.type, w.message_bytes, w.payload_bytes, w.load_feasible, o.injection_load)) {
    throw PlanError(fmt::format("workload.{}: {}", problem->key, problem->message));
  }
}

// The schedule of every rank (with --payload's packet size) and the sender's and receiver's
// settings, checked.
void plan_workload(const conf::Experiment& exp, const HostPlanOptions& o, uint32_t ranks,
                   const std::vector<uint32_t>& leaf_of_rank, RunPlan* plan) {
  conf::WorkloadSpec spec = exp.workload;
  if (o.payload_bytes != 0) spec.payload_bytes = o.payload_bytes;
  plan->schedule = make_workload(spec, ranks, exp.seed, leaf_of_rank);
  plan->workload = spec.type;
  plan->payload_bytes = spec.payload_bytes;
  plan->ack_every = o.ack_every;
  plan->entropy = o.entropy;
  plan->entropy_params = o.entropy_params;
  plan->retransmit_timeout_ns = o.retransmit_timeout_ns;
  plan->loss = o.loss;
  plan->rate_bps = o.rate_bps;
  plan->seed = o.seed;
  plan->cc = o.cc;
  plan->initial_window_bdp = o.initial_window_bdp;
  plan->initial_window_bytes = o.initial_window_bytes;
  plan->trim = o.trim;
  plan->cc_tuning = o.cc_tuning;
  plan->injection = o.injection;
  plan->injection_load = o.injection_load;
  if (o.injection == Injection::kBernoulli) check_bernoulli(spec, o);
  if (o.ack_every == 0 || o.ack_every > 65535) throw PlanError("--ack-every: expected 1..65535");
  if (o.retransmit_timeout_ns == 0) throw PlanError("--retransmit-timeout must be positive");
  if (!(o.loss >= 0 && o.loss < 1)) throw PlanError("--loss: expected a probability in [0, 1)");
}

// Every rank's addresses; its frames go to its leaf's port, or with back-to-back ports straight
// to the peer host.
std::vector<RankAddress> rank_addresses(const topo::Topology& t, const topo::AddressPlan& addresses,
                                        bool back_to_back) {
  std::vector<RankAddress> out(t.hosts().size());
  for (size_t r = 0; r < out.size(); ++r) {
    const topo::NodeId n = t.hosts()[r];
    RankAddress& a = out[r];
    a.ip = addresses.host_ip(n);
    a.mac = topo::AddressPlan::host_mac(n);
    const topo::PortRef leaf = t.peer(n, 0);
    a.next_hop = back_to_back ? a.mac : topo::AddressPlan::port_mac(leaf.node, leaf.port);
  }
  return out;
}

// The hosts of --hosts, each on its DPDK port (--port-map, or host i on port i).
void plan_local_hosts(const topo::Topology& t, const HostPlanOptions& o, RunPlan* plan) {
  plan->local_of_rank.assign(t.hosts().size(), -1);
  if (!o.port_map.empty() && o.port_map.size() != o.hosts.size()) {
    throw PlanError(fmt::format("--port-map has {} entries for {} hosts; give one port per host",
                                o.port_map.size(), o.hosts.size()));
  }
  for (size_t i = 0; i < o.hosts.size(); ++i) {
    HostSpec h;
    h.node = t.find(o.hosts[i]);
    // A host's index is its rank (a scan of the hosts was O(hosts) a host).
    h.rank = h.node != topo::kNoNode && t.node(h.node).kind == topo::NodeKind::kHost
                 ? t.node(h.node).index
                 : static_cast<uint32_t>(t.hosts().size());
    h.name = o.hosts[i];
    h.ip = plan->ranks[h.rank].ip;
    h.mac = plan->ranks[h.rank].mac;
    h.port = o.port_map.empty() ? static_cast<uint16_t>(i) : o.port_map[i];
    plan->ports_needed = std::max<uint16_t>(plan->ports_needed, static_cast<uint16_t>(h.port + 1));
    plan->local_of_rank[h.rank] = static_cast<int32_t>(plan->hosts.size());
    plan->hosts.push_back(h);
  }
}

// The CCT bound's path model, and each message's hops: host link, switch hops between the two
// leaves, host link; back to back, the one link between the hosts.
void plan_paths(const topo::Topology& t, const topo::Routing& routing,
                const topo::AddressPlan& addresses, const HostPlanOptions& o, RunPlan* plan) {
  const topo::HostLinkBound host_link = topo::slowest_host_link(t);
  plan->link_rate_bps = host_link.rate_bps;
  plan->path.rate_bps = o.rate_bps > 0 ? o.rate_bps : host_link.rate_bps;
  plan->path.link_delay_ns = o.back_to_back ? 0 : host_link.delay_ns;
  plan->path.header_bytes = kFrameHeaderBytes + net::kFcsBytes;
  plan->path.ack_bytes = kFrameHeaderBytes + net::kFcsBytes;
  plan->path.gap_bytes = net::kWireGapBytes;
  const bool uniform = std::all_of(t.links().begin(), t.links().end(), [&](const topo::Link& l) {
    return l.rate_bps == host_link.rate_bps && l.delay_ns == host_link.delay_ns;
  });
  plan->bound_capacity = uniform ? BoundCapacity::kOffered : BoundCapacity::kNotModelled;
  plan->message_hops.reserve(plan->schedule.messages.size());
  for (const Message& m : plan->schedule.messages) {
    uint32_t hops = 1;
    if (!o.back_to_back) {
      const uint32_t la = addresses.leaf_of_host(t.hosts()[m.src]);
      const uint32_t lb = addresses.leaf_of_host(t.hosts()[m.dst]);
      hops = routing.distance(la, lb) + 2u;
    }
    plan->message_hops.push_back(hops);
    plan->most_hops = std::max(plan->most_hops, hops);
    if (packet_count(m.bytes, plan->payload_bytes) >= UINT32_MAX) {
      throw PlanError(fmt::format("message {} has {} bytes: too many packets of {} B", m.id,
                                  m.bytes, plan->payload_bytes));
    }
  }
}

// RunPlan::rank_messages: a count per rank, their running sum, then the ids in order.
void index_messages(uint32_t ranks, RunPlan* plan) {
  std::vector<uint32_t>& start = plan->rank_message_start;
  start.assign(size_t{ranks} + 1, 0);
  const std::vector<Message>& messages = plan->schedule.messages;
  for (const Message& m : messages) {
    ++start[m.src + 1];
    if (m.dst != m.src) ++start[m.dst + 1];
  }
  for (uint32_t r = 0; r < ranks; ++r) start[r + 1] += start[r];
  plan->rank_messages.resize(start[ranks]);
  std::vector<uint32_t> at(start.begin(), start.end() - 1);
  for (const Message& m : messages) {
    plan->rank_messages[at[m.src]++] = m.id;
    if (m.dst != m.src) plan->rank_messages[at[m.dst]++] = m.id;
  }
}

}  // namespace

RunPlan make_run_plan(const conf::Experiment& exp, const HostPlanOptions& o) {
  RunPlan plan;
  const topo::Topology t = topo::build(exp.topology, exp.links);
  const topo::Routing routing(t);
  const topo::AddressPlan addresses(routing);
  const auto ranks = static_cast<uint32_t>(t.hosts().size());
  if (ranks < 2) throw PlanError("the topology has fewer than two hosts");
  std::vector<uint32_t> leaf_of_rank(ranks);
  for (uint32_t r = 0; r < ranks; ++r) leaf_of_rank[r] = addresses.leaf_of_host(t.hosts()[r]);
  plan_workload(exp, o, ranks, leaf_of_rank, &plan);
  plan.ranks = rank_addresses(t, addresses, o.back_to_back);
  plan_local_hosts(t, o, &plan);
  plan_paths(t, routing, addresses, o, &plan);
  index_messages(ranks, &plan);
  if (!exp.events.empty()) plan.bound_capacity = BoundCapacity::kNotModelled;
  return plan;
}

double path_rtt_ns(const RunPlan& plan, uint32_t hops) {
  const PathModel& p = plan.path;
  const double h = hops;
  return h * (serialisation_ns(plan.payload_bytes + p.header_bytes, p.rate_bps) + p.link_delay_ns) +
         h * (serialisation_ns(p.ack_bytes, p.rate_bps) + p.link_delay_ns);
}

uint64_t initial_window_bytes(const RunPlan& plan, uint32_t hops) {
  uint64_t w = plan.initial_window_bytes;
  if (w == 0) {
    const double bdp = plan.path.rate_bps / 8 * path_rtt_ns(plan, hops) / 1e9;
    w = static_cast<uint64_t>(plan.initial_window_bdp * bdp);
  }
  return std::max<uint64_t>(w, plan.payload_bytes);
}

BoundWire bound_wire(const RunPlan& plan) {
  return {.rate_bps = plan.link_rate_bps,
          .link_delay_ns = plan.path.link_delay_ns,
          .header_bytes = plan.path.header_bytes,
          .ack_bytes = plan.path.ack_bytes,
          .gap_bytes = plan.path.gap_bytes,
          .payload_bytes = plan.payload_bytes,
          .ack_every = plan.ack_every};
}

CctBound message_bound(const RunPlan& plan, uint64_t bytes, uint32_t hops) {
  PathModel p = plan.path;
  p.hops = hops;
  return permutation_cct_bound(p, bytes, plan.payload_bytes);
}

}  // namespace spraylab::gen
