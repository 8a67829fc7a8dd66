#include "topo/dragonfly_groups.h"

#include <algorithm>
#include <deque>
#include <stdexcept>
#include <string>

#include "topo/generators.h"
#include "topo/palm_tree.h"

namespace spraylab::topo {
namespace {

constexpr uint8_t kFar = UINT8_MAX;

// Whether `make` (a generator call) rebuilds exactly a's links; parameters the generator refuses
// do not.
template <typename Make>
bool rebuilds(const Topology& a, Make make) {
  Topology b;
  try {
    b = make();
  } catch (const TopologyError&) {
    return false;
  }
  if (a.links().size() != b.links().size() || a.nodes().size() != b.nodes().size()) return false;
  for (size_t i = 0; i < a.links().size(); ++i) {
    if (!(a.links()[i].a == b.links()[i].a && a.links()[i].b == b.links()[i].b)) return false;
  }
  return true;
}

[[noreturn]] void not_generated(const Topology& t) {
  throw std::invalid_argument("no " + std::string(to_string(t.kind)) +
                              " generator parameters rebuild this topology's links");
}

}  // namespace

DragonflyGroups::DragonflyGroups(const Routing& routing) : routing_(routing) {
  const Topology& t = routing.topology();
  if (t.kind != Kind::kDragonfly && t.kind != Kind::kDragonflyPlus) {
    throw std::invalid_argument(
        "the Dragonfly routings need a topology made by the dragonfly or dragonfly-plus "
        "generator, not " +
        std::string(to_string(t.kind)));
  }
  const SwitchGraph& g = routing.graph();
  find_groups(t);
  // Members, and the local distances inside each group by BFS over its local links.
  group_size_.assign(groups_, 0);
  member_.resize(g.size());
  for (uint32_t s = 0; s < g.size(); ++s) member_[s] = group_size_[group_[s]]++;
  std::vector<std::vector<uint32_t>> members(groups_);
  for (uint32_t s = 0; s < g.size(); ++s) members[group_[s]].push_back(s);
  local_first_.assign(groups_ + 1, 0);
  for (uint32_t i = 0; i < groups_; ++i) {
    local_first_[i + 1] = local_first_[i] + size_t{group_size_[i]} * group_size_[i];
  }
  local_.assign(local_first_.back(), kFar);
  for (uint32_t i = 0; i < groups_; ++i) {
    const uint32_t k = group_size_[i];
    for (uint32_t src : members[i]) {
      uint8_t* row = local_.data() + local_first_[i] + size_t{member_[src]} * k;
      std::deque<uint32_t> open{src};
      row[member_[src]] = 0;
      while (!open.empty()) {
        const uint32_t u = open.front();
        open.pop_front();
        for (uint32_t e = g.begin(u); e < g.end(u); ++e) {
          const uint32_t v = g.neighbour(e);
          if (group_[v] != i || row[member_[v]] != kFar) continue;
          row[member_[v]] = static_cast<uint8_t>(row[member_[u]] + 1);
          open.push_back(v);
        }
      }
    }
  }
  leaf_switch_ = routing.leaves();
  group_first_.assign(groups_ + 1, 0);
  for (uint32_t leaf : leaf_switch_) ++group_first_[group_[leaf] + 1];
  for (uint32_t i = 0; i < groups_; ++i) group_first_[i + 1] += group_first_[i];
  group_leaves_.resize(leaf_switch_.size());
  std::vector<uint32_t> fill(group_first_.begin(), group_first_.end() - 1);
  for (uint32_t r = 0; r < leaf_switch_.size(); ++r) group_leaves_[fill[group_[leaf_switch_[r]]]++] = r;
  // Every edge's ends, and the global links by ordered pair of groups.
  from_.resize(g.edges());
  to_.resize(g.edges());
  pair_first_.assign(size_t{groups_} * groups_ + 1, 0);
  for (uint32_t s = 0; s < g.size(); ++s) {
    for (uint32_t e = g.begin(s); e < g.end(s); ++e) {
      from_[e] = s;
      to_[e] = g.neighbour(e);
      if (group_[s] != group_[to_[e]]) ++pair_first_[size_t{group_[s]} * groups_ + group_[to_[e]] + 1];
    }
  }
  for (size_t i = 1; i < pair_first_.size(); ++i) pair_first_[i] += pair_first_[i - 1];
  pair_links_.resize(pair_first_.back());
  std::vector<size_t> at(pair_first_.begin(), pair_first_.end() - 1);
  for (uint32_t e = 0; e < g.edges(); ++e) {
    if (global(e)) pair_links_[at[size_t{group_[from_[e]]} * groups_ + group_[to_[e]]]++] = {from_[e], to_[e]};
  }
}

void DragonflyGroups::find_groups(const Topology& t) {
  const SwitchGraph& g = routing_.graph();
  group_.resize(g.size());
  if (g.size() == 0) not_generated(t);
  if (t.kind == Kind::kDragonfly) {
    // Routers are switches 0 .. R - 1 in order; try a = routers per group from the largest.
    const uint32_t routers = g.size();
    const uint32_t fabric = g.end(0) - g.begin(0);
    const auto hosts = static_cast<uint32_t>(t.degree(g.node_of(0)) - fabric);
    for (uint32_t a = std::min(routers, fabric + 1); a >= 1; --a) {
      const uint32_t h = fabric - (a - 1);
      if (routers % a != 0 || h == 0) continue;
      const uint32_t groups = routers / a;
      if (!palm_tree_groups_problem(groups, uint64_t{a} * h, "a·h").empty()) continue;
      if (!rebuilds(t, [&] { return dragonfly({hosts, a, h, groups, {}}); })) continue;
      groups_ = groups;
      for (uint32_t s = 0; s < routers; ++s) group_[s] = s / a;
      return;
    }
    not_generated(t);
  }
  // Dragonfly+: a leaf links to every spine of its group, a spine to every leaf and h others.
  uint32_t leaves = 0, spines = 0, first_spine = UINT32_MAX;
  for (uint32_t s = 0; s < g.size(); ++s) {
    if (t.node(g.node_of(s)).level == 0) {
      ++leaves;
    } else {
      ++spines;
      first_spine = std::min(first_spine, s);
    }
  }
  if (leaves == 0 || spines == 0) not_generated(t);
  const uint32_t s_per = g.end(0) - g.begin(0);
  if (s_per == 0 || spines % s_per != 0) not_generated(t);
  const uint32_t groups = spines / s_per;
  if (leaves % groups != 0) not_generated(t);
  const uint32_t l_per = leaves / groups;
  const uint32_t spine_fabric = g.end(first_spine) - g.begin(first_spine);
  if (spine_fabric <= l_per) not_generated(t);
  const uint32_t h = spine_fabric - l_per;
  const auto hosts = static_cast<uint32_t>(t.degree(g.node_of(0)) - s_per);
  if (!palm_tree_groups_problem(groups, uint64_t{s_per} * h, "spines·h").empty() ||
      !rebuilds(t, [&] { return dragonfly_plus({l_per, s_per, hosts, h, groups, {}}); })) {
    not_generated(t);
  }
  groups_ = groups;
  for (uint32_t s = 0; s < g.size(); ++s) {
    const Node& n = t.node(g.node_of(s));
    group_[s] = n.level == 0 ? n.index / l_per : n.index / s_per;
  }
}

uint32_t DragonflyGroups::local(uint32_t a, uint32_t b) const {
  const uint32_t i = group_[a];
  return local_[local_first_[i] + size_t{member_[a]} * group_size_[i] + member_[b]];
}

uint32_t DragonflyGroups::distance(uint32_t sw, uint32_t leaf_rank) const {
  const uint32_t t = leaf_switch_[leaf_rank];
  if (group_[sw] == group_[t]) return local(sw, t);
  const size_t pair = size_t{group_[sw]} * groups_ + group_[t];
  uint32_t best = UINT32_MAX;
  for (size_t i = pair_first_[pair]; i < pair_first_[pair + 1]; ++i) {
    const auto [u, v] = pair_links_[i];
    best = std::min(best, local(sw, u) * kLocalWeight + kGlobalWeight + local(v, t) * kLocalWeight);
  }
  return best;
}

bool DragonflyGroups::minimal(uint32_t sw, uint32_t e, uint32_t leaf_rank) const {
  const uint32_t w = global(e) ? kGlobalWeight : kLocalWeight;
  return distance(to_[e], leaf_rank) + w == distance(sw, leaf_rank);
}

}  // namespace spraylab::topo
