#include "topo/build.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <unordered_map>

#include "conf/units.h"

namespace spraylab::topo {
namespace {

Topology build_explicit(const conf::TopologySpec& spec, const conf::LinkSpec& defaults) {
  Topology t;
  t.kind = Kind::kExplicit;
  std::unordered_map<std::string, NodeId> by_name;
  for (const auto& s : spec.switches) {
    by_name[s.name] = t.add_switch(static_cast<uint8_t>(s.level), 0, s.name);
  }
  for (const auto& h : spec.hosts) by_name[h] = t.add_host(h);
  for (const auto& l : spec.links) {
    auto a = by_name.find(l.a), b = by_name.find(l.b);
    // The loader has checked names; this guards callers that fill the spec by hand.
    if (a == by_name.end() || b == by_name.end() || a->second == b->second) {
      throw TopologyError(
          fmt::format("link {} - {} (line {}): unknown or identical ends", l.a, l.b, l.line));
    }
    t.add_link(a->second, b->second, l.rate_bps.value_or(defaults.rate_bps),
               l.delay_ns.value_or(defaults.delay_ns));
  }
  // Index switches within their level, as the generators do.
  std::unordered_map<uint8_t, uint32_t> next_index;
  Topology out;
  out.kind = t.kind;
  for (const Node& n : t.nodes()) {
    if (n.kind == NodeKind::kSwitch) {
      out.add_switch(n.level, next_index[n.level]++, n.name);
    } else {
      out.add_host(n.name);
    }
  }
  for (const Link& l : t.links()) out.add_link(l.a.node, l.b.node, l.rate_bps, l.delay_ns);
  return out;
}

}  // namespace

Topology build(const conf::TopologySpec& spec, const conf::LinkSpec& links) {
  const LinkDefaults link{links.rate_bps, links.delay_ns};
  switch (spec.generator) {
    case Kind::kFatTree:
      return fat_tree({spec.k, spec.levels, link, spec.pods});
    case Kind::kLeafSpine:
      return leaf_spine({spec.leaves, spec.spines, spec.hosts_per_leaf, link});
    case Kind::kMrls: {
      MrlsParams p;
      p.leaves = spec.leaves;
      p.uplinks = spec.uplinks;
      p.downlinks = spec.downlinks;
      p.seed = spec.seed;
      p.max_tries = spec.max_tries;
      p.link = link;
      return mrls(p);
    }
    case Kind::kExplicit:
      return build_explicit(spec, links);
    case Kind::kDragonfly:
      return dragonfly({spec.hosts_per_router, spec.routers_per_group, spec.global_links_per_router,
                        spec.groups, link});
    case Kind::kDragonflyPlus:
      return dragonfly_plus({spec.leaves_per_group, spec.spines_per_group, spec.hosts_per_leaf,
                             spec.global_links_per_spine, spec.groups, link});
    case Kind::kOft:
      return oft({spec.q, spec.hosts_per_leaf, link});
  }
  throw TopologyError(fmt::format("unknown topology kind {}", static_cast<int>(spec.generator)));
}

void write_yaml(const Topology& t, std::ostream& out, const std::string& comment) {
  fmt::print(out, "# {}\n# {} nodes, {} links; port numbers follow the order of `links`.\n",
             comment, t.nodes().size(), t.links().size());
  // One rate and delay for the file when every link shares them; per-link values otherwise.
  const Link* first = t.links().empty() ? nullptr : &t.links().front();
  bool uniform = true;
  for (const Link& l : t.links()) {
    uniform = uniform && l.rate_bps == first->rate_bps && l.delay_ns == first->delay_ns;
  }
  if (first && uniform) {
    fmt::print(out, "links:\n  rate: {}\n  delay: {}\n", conf::format_rate(first->rate_bps),
               conf::format_time(first->delay_ns));
  }
  fmt::print(out, "topology:\n  generator: explicit\n  switches:\n");
  for (NodeId s : t.switches()) {
    fmt::print(out, "    - {{name: {}, level: {}}}\n", t.node(s).name, t.node(s).level);
  }
  fmt::print(out, "  hosts:\n");
  for (NodeId h : t.hosts()) fmt::print(out, "    - {}\n", t.node(h).name);
  fmt::print(out, "  links:\n");
  for (const Link& l : t.links()) {
    const std::string& a = t.node(l.a.node).name;
    const std::string& b = t.node(l.b.node).name;
    if (uniform) {
      fmt::print(out, "    - [{}, {}]\n", a, b);
    } else {
      fmt::print(out, "    - {{a: {}, b: {}, rate: {}, delay: {}}}\n", a, b,
                 conf::format_rate(l.rate_bps), conf::format_time(l.delay_ns));
    }
  }
}

}  // namespace spraylab::topo
