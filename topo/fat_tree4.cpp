// The 4-level k-ary fat tree, whole or depopulated by pods, as the MRLS paper compares it at
// 100K endpoints (§5, §6.2, Table 2: FT(36, 104976), "50 % pop.", Cost_links 3, Cost_switches
// 0.222). A whole tree has k pods; each pod is a 3-level tree of (k/2)² switches per level with
// (k/2)³ hosts, and the (k/2)³ cores link once to every pod. Depopulating removes whole pods and
// keeps every core (MRLS §3.2.1: "switches at the top level cannot be removed"), so with k/2 pods
// the cores use half their ports and the switches per host rise from 7/k to 8/k.
#include <string>
#include <vector>

#include <fmt/format.h>

#include "topo/generator_steps.h"
#include "topo/generators.h"

namespace spraylab::topo {

Topology fat_tree4(const FatTreeParams& p) {
  using namespace generator_steps;
  const uint32_t h = p.k / 2;
  const uint32_t pods = p.pods != 0 ? p.pods : p.k;
  const uint32_t per_level = h * h;  // switches of one level in one pod
  Topology t;
  t.kind = Kind::kFatTree;
  // Pod q's switch w of level l (w = 0 .. h² − 1, two base-h digits w1 w0) is
  // level_nodes[l][q·h² + w]. Inside a pod, level l links to level l + 1 where the words agree
  // except in digit l (a k-ary n-tree's butterfly): edges reach the h aggregations of their
  // sub-pod (same w1), those the h level-2 switches of their column (same w0).
  // Names that no index turns into another level's: "agg2" + 8 was "agg" + 28.
  const char* names[3] = {"edge", "agg", "spine"};
  std::vector<std::vector<NodeId>> level_nodes(3);
  for (uint32_t l = 0; l < 3; ++l) {
    for (uint32_t q = 0; q < pods; ++q) {
      for (uint32_t w = 0; w < per_level; ++w) {
        const uint32_t i = q * per_level + w;
        level_nodes[l].push_back(t.add_switch(static_cast<uint8_t>(l), i, name(names[l], i), q));
      }
    }
  }
  std::vector<NodeId> cores;
  for (uint32_t i = 0; i < per_level * h; ++i) cores.push_back(t.add_switch(3, i, name("core", i)));
  for (uint32_t e = 0; e < level_nodes[0].size(); ++e) {
    add_hosts(t, level_nodes[0][e], h, e / per_level, p.link);
  }
  const uint32_t digit[2] = {1, h};  // the place value of digit l of a pod word
  for (uint32_t l = 0; l < 2; ++l) {
    for (uint32_t q = 0; q < pods; ++q) {
      for (uint32_t w = 0; w < per_level; ++w) {
        const uint32_t base = w - (w / digit[l] % h) * digit[l];  // w with digit l cleared
        for (uint32_t v = 0; v < h; ++v) {
          t.add_link(level_nodes[l][q * per_level + w],
                     level_nodes[l + 1][q * per_level + base + v * digit[l]], p.link.rate_bps,
                     p.link.delay_ns);
        }
      }
    }
  }
  // Level-2 switch w of every pod links to cores w·h .. w·h + h − 1: each core reaches every
  // pod once, through the same w.
  for (uint32_t q = 0; q < pods; ++q) {
    for (uint32_t w = 0; w < per_level; ++w) {
      for (uint32_t c = 0; c < h; ++c) {
        t.add_link(level_nodes[2][q * per_level + w], cores[w * h + c], p.link.rate_bps,
                   p.link.delay_ns);
      }
    }
  }
  return t;
}

}  // namespace spraylab::topo
