#include "switch/dataplane/switch_runtime.h"

#include <fmt/format.h>
#include <rte_errno.h>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace spraylab::dataplane {
namespace {

uint32_t pow2_at_least(uint32_t n) {
  uint32_t p = 64;
  while (p < n) p <<= 1;
  return p;
}

// Egress ring slots: enough for a full buffer of minimum-size frames, capped so that a 64-port
// switch does not pin gigabytes of mbufs; the byte limit is what normally drops.
uint32_t egress_slots(const SwitchTables& t, const RuntimeOptions& opts) {
  return opts.queue_packets
             ? pow2_at_least(opts.queue_packets)
             : std::min<uint32_t>(4096,
                                  pow2_at_least(static_cast<uint32_t>(t.buffer_bytes / 64 + 1)));
}

// The priority ring of a trimming switch's ports; none without trimming.
uint32_t priority_slots(const SwitchTables& t, const RuntimeOptions& opts) {
  if (!t.trim) return 0;
  return opts.trim_queue_packets ? std::bit_ceil(std::max<uint32_t>(2, opts.trim_queue_packets))
                                 : kTrimQueueSlots;
}

std::vector<topo::Prefix> route_prefixes(const SwitchTables& t) {
  std::vector<topo::Prefix> out;
  for (const auto& r : t.routes) out.push_back(r.prefix);
  return out;
}

// One rule and one message for a switch being built and for a fabric checked before EAL.
void check_port_count(const std::string& name, size_t ports) {
  if (ports > kMaxPorts) {
    throw std::invalid_argument(
        fmt::format("switch {} has {} ports; at most {} are supported", name, ports, kMaxPorts));
  }
}

}  // namespace

void check_switch_ports(const topo::Topology& t) {
  for (topo::NodeId n : t.switches()) check_port_count(t.node(n).name, t.degree(n));
}

SwitchRuntime::SwitchRuntime(SwitchTables tables, const RuntimeOptions& opts)
    : tables_(std::move(tables)),
      opts_(opts),
      egress_(tables_.name, ports(), egress_slots(tables_, opts_), tables_.buffer_bytes,
              opts_.socket, opts_.workers,
              opts_.per_worker_tx && !opts_.shaping && opts_.tx_queues >= opts_.workers,
              opts_.ring_memory, priority_slots(tables_, opts_), tables_.virtual_channels),
      port_up_(new std::atomic<bool>[kMaxPorts]()),
      rate_request_(new std::atomic<uint64_t>[kMaxPorts]()),
      groups_(nullptr, opts.workers),
      balancers_(nullptr, opts.workers) {
  check_port_count(tables_.name, ports());
  if (opts_.workers == 0) throw std::invalid_argument("at least one worker lcore is needed");
  // rte_lpm and rte_ring names are process-global: prefix them with the switch name.
  std::vector<topo::Prefix> leaves;
  for (const auto& l : *tables_.leaf_prefixes) leaves.push_back(l.prefix);
  if (opts_.shared_routes) {
    dst_routes_ = std::make_unique<RouteLookup>(opts_.shared_routes, route_prefixes(tables_));
    src_leaves_ = std::make_unique<RouteLookup>(opts_.shared_routes, leaves);
  } else {
    dst_routes_ =
        std::make_unique<RouteLookup>("rt_" + tables_.name, route_prefixes(tables_), opts_.socket);
    src_leaves_ = std::make_unique<RouteLookup>("sl_" + tables_.name, leaves, opts_.socket);
  }
  for (uint16_t p = 0; p < ports(); ++p) {
    // Slack: a burst's worth of MTU frames (1514 B without FCS) may leave together, or what
    // the options say.
    const double rate = tables_.ports[p].rate_bps;
    const double slack_bytes = opts_.shaper_slack_bytes > 0
                                   ? static_cast<double>(opts_.shaper_slack_bytes)
                                   : net::kBurst * (1514 + net::kWireOverhead);
    egress_.set_shaper(p, Shaper(opts_.shaping ? rate : 0,
                                 static_cast<uint64_t>(slack_bytes * 8e9 / std::max(1.0, rate))));
    port_up_[p].store(true);
  }
  for (uint32_t w = 0; w < opts_.workers; ++w)
    counters_.push_back(std::make_unique<WorkerCounters>());
  if (tables_.pfc) {
    // Ingress accounting is one worker's plain state (pfc.h): several would need tallies per
    // worker, as the egress depths have.
    if (opts_.workers != 1) {
      throw std::invalid_argument(fmt::format(
          "switch {}: buffer.flow_control: pfc runs on one worker ({} asked: --workers, or by "
          "default one per EAL lcore but the main one); pass --workers 1", tables_.name,
          opts_.workers));
    }
    std::vector<double> rates;
    for (const PortInfo& p : tables_.ports) rates.push_back(p.rate_bps);
    pfc_ = std::make_unique<Pfc>(tables_.pfc_thresholds, std::move(rates),
                                 tables_.virtual_channels);
  }
  if (tables_.credit) {
    // The same: one worker's plain state (credit.h).
    if (opts_.workers != 1) {
      throw std::invalid_argument(fmt::format(
          "switch {}: buffer.flow_control: credit runs on one worker ({} asked: --workers, or by "
          "default one per EAL lcore but the main one); pass --workers 1", tables_.name,
          opts_.workers));
    }
    credits_ = std::make_unique<Credits>(tables_.credit_limits, ports());
  }
  groups_.publish(live_groups());
  auto set = make_balancers(tables_.balancer);
  current_set_ = set.get();
  // The cells start empty, so the first publish retires nothing worth waiting for (and no worker
  // runs yet to pass a quiescent point).
  balancers_.publish(std::move(set));
}

SwitchRuntime::~SwitchRuntime() = default;

std::unique_ptr<LiveGroups> SwitchRuntime::live_groups() const {
  auto g = std::make_unique<LiveGroups>();
  const auto live = [&](const std::vector<topo::PortId>& group,
                        const std::vector<topo::PortId>& withdrawn) {
    std::vector<topo::PortId> out;
    for (topo::PortId p : group) {
      if (port_up_[p].load(std::memory_order_relaxed) &&
          !std::binary_search(withdrawn.begin(), withdrawn.end(), p))
        out.push_back(p);
    }
    return out;
  };
  for (const auto& group : tables_.groups) g->ports.push_back(live(group, {}));
  g->routes = tables_.routes.data();
  const bool withdrawn =
      std::any_of(withdrawn_.begin(), withdrawn_.end(), [](const auto& w) { return !w.empty(); });
  if (!withdrawn) return g;
  g->route_group.resize(tables_.routes.size());
  for (size_t r = 0; r < tables_.routes.size(); ++r) {
    const uint32_t group = tables_.routes[r].group;
    g->route_group[r] = group;
    if (r < withdrawn_.size() && !withdrawn_[r].empty()) {
      g->route_group[r] = static_cast<uint32_t>(g->ports.size());
      g->ports.push_back(live(tables_.groups[group], withdrawn_[r]));
    }
  }
  return g;
}

std::unique_ptr<BalancerSet> SwitchRuntime::make_balancers(const conf::BalancerSpec& spec) const {
  lb::SwitchContext ctx;
  ctx.seed = tables_.seed;
  ctx.lcores = opts_.workers;
  ctx.ports = ports();
  ctx.rx_queues = opts_.rx_queues;
  ctx.routing = opts_.routing;
  ctx.switch_index = tables_.sw;
  ctx.frame_bytes = tables_.frame_bytes;
  ctx.buffer_bytes = tables_.buffer_bytes;
  ctx.level = tables_.level;
  for (const PortInfo& p : tables_.ports) ctx.port_rate_bps.push_back(p.rate_bps);
  if (lb::traits(spec.algorithm).destination_orders) ctx.dest_ports.resize(tables_.num_dests);
  for (const auto& r : tables_.routes) {
    if (r.local || r.dest >= ctx.dest_ports.size()) continue;  // local hosts: no choice
    auto& dest = ctx.dest_ports[r.dest];
    if (!dest.empty()) continue;
    for (topo::PortId p : tables_.groups[r.group]) {
      // Weights: the link rate in Gb/s, so unequal links get proportional shares (Ofan §4.3).
      dest.push_back({p, static_cast<uint32_t>(std::max(1.0, tables_.ports[p].rate_bps / 1e9))});
    }
  }
  auto set = std::make_unique<BalancerSet>();
  set->queue_bytes = spec.queue_unit == lb::QueueUnit::kBytes;
  set->factory = std::make_unique<lb::BalancerFactory>(spec, std::move(ctx));
  for (uint16_t p = 0; p < ports(); ++p) {
    if (!port_up_[p].load()) set->factory->set_port_state(p, false);
  }
  for (uint32_t r = 0; r < withdrawn_.size(); ++r) {
    if (!withdrawn_[r].empty() && orders_route(r))
      set->factory->set_withdrawn(tables_.routes[r].dest, withdrawn_[r]);
  }
  for (uint32_t w = 0; w < opts_.workers; ++w) set->per_worker.push_back(set->factory->make(w));
  return set;
}

void SwitchRuntime::quiescent(uint32_t worker) {
  groups_.domain().quiescent(worker);
  balancers_.domain().quiescent(worker);
}

void SwitchRuntime::set_port_state(uint16_t port, bool up) {
  if (port >= ports())
    throw std::invalid_argument(fmt::format("no port {} (the switch has {})", port, ports()));
  std::lock_guard<std::mutex> lock(control_);
  if (port_up_[port].exchange(up) == up) return;
  groups_.publish(live_groups());
  current_set_->factory->set_port_state(port, up);
}

bool SwitchRuntime::set_withdrawn(uint32_t route, std::vector<topo::PortId> ports) {
  if (route >= tables_.routes.size()) {
    throw std::invalid_argument(
        fmt::format("no route {} (the switch has {})", route, tables_.routes.size()));
  }
  std::sort(ports.begin(), ports.end());
  std::lock_guard<std::mutex> lock(control_);
  if (withdrawn_.size() <= route) {
    if (ports.empty()) return false;
    withdrawn_.resize(tables_.routes.size());
  }
  if (withdrawn_[route] == ports) return false;
  withdrawn_[route] = ports;
  groups_.publish(live_groups());
  if (orders_route(route)) {
    current_set_->factory->set_withdrawn(tables_.routes[route].dest, std::move(ports));
  }
  return true;
}

// Ofan's orders are per destination key, taken from the first route with that key
// (make_balancers); the others with the same key (an aggregation switch's own-pod leaves, one
// port each) have no choice to make.
bool SwitchRuntime::orders_route(uint32_t route) const {
  const RouteEntry& re = tables_.routes[route];
  if (re.local) return false;
  for (uint32_t r = 0; r < route; ++r) {
    if (!tables_.routes[r].local && tables_.routes[r].dest == re.dest) return false;
  }
  return true;
}

void SwitchRuntime::set_port_rate(uint16_t port, double rate_bps) {
  if (port >= ports())
    throw std::invalid_argument(fmt::format("no port {} (the switch has {})", port, ports()));
  if (!(rate_bps > 0)) throw std::invalid_argument(fmt::format("port {}: rate must be > 0", port));
  if (per_worker_tx()) {
    // Every worker sends on the port through its own tx queue: one shaper would need them all.
    throw std::invalid_argument(fmt::format(
        "port {}: its rate cannot be set while each worker sends on a tx queue of its own "
        "(--no-shaping with --tx-queues >= --workers); start with --tx-queues 1 or with shaping",
        port));
  }
  rate_request_[port].store(std::bit_cast<uint64_t>(rate_bps), std::memory_order_release);
}

void SwitchRuntime::set_balancer(const conf::BalancerSpec& spec) {
  std::lock_guard<std::mutex> lock(control_);
  // Polarized routes over every fabric port, the others over minimal hops: the route tables
  // differ, so a switch started with one cannot change to the other.
  const lb::Algorithm now = tables_.balancer.algorithm;
  if (lb::traits(spec.algorithm).every_fabric_port != lb::traits(now).every_fabric_port) {
    throw std::invalid_argument(
        fmt::format("cannot switch between {} and {} at run time: their route tables differ; "
                    "restart the switch",
                    lb::to_string(now), lb::to_string(spec.algorithm)));
  }
  auto next = make_balancers(spec);  // throws on a bad spec, before anything changes
  current_set_ = next.get();
  balancers_.publish(std::move(next));
}

std::string SwitchRuntime::algorithm() const {
  return std::string(lb::to_string(balancers_.read()->factory->algorithm()));
}

uint64_t SwitchRuntime::sum(uint16_t port, Counter PortCounters::*field) const {
  uint64_t s = 0;
  for (const auto& c : counters_) s += (c->port[port].*field).get();
  return s;
}

uint64_t SwitchRuntime::sum_drops(uint16_t port, DropReason r) const {
  uint64_t s = 0;
  for (const auto& c : counters_) s += c->port[port].drops[static_cast<size_t>(r)].get();
  return s;
}

}  // namespace spraylab::dataplane
