#include "fabric/namespaced/link_events.h"

#include <fmt/format.h>

#include <stdexcept>
#include <utility>

#include "conf/units.h"

namespace spraylab::fabric::namespaced {
namespace {

using json = nlohmann::ordered_json;

bool downs_or_ups(const conf::EventsSpec& ev) {
  if (ev.random_link_failures > 0) return true;
  for (const conf::LinkEventSpec& l : ev.links) {
    if (l.action != conf::LinkAction::kRate) return true;
  }
  return false;
}

}  // namespace

void check_events(const conf::Experiment& e) {
  if (!e.events.reroute || !downs_or_ups(e.events)) return;
  throw std::invalid_argument(fmt::format(
      "{}: events.reroute: the namespaced mode cannot reroute after a link goes down or up "
      "(spraylab-switch takes its own ports down and up over telemetry, but no switch withdraws "
      "the next hops that no longer reach a destination); set events.reroute: false (each "
      "switch then only stops choosing its own dead ports), or run --mode virtual or inprocess",
      e.source));
}

LinkEvents::LinkEvents(const conf::Experiment& e, const topo::Topology& t, const FabricState& st,
                       Command command)
    : t_(t), command_(std::move(command)) {
  if (e.events.empty()) return;
  check_events(e);
  for (const Process& p : st.processes) {
    if (p.role == Role::kSwitch) switches_[p.node] = &p;
  }
  events_ = topo::plan_link_events(e, t);
  applied_at_.assign(events_.size(), UINT64_MAX);
  tx_at_event_.resize(events_.size());
  for (const topo::PlannedLinkEvent& ev : events_) {
    std::vector<uint64_t>& before = drops_before_.emplace_back();
    std::vector<uint64_t>& tx = tx_before_.emplace_back();
    for (const topo::PortRef& end : ev.ends) {
      before.push_back(port_count(end, "drops_port_down"));
      tx.push_back(port_count(end, "tx_packets"));
    }
  }
}

uint64_t LinkEvents::next_at() const {
  return next_ < events_.size() ? events_[next_].at_ns : UINT64_MAX;
}

void LinkEvents::apply_due(uint64_t now_ns, const std::function<uint64_t()>& clock_ns) {
  for (; next_ < events_.size() && events_[next_].at_ns <= now_ns; ++next_) {
    const topo::PlannedLinkEvent& ev = events_[next_];
    for (const topo::PortRef& end : ev.ends) {
      switch (ev.action) {
        case conf::LinkAction::kDown:
          send(end, fmt::format("/spraylab/port_down,{}", end.port));
          break;
        case conf::LinkAction::kUp:
          send(end, fmt::format("/spraylab/port_up,{}", end.port));
          break;
        case conf::LinkAction::kRate:
          send(end,
               fmt::format("/spraylab/port_rate,{},{}", end.port, conf::format_rate(ev.rate_bps)));
          break;
      }
    }
    applied_at_[next_] = clock_ns();
    for (const topo::PortRef& end : ev.ends)
      tx_at_event_[next_].push_back(port_count(end, "tx_packets"));
  }
}

json LinkEvents::to_json() const {
  json out = json::array();
  for (size_t i = 0; i < events_.size(); ++i) {
    const topo::PlannedLinkEvent& ev = events_[i];
    json j;
    j["at_ns"] = ev.at_ns;
    j["link"] = ev.name;
    j["direction"] = ev.direction;
    j["action"] = std::string(conf::kLinkActionNames[static_cast<size_t>(ev.action)]);
    if (ev.action == conf::LinkAction::kRate) j["rate"] = conf::format_rate(ev.rate_bps);
    j["random"] = ev.random;
    j["applied_at_ns"] = applied_at_[i] == UINT64_MAX ? json(nullptr) : json(applied_at_[i]);
    j["routes_changed"] = 0;  // check_events refuses the events that would reroute
    json dirs = json::array();
    for (size_t k = 0; k < ev.ends.size(); ++k) {
      const topo::PortRef& end = ev.ends[k];
      // The port's frames sent before the event (since the release) and after it.
      const uint64_t tx = port_count(end, "tx_packets");
      const bool applied = k < tx_at_event_[i].size();
      const json null(nullptr);
      // The wire between two processes stays up: a port taken down stops sending at its
      // switch's next link poll (100 us), and nothing already sent is lost on the way.
      dirs.push_back(
          {{"from", t_.node(end.node).name},
           {"to", t_.node(t_.peer(end.node, end.port).node).name},
           {"port", end.port},
           {"port_down_drops", port_count(end, "drops_port_down") - drops_before_[i][k]},
           {"lost_in_flight", 0},
           {"sent_while_down", 0},
           {"tx_packets_before", applied ? json(tx_at_event_[i][k] - tx_before_[i][k]) : null},
           {"tx_packets_after", applied ? json(tx - tx_at_event_[i][k]) : null}});
    }
    j["directions"] = std::move(dirs);
    out.push_back(std::move(j));
  }
  return out;
}

void LinkEvents::restore() {
  for (size_t i = 0; i < next_; ++i) {
    for (const topo::PortRef& end : events_[i].ends) {
      if (events_[i].action != conf::LinkAction::kRate) {
        send(end, fmt::format("/spraylab/port_up,{}", end.port));
        continue;
      }
      const double rate = t_.links()[t_.node(end.node).links[end.port]].rate_bps;
      send(end, fmt::format("/spraylab/port_rate,{},{}", end.port, conf::format_rate(rate)));
    }
  }
}

const Process& LinkEvents::switch_at(const topo::PortRef& end) const {
  return *switches_.at(t_.node(end.node).name);
}

uint64_t LinkEvents::port_count(const topo::PortRef& end, const char* key) const {
  const json j = command_(switch_at(end), fmt::format("/spraylab/port,{}", end.port));
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<uint64_t>() : 0;
}

void LinkEvents::send(const topo::PortRef& end, const std::string& command) const {
  const Process& p = switch_at(end);
  if (command_(p, command).contains("port")) return;
  throw std::runtime_error(
      fmt::format("switch {} did not take {} (its log: {})", p.node, command, p.log));
}

}  // namespace spraylab::fabric::namespaced
