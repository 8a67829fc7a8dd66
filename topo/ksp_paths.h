// K shortest simple paths between every ordered pair of leaves, by hop count (MRLS paper §4.3.1:
// "multiple shortest paths are precomputed for each source–destination pair", K = 250 in its
// runs). Built once per fabric at build time, shared read-only by every switch's KSP balancer.
//
// Which paths: every simple switch path from s to t (leaves may be intermediate switches, as
// MRLS's multiple up-down passes need) in order of length. All paths shorter than the K-th are
// kept; at the K-th's length, where more paths tie than K has room for, a uniform sample of them
// (seeded, the same for every switch) fills the set: equal-length paths are interchangeable for
// KSP's random choice, and a sample keeps the choice unbiased where the first found in search
// order would crowd onto the low-numbered spines. At most kMaxLengths distinct lengths are kept.
//
// Storage (bytes per ordered leaf pair: sizeof(Set) + paths x (longest - 1) x 2): a path is its
// intermediate switches as 16-bit switch indices, s and t left out; a pair's paths are stored
// shortest first with one stride (its longest path's), a shorter path padded with kNoSwitch.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "topo/routing.h"

namespace spraylab::topo {

class KspPaths {
 public:
  static constexpr uint32_t kMaxLengths = 6;
  static constexpr uint16_t kNoSwitch = 0xffff;
  // The paper's K (MRLS paper §4.3.1).
  static constexpr uint32_t kDefaultK = 250;
  // Labels are 16-bit (lb/ksp.h): path index + 1.
  static constexpr uint32_t kMaxK = 65534;

  // One ordered leaf pair's paths: `count` of them, lengths len[0] < len[1] < ... ; paths
  // [end[c-1], end[c]) have length len[c].
  struct Set {
    uint64_t first = 0;  // index of its first hop entry in hops_
    uint16_t count = 0;
    uint8_t stride = 0;   // intermediate switches per stored path (longest length - 1)
    uint8_t lengths = 0;  // distinct lengths
    std::array<uint8_t, kMaxLengths> len{};
    std::array<uint16_t, kMaxLengths> end{};
  };

  // std::invalid_argument for K outside [1, kMaxK] or more than 65 535 switches. `seed` picks
  // the sample at the boundary length.
  KspPaths(const Routing& routing, uint32_t k, uint64_t seed);

  uint32_t k() const { return k_; }
  uint32_t leaves() const { return leaves_; }
  // Paths from leaf rank s to leaf rank t (s == t: none).
  const Set& set(uint32_t s, uint32_t t) const {
    return sets_[static_cast<size_t>(s) * leaves_ + t];
  }
  // Path i's intermediate switches (its length - 1 of them, then kNoSwitch up to the stride).
  const uint16_t* hops(const Set& s, uint32_t i) const {
    return hops_.data() + s.first + static_cast<size_t>(i) * s.stride;
  }
  // Length in hops of path i of s.
  static uint32_t length(const Set& s, uint32_t i) {
    uint32_t c = 0;
    while (i >= s.end[c]) ++c;
    return s.len[c];
  }
  // The whole path as switch indices, s and t included (tests, tools).
  std::vector<uint32_t> path(uint32_t s, uint32_t t, uint32_t i) const;
  size_t bytes() const { return sets_.size() * sizeof(Set) + hops_.size() * sizeof(uint16_t); }

 private:
  uint32_t k_;
  uint32_t leaves_;
  std::vector<uint32_t> leaf_switch_;  // leaf rank -> switch index
  std::vector<Set> sets_;              // leaves x leaves
  std::vector<uint16_t> hops_;
};

}  // namespace spraylab::topo
