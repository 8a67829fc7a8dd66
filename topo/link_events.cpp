#include "topo/link_events.h"

#include <fmt/format.h>

#include <algorithm>
#include <random>

#include "conf/config_error.h"
#include "conf/units.h"
#include "conf/yaml_value.h"

namespace spraylab::topo {
namespace {

bool switch_to_switch(const Topology& t, const Link& l) {
  return t.node(l.a.node).kind == NodeKind::kSwitch && t.node(l.b.node).kind == NodeKind::kSwitch;
}

// The switch named by one end of an event's link, or a precise error.
NodeId find_switch(const Topology& t, const conf::Experiment& e, const conf::LinkEventSpec& ev,
                   const std::string& name) {
  auto fail = [&](const std::string& message) -> NodeId {
    throw conf::ConfigError(e.source, ev.line, ev.column, ev.path + ".link", message);
  };
  const NodeId n = t.find(name);
  if (n == kNoNode) {
    std::vector<std::string_view> names;
    for (NodeId s : t.switches()) names.push_back(t.node(s).name);
    const std::string message = fmt::format("no switch named '{}'", name);
    if (auto guess = conf::nearest(name, names))
      return fail(message + fmt::format("; did you mean '{}'?", *guess));
    return fail(message);
  }
  if (t.node(n).kind != NodeKind::kSwitch) {
    return fail(fmt::format("'{}' is a host; events act on links between two switches", name));
  }
  return n;
}

PlannedLinkEvent plan_one(const conf::Experiment& e, const Topology& t,
                          const conf::LinkEventSpec& ev) {
  const NodeId a = find_switch(t, e, ev, ev.a), b = find_switch(t, e, ev, ev.b);
  std::vector<uint32_t> between;
  for (uint32_t id : t.node(a).links) {
    const Link& l = t.links()[id];
    if ((l.a.node == a && l.b.node == b) || (l.a.node == b && l.b.node == a)) between.push_back(id);
  }
  if (between.size() != 1) {
    throw conf::ConfigError(
        e.source, ev.line, ev.column, ev.path + ".link",
        between.empty() ? fmt::format("no link between '{}' and '{}'", ev.a, ev.b)
                        : fmt::format("{} links join '{}' and '{}'; an event names one link",
                                      between.size(), ev.a, ev.b));
  }
  const Link& l = t.links()[between[0]];
  if (ev.action == conf::LinkAction::kRate && ev.rate_bps > l.rate_bps * (1 + 1e-12)) {
    throw conf::ConfigError(
        e.source, ev.line, ev.column, ev.path + ".rate",
        fmt::format("{} is above the link's own rate ({}); a link event may "
                    "only slow a link down or restore its rate",
                    conf::format_rate(ev.rate_bps), conf::format_rate(l.rate_bps)));
  }
  PlannedLinkEvent p;
  p.at_ns = ev.at_ns;
  p.action = ev.action;
  p.rate_bps = ev.rate_bps;
  p.link = between[0];
  p.name = ev.a + "-" + ev.b;
  const PortRef at_a = l.a.node == a ? l.a : l.b, at_b = l.a.node == a ? l.b : l.a;
  if (ev.from.empty()) {
    p.direction = "both";
    p.ends = {at_a, at_b};
  } else {
    const bool from_a = ev.from == ev.a;
    p.direction = from_a ? ev.a + "->" + ev.b : ev.b + "->" + ev.a;
    p.ends = {from_a ? at_a : at_b};
  }
  return p;
}

// N distinct switch-to-switch links, drawn with the experiment seed (a partial Fisher-Yates
// shuffle on a generator whose output the standard fixes, so one seed gives one draw anywhere).
std::vector<PlannedLinkEvent> random_failures(const conf::Experiment& e, const Topology& t) {
  const uint32_t n = e.events.random_link_failures;
  std::vector<uint32_t> candidates;
  for (uint32_t id = 0; id < t.links().size(); ++id) {
    if (switch_to_switch(t, t.links()[id])) candidates.push_back(id);
  }
  if (n > candidates.size()) {
    throw conf::ConfigError(e.source, 0, 0, "events.random_link_failures",
                            fmt::format("{} random failures, but the topology has {} "
                                        "switch-to-switch links",
                                        n, candidates.size()));
  }
  std::mt19937_64 rng(e.seed ^ 0x6c696e6b2d6661ULL);  // "link-fa": not the balancers' stream
  for (uint32_t i = 0; i < n; ++i) {
    const uint64_t span = candidates.size() - i;
    std::swap(candidates[i], candidates[i + rng() % span]);
  }
  candidates.resize(n);
  std::sort(candidates.begin(), candidates.end());
  std::vector<PlannedLinkEvent> out;
  for (uint32_t id : candidates) {
    const Link& l = t.links()[id];
    PlannedLinkEvent p;
    p.at_ns = e.events.random_failures_at_ns;
    p.action = conf::LinkAction::kDown;
    p.random = true;
    p.link = id;
    p.name = t.node(l.a.node).name + "-" + t.node(l.b.node).name;
    p.direction = "both";
    p.ends = {l.a, l.b};
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace

std::vector<PlannedLinkEvent> plan_link_events(const conf::Experiment& e, const Topology& t) {
  std::vector<PlannedLinkEvent> out;
  for (const conf::LinkEventSpec& ev : e.events.links) out.push_back(plan_one(e, t, ev));
  for (PlannedLinkEvent& p : random_failures(e, t)) out.push_back(std::move(p));
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& x, const auto& y) { return x.at_ns < y.at_ns; });
  return out;
}

}  // namespace spraylab::topo
