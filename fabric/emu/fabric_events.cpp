// Link events on a built fabric (Fabric::apply_link_event): the calls spraylab-switch's control
// plane makes for /spraylab/port_down and port_up, and the port's shaper rate; the link models the
// wire's side (frames in flight lost, serialisation at the new rate).
#include <fmt/format.h>

#include "conf/units.h"
#include "fabric/emu/fabric.h"
#include "topo/minimal_reach.h"

namespace spraylab::fabric {

void Fabric::apply_link_event(size_t i, uint64_t now) {
  const topo::PlannedLinkEvent& ev = link_events_[i];
  const topo::SwitchGraph& g = routing_->graph();
  if (edge_down_.empty()) edge_down_.assign(g.edges(), false);
  for (const topo::PortRef& end : ev.ends) {
    const uint32_t index = g.index_of(end.node);
    SwitchNode& sw = *switches_[index];
    if (ev.action != conf::LinkAction::kRate)
      edge_down_[topo::edge_of_port(g, index, end.port)] = ev.action == conf::LinkAction::kDown;
    Link& out = *sw.out_link(end.port);
    switch (ev.action) {
      case conf::LinkAction::kDown:
        // The balancers stop choosing the port; what is queued on it is dropped (port_down) at
        // its owner's next drain; what is on the wire is lost.
        sw.runtime().set_port_state(end.port, false);
        out.fail();
        // Virtual time: this is the consumer's thread, so the frames go now, not at its next
        // wake (when the link may be up again and carrying new ones).
        if (mode_ == Mode::kVirtual) out.purge();
        break;
      case conf::LinkAction::kUp:
        out.restore();
        sw.runtime().set_port_state(end.port, true);
        break;
      case conf::LinkAction::kRate:
        sw.runtime().set_port_rate(end.port, ev.rate_bps);
        out.set_rate(ev.rate_bps);
        break;
    }
  }
  applied_at_[i] = now >= start_ns_ ? now - start_ns_ : 0;
  for (const topo::PortRef& end : ev.ends) {
    const SwitchNode& sw = *switches_[g.index_of(end.node)];
    tx_at_event_[i].push_back(sw.runtime().sum(end.port, &dataplane::PortCounters::tx_packets));
  }
  if (ev.action != conf::LinkAction::kRate && exp_.events.reroute) rerouted_[i] = reroute();
}

uint32_t Fabric::reroute() {
  const topo::MinimalReach reach(*routing_, edge_down_);
  // The leaves a pod route covers (an aggregation switch keys other pods by pod, Ofan §4.1).
  std::vector<std::vector<uint32_t>> pod_leaves;
  for (uint32_t rank = 0; rank < routing_->leaves().size(); ++rank) {
    const uint32_t pod = topology_->node(routing_->graph().node_of(routing_->leaves()[rank])).pod;
    if (pod_leaves.size() <= pod) pod_leaves.resize(pod + 1);
    pod_leaves[pod].push_back(rank);
  }
  uint32_t changed = 0;
  std::vector<topo::PortId> out;
  for (size_t s = 0; s < switches_.size(); ++s) {
    dataplane::SwitchRuntime& rt = switches_[s]->runtime();
    const dataplane::SwitchTables& t = rt.tables();
    // Polarized routes over every fabric port by its own labels, not over minimal next hops.
    if (lb::traits(t.balancer.algorithm).every_fabric_port) continue;
    for (uint32_t r = 0; r < t.routes.size(); ++r) {
      const dataplane::RouteEntry& re = t.routes[r];
      if (re.local) continue;
      const std::vector<uint32_t>* leaves = nullptr;
      const std::vector<uint32_t> one{re.dst_leaf};
      if (re.dst_leaf != UINT32_MAX)
        leaves = &one;
      else if (re.dest < pod_leaves.size())
        leaves = &pod_leaves[re.dest];
      if (leaves == nullptr) continue;
      // A next hop stays while its switch reaches some leaf the route covers: a pod route's
      // traffic to the others is withdrawn where it is keyed by leaf, further back.
      out.clear();
      for (topo::PortId p : t.groups[re.group]) {
        const uint32_t next = t.ports[p].peer_switch;
        if (next == UINT32_MAX) continue;
        bool any = false;
        for (uint32_t l : *leaves) any = any || reach.reaches(next, l);
        if (!any) out.push_back(p);
      }
      changed += rt.set_withdrawn(r, out) ? 1 : 0;
    }
  }
  return changed;
}

nlohmann::ordered_json Fabric::link_events_json() const {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (size_t i = 0; i < link_events_.size(); ++i) {
    const topo::PlannedLinkEvent& ev = link_events_[i];
    nlohmann::ordered_json j;
    j["at_ns"] = ev.at_ns;
    j["link"] = ev.name;
    j["direction"] = ev.direction;
    j["action"] = std::string(conf::kLinkActionNames[static_cast<size_t>(ev.action)]);
    if (ev.action == conf::LinkAction::kRate) j["rate"] = conf::format_rate(ev.rate_bps);
    j["random"] = ev.random;
    j["applied_at_ns"] = applied_at_[i] == UINT64_MAX ? nlohmann::ordered_json(nullptr)
                                                      : nlohmann::ordered_json(applied_at_[i]);
    j["routes_changed"] = rerouted_[i];
    nlohmann::ordered_json dirs = nlohmann::ordered_json::array();
    for (size_t k = 0; k < ev.ends.size(); ++k) {
      const topo::PortRef& end = ev.ends[k];
      const SwitchNode& sw = *switches_[routing_->graph().index_of(end.node)];
      // The port's frames sent before the event and after it (the fabric is the run's own).
      const uint64_t tx = sw.runtime().sum(end.port, &dataplane::PortCounters::tx_packets);
      const bool applied = k < tx_at_event_[i].size();
      const nlohmann::ordered_json null(nullptr);
      const Link& l = *sw.out_link(end.port);
      const topo::PortRef peer = topology_->peer(end.node, end.port);
      dirs.push_back(
          {{"from", topology_->node(end.node).name},
           {"to", topology_->node(peer.node).name},
           {"port", end.port},
           {"port_down_drops", sw.runtime().sum_drops(end.port, dataplane::DropReason::kPortDown)},
           {"lost_in_flight", l.lost_in_flight()},
           {"sent_while_down", l.sent_while_down()},
           {"tx_packets_before", applied ? nlohmann::ordered_json(tx_at_event_[i][k]) : null},
           {"tx_packets_after", applied ? nlohmann::ordered_json(tx - tx_at_event_[i][k]) : null}});
    }
    j["directions"] = std::move(dirs);
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace spraylab::fabric
