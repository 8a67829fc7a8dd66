// Link events on a built fabric (Fabric::apply_link_event): the calls spraylab-switch's control
// plane makes for /spraylab/port_down and port_up, and the port's shaper rate; the link models the
// wire's side (frames in flight lost, serialisation at the new rate).
#include <fmt/format.h>

#include "conf/units.h"
#include "fabric/fabric_build.h"

namespace spraylab::fabric {

void Fabric::apply_link_event(size_t i, uint64_t now) {
  const topo::PlannedLinkEvent& ev = link_events_[i];
  for (const topo::PortRef& end : ev.ends) {
    SwitchNode& sw = *switches_[routing_->graph().index_of(end.node)];
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
    nlohmann::ordered_json dirs = nlohmann::ordered_json::array();
    for (const topo::PortRef& end : ev.ends) {
      const SwitchNode& sw = *switches_[routing_->graph().index_of(end.node)];
      const Link& l = *sw.out_link(end.port);
      const topo::PortRef peer = topology_->peer(end.node, end.port);
      dirs.push_back(
          {{"from", topology_->node(end.node).name},
           {"to", topology_->node(peer.node).name},
           {"port", end.port},
           {"port_down_drops", sw.runtime().sum_drops(end.port, dataplane::DropReason::kPortDown)},
           {"lost_in_flight", l.lost_in_flight()},
           {"sent_while_down", l.sent_while_down()}});
    }
    j["directions"] = std::move(dirs);
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace spraylab::fabric
