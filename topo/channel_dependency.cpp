#include "topo/channel_dependency.h"

#include <algorithm>
#include <stdexcept>

#include "topo/ksp_paths.h"

namespace spraylab::topo {

ChannelDependencyGraph::ChannelDependencyGraph(uint32_t edges, uint32_t vcs)
    : edges_(edges), vcs_(vcs) {
  if (vcs_ == 0) throw std::invalid_argument("channel dependency graph: 0 virtual channels");
}

void ChannelDependencyGraph::add_turn(uint32_t hop, uint32_t from, uint32_t to) {
  const uint64_t a = node({from, phase_channel(hop, vcs_)});
  const uint64_t b = node({to, phase_channel(hop + 1, vcs_)});
  arcs_.push_back(a << 32 | b);
  longest_ = std::max(longest_, hop + 2);
}

void ChannelDependencyGraph::add_route(const std::vector<uint32_t>& edges) {
  for (uint32_t h = 0; h + 1 < edges.size(); ++h) add_turn(h, edges[h], edges[h + 1]);
  longest_ = std::max(longest_, static_cast<uint32_t>(edges.size()));
}

size_t ChannelDependencyGraph::arcs() const {
  std::vector<uint64_t> a = arcs_;
  std::sort(a.begin(), a.end());
  return static_cast<size_t>(std::unique(a.begin(), a.end()) - a.begin());
}

std::vector<Channel> ChannelDependencyGraph::cycle() const {
  const uint32_t n = edges_ * vcs_;
  std::vector<uint64_t> a = arcs_;
  std::sort(a.begin(), a.end());
  a.erase(std::unique(a.begin(), a.end()), a.end());
  std::vector<uint32_t> offset(n + 1, 0);
  for (const uint64_t x : a) ++offset[(x >> 32) + 1];
  for (uint32_t i = 0; i < n; ++i) offset[i + 1] += offset[i];
  // Sorted by source: the targets already sit in CSR order.
  std::vector<uint32_t> to(a.size());
  for (size_t i = 0; i < a.size(); ++i) to[i] = static_cast<uint32_t>(a[i]);

  // Iterative depth-first search; an arc to a node on the stack (grey) closes a cycle.
  enum : uint8_t { kWhite, kGrey, kBlack };
  std::vector<uint8_t> colour(n, kWhite);
  std::vector<uint32_t> next(n, 0);  // the next arc of a grey node to follow
  std::vector<uint32_t> stack;
  for (uint32_t root = 0; root < n; ++root) {
    if (colour[root] != kWhite) continue;
    stack.push_back(root);
    colour[root] = kGrey;
    next[root] = offset[root];
    while (!stack.empty()) {
      const uint32_t v = stack.back();
      if (next[v] == offset[v + 1]) {
        colour[v] = kBlack;
        stack.pop_back();
        continue;
      }
      const uint32_t w = to[next[v]++];
      if (colour[w] == kGrey) {
        std::vector<Channel> c;
        auto it = std::find(stack.begin(), stack.end(), w);
        for (; it != stack.end(); ++it) c.push_back({*it / vcs_, *it % vcs_});
        return c;
      }
      if (colour[w] == kWhite) {
        colour[w] = kGrey;
        next[w] = offset[w];
        stack.push_back(w);
      }
    }
  }
  return {};
}

namespace {

// The switch links from a to b (several when the wiring drew parallel links).
std::vector<uint32_t> links_between(const SwitchGraph& g, uint32_t a, uint32_t b) {
  std::vector<uint32_t> out;
  for (uint32_t e = g.begin(a); e < g.end(a); ++e) {
    if (g.neighbour(e) == b) out.push_back(e);
  }
  return out;
}

uint32_t link_of_port(const SwitchGraph& g, uint32_t sw, PortId port) {
  for (uint32_t e = g.begin(sw); e < g.end(sw); ++e) {
    if (g.port(e) == port) return e;
  }
  throw std::logic_error("channel dependency graph: a Polarized hop on no switch link");
}

}  // namespace

ChannelDependencyGraph polarized_dependencies(const Routing& r, uint32_t vcs) {
  const SwitchGraph& g = r.graph();
  ChannelDependencyGraph cdg(g.edges(), vcs);
  // Routes are at most 2D hops (MRLS paper, Theorem 4.2); a walk longer than this is a bug.
  constexpr uint32_t kMaxHops = 64;
  // (link, hop index) states reached for the current pair: seen_[e * kMaxHops + h] == pair.
  std::vector<uint32_t> seen(static_cast<size_t>(g.edges()) * kMaxHops, 0);
  std::vector<std::pair<uint32_t, uint32_t>> todo;
  uint32_t pair = 0;
  for (const uint32_t s : r.leaves()) {
    for (const uint32_t t : r.leaves()) {
      if (s == t) continue;
      ++pair;
      auto visit = [&](uint32_t e, uint32_t h) {
        if (h >= kMaxHops) throw std::logic_error("channel dependency graph: a walk of 64 hops");
        uint32_t& mark = seen[static_cast<size_t>(e) * kMaxHops + h];
        if (mark == pair) return;
        mark = pair;
        todo.push_back({e, h});
      };
      for (const PolarizedHop& hop : r.polarized_hops(s, s, t))
        visit(link_of_port(g, s, hop.port), 0);
      while (!todo.empty()) {
        const auto [e, h] = todo.back();
        todo.pop_back();
        const uint32_t c = g.neighbour(e);
        if (c == t) continue;
        for (const PolarizedHop& hop : r.polarized_hops(s, c, t)) {
          const uint32_t e2 = link_of_port(g, c, hop.port);
          cdg.add_turn(h, e, e2);
          visit(e2, h + 1);
        }
      }
    }
  }
  return cdg;
}

ChannelDependencyGraph ksp_dependencies(const Routing& r, const KspPaths& paths, uint32_t vcs) {
  const SwitchGraph& g = r.graph();
  ChannelDependencyGraph cdg(g.edges(), vcs);
  for (uint32_t s = 0; s < paths.leaves(); ++s) {
    for (uint32_t t = 0; t < paths.leaves(); ++t) {
      if (s == t) continue;
      const KspPaths::Set& set = paths.set(s, t);
      for (uint32_t i = 0; i < set.count; ++i) {
        const std::vector<uint32_t> path = paths.path(s, t, i);
        // Every parallel link of a hop may carry the route: every pair of them is a turn.
        for (uint32_t h = 0; h + 2 < path.size(); ++h) {
          for (const uint32_t a : links_between(g, path[h], path[h + 1])) {
            for (const uint32_t b : links_between(g, path[h + 1], path[h + 2])) {
              cdg.add_turn(h, a, b);
            }
          }
        }
      }
    }
  }
  return cdg;
}

}  // namespace spraylab::topo
