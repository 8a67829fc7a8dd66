// The queue view and JSQ, AR, Top-k and PSP (ALGORITHMS.md, Baselines and PSP).
#include <gtest/gtest.h>

#include <algorithm>

#include "conf/schema.h"
#include "lb_test_util.h"
#include "switch/lb/algorithm.h"
#include "switch/lb/ar.h"
#include "switch/lb/band_thresholds.h"
#include "switch/lb/ecmp.h"
#include "switch/lb/factory.h"
#include "switch/lb/jsq.h"
#include "switch/lb/psp.h"
#include "switch/lb/topk.h"

namespace spraylab::lb {
namespace {

using testing::choose_one;
using testing::packet;
using testing::ports;
using testing::Queues;

constexpr uint64_t kStale = 1'000'000;  // a period no test reaches: decisions see one snapshot

// Counts choices of one packet at a time among `cand`.
std::vector<uint64_t> histogram(Balancer& b, const Queues& q, const std::vector<PortId>& cand,
                                int n, uint64_t seed = 1) {
  Rng rng(seed);
  std::vector<uint64_t> h(q.depth.size());
  for (int i = 0; i < n; ++i) ++h[choose_one(b, packet(cand), q.view(), rng)];
  return h;
}

TEST(StaleQueueView, RefreshesOncePerPeriodOfTheCallersClock) {
  Queues q(2);
  q.set({3, 4});
  StaleQueueView stale(2, 1000);
  EXPECT_EQ(stale.at(q.view(), 0).depth(0), 3u);
  q.depth[0] = 9;
  EXPECT_EQ(stale.at(q.view(), 999).depth(0), 3u);
  EXPECT_EQ(stale.at(q.view(), 1000).depth(0), 9u);
  q.depth[0] = 1;
  EXPECT_EQ(stale.at(q.view(), 1999).depth(0), 9u);
  EXPECT_EQ(stale.at(q.view(), 5000).depth(0), 1u);
}

TEST(StaleQueueView, PeriodZeroIsLive) {
  Queues q(1);
  StaleQueueView live(1, 0);
  q.depth[0] = 5;
  EXPECT_EQ(live.at(q.view(), 0).depth(0), 5u);
  q.depth[0] = 6;
  EXPECT_EQ(live.at(q.view(), 0).depth(0), 6u);
}

TEST(Jsq, TakesTheMinimumOnRandomStates) {
  Queues q(16);
  Rng rng(4), states(8);
  Jsq jsq(0, 0, BurstQueues(16, 0, false));
  const auto cand = ports(16);
  for (int t = 0; t < 2000; ++t) {
    for (auto& d : q.depth) d = states.below(20);
    const PortId p = choose_one(jsq, packet(cand), q.view(), rng);
    uint32_t min = UINT32_MAX;
    for (auto& d : q.depth) min = std::min<uint32_t>(min, d);
    EXPECT_EQ(q.depth[p], min);
  }
}

TEST(Jsq, BreaksTiesUniformly) {
  Queues q(5);
  q.set({3, 1, 1, 5, 1});
  Jsq jsq(0, 0, BurstQueues(5, kStale, false));
  const auto h = histogram(jsq, q, ports(5), 30000);
  EXPECT_EQ(h[0] + h[3], 0u);
  EXPECT_TRUE(testing::uniform_fit({h[1], h[2], h[4]}));
}

TEST(Jsq, LiveViewCountsTheBurstsOwnChoices) {
  Queues q(4);
  Rng rng(1);
  Jsq jsq(0, 0, BurstQueues(4, 0, false));
  const auto cand = ports(4);
  std::vector<Packet> burst(8, packet(cand));
  std::vector<PortId> out(8);
  jsq.choose(burst, BurstContext{q.view(), &rng, 0}, out.data());
  for (PortId p = 0; p < 4; ++p) EXPECT_EQ(std::count(out.begin(), out.end(), p), 2) << p;
}

TEST(Jsq, BandedIsUniformInTheLowestBand) {
  Queues q(4);
  q.set({10, 24, 30, 60});  // Th = 100, n = 4: bands 1, 1, 2, 3
  Jsq jsq(4, 100, BurstQueues(4, kStale, false));
  const auto h = histogram(jsq, q, ports(4), 20000);
  EXPECT_EQ(h[2] + h[3], 0u);
  EXPECT_TRUE(testing::uniform_fit({h[0], h[1]}));
}

TEST(Ar, BandEdgesAreFiveTenAndTwentyPercentOfTheBuffer) {
  EXPECT_EQ(ar_band(0, 1000), 0u);
  EXPECT_EQ(ar_band(49, 1000), 0u);
  EXPECT_EQ(ar_band(50, 1000), 1u);
  EXPECT_EQ(ar_band(99, 1000), 1u);
  EXPECT_EQ(ar_band(100, 1000), 2u);
  EXPECT_EQ(ar_band(199, 1000), 2u);
  EXPECT_EQ(ar_band(200, 1000), 3u);
  EXPECT_EQ(ar_band(1000, 1000), 3u);
}

TEST(Ar, ChoosesUniformlyInTheLowestBand) {
  Queues q(5, 1000);
  q.set({60, 40, 45, 300, 0});  // bands 1, 0, 0, 3, 0
  Ar ar(BurstQueues(5, kStale, false));
  const auto h = histogram(ar, q, ports(5), 30000);
  EXPECT_EQ(h[0] + h[3], 0u);
  EXPECT_TRUE(testing::uniform_fit({h[1], h[2], h[4]}));
}

TEST(Ar, SeesQueuesOnlyAtItsRefreshPeriod) {
  Queues q(2, 1000);
  Rng rng(1);
  Ar ar(BurstQueues(2, info(Algorithm::kAr).defaults.state_update_ns, false));
  const auto cand = ports(2);
  q.set({0, 500});
  EXPECT_EQ(choose_one(ar, packet(cand), q.view(), rng, 0), 0);
  q.set({500, 0});  // port 0 fills up, but AR still sees the state of t = 0
  for (uint64_t t = 1; t < 100; t += 7)
    EXPECT_EQ(choose_one(ar, packet(cand), q.view(), rng, t), 0);
  EXPECT_EQ(choose_one(ar, packet(cand), q.view(), rng, 100), 1);
}

// The factory's AR measures its bands against the port buffer (`buffer.bytes`), in packets as
// that many nominal data frames, not against the egress ring's frame count: a 40 000 B buffer of
// 1000 B frames is 40 packets, so 3 queued packets (7.5 %) are band 1 although the ring holds 4095.
TEST(Ar, FactoryBandsAreFractionsOfTheBufferInTheQueueUnit) {
  SwitchContext ctx;
  ctx.ports = 2;
  ctx.frame_bytes = 1000;
  ctx.buffer_bytes = 40'000;
  BalancerFactory f(conf::balancer_defaults(Algorithm::kAr), ctx);
  const auto ar = f.make(0);
  Queues q(2, 4095);  // the view's packet capacity: the ring
  q.set({3, 0});
  Rng rng(1);
  const auto cand = ports(2);
  for (int i = 0; i < 200; ++i) EXPECT_EQ(choose_one(*ar, packet(cand), q.view(), rng), 1);
  q.set({1, 0});  // 2.5 %: band 0 as port 1, so both are chosen
  std::vector<uint64_t> h(2);
  for (int i = 0; i < 2000; ++i) ++h[choose_one(*ar, packet(cand), q.view(), rng, 1000 + i * 200)];
  EXPECT_TRUE(testing::uniform_fit(h));
}

// htsim's getNextHop hashes packets under 100 B (ACKs): the same port for the same hash, whatever
// the queues, where a data frame follows the bands.
TEST(Ar, FramesUnderAHundredBytesTakeTheFlowHash) {
  Ar ar(BurstQueues(4, 0, false), {}, 7);  // a live view: each set() is seen
  Queues q(4, 1000);
  Rng rng(1);
  const auto cand = ports(4);
  std::vector<uint64_t> h(4);
  for (uint32_t hash = 0; hash < 64; ++hash) {
    q.set({0, 0, 0, 0});
    const PortId first = choose_one(ar, packet(cand, hash, 64), q.view(), rng);
    ++h[first];
    q.set({900, 900, 900, 900});
    q.depth[(first + 1) % 4].store(0);  // a data frame would go to this one
    EXPECT_EQ(choose_one(ar, packet(cand, hash, 64), q.view(), rng), first);
    EXPECT_EQ(choose_one(ar, packet(cand, hash, 1000), q.view(), rng), (first + 1) % 4);
  }
  for (uint64_t c : h) EXPECT_GT(c, 0u);  // the hash spreads flows over the ports
  // In one burst with data frames, the small ones still hash and the data frames still band.
  std::vector<Packet> burst;
  for (uint32_t i = 0; i < 8; ++i) burst.push_back(packet(cand, i, i % 2 == 0 ? 64 : 1000));
  q.set({900, 0, 900, 900});
  std::vector<PortId> out(burst.size());
  ar.choose(burst, BurstContext{q.view(), &rng, 0}, out.data());
  for (uint32_t i = 0; i < 8; ++i) {
    if (i % 2 == 1) {
      EXPECT_EQ(out[i], 1);
    } else {
      EXPECT_EQ(out[i], choose_one(ar, packet(cand, i, 64), q.view(), rng));
    }
  }
}

// AR by its definition, one packet at a time over a live view: a small frame takes ECMP's hash
// (salted) and changes no depth; a data frame takes the lowest band of its candidates' depths (the
// view plus the burst's earlier data frames), the r-th of the ties in candidate order, r drawn
// only when there are several.
void ar_reference(std::span<const Packet> burst, const Queues& q, uint32_t salt, Rng& rng,
                  PortId* out) {
  std::vector<uint32_t> pending(q.depth.size());
  for (size_t i = 0; i < burst.size(); ++i) {
    const Packet& p = burst[i];
    out[i] = kNoPort;
    if (p.num_candidates == 0) continue;
    if (p.bytes < kArHashedBelow) {
      out[i] = p.candidates[fast_range(net::mix32(p.hash ^ salt), p.num_candidates)];
      continue;
    }
    std::vector<uint32_t> band(p.num_candidates);
    for (uint32_t j = 0; j < p.num_candidates; ++j) {
      const PortId port = p.candidates[j];
      band[j] = ar_band(q.depth[port] + pending[port], q.capacity[port]);
    }
    const uint32_t low = *std::min_element(band.begin(), band.end());
    std::vector<uint32_t> ties;
    for (uint32_t j = 0; j < p.num_candidates; ++j) {
      if (band[j] == low) ties.push_back(j);
    }
    const uint32_t r = ties.size() == 1 ? 0 : rng.below(static_cast<uint32_t>(ties.size()));
    out[i] = p.candidates[ties[r]];
    ++pending[out[i]];
  }
}

// Mixed bursts (small frames among data frames, two overlapping candidate sets taking turns, so
// a set is loaded again after the other's choices) on queues near the band edges: every port as
// the reference's. The small frames count in no depth: a set loaded after them sees only the
// data frames' choices. Buffers of 100 packets (edges at 5, 10 and 20) and of 37, 13 and 0,
// whose edges are not whole (1.85, 3.7, 7.4 for 37: AR's integer edges round them up).
TEST(Ar, MixedBurstsMatchTheReference) {
  constexpr uint32_t kPorts = 12;
  const auto a = ports(8), b = ports(8, 4);
  Rng states(5), make(6);
  for (const uint32_t buffer : {100u, 37u, 13u, 0u}) {
    Queues q(kPorts, buffer);
    for (const uint32_t w_limit : {8u, 2u}) {  // 2: sets of two candidates (a single tie often)
      Ar ar(BurstQueues(kPorts, 0, false), {}, 7);
      Rng rng(11), ref_rng(11);
      for (int t = 0; t < 400; ++t) {
        for (auto& d : q.depth) d = states.below(24);
        std::vector<Packet> burst(32);
        for (Packet& p : burst) {
          p = packet(make.below(3) == 0 ? b : a, make.next(), make.below(3) == 0 ? 64 : 1000);
          p.num_candidates = static_cast<uint16_t>(std::min<uint32_t>(p.num_candidates, w_limit));
        }
        std::vector<PortId> got(burst.size()), want(burst.size());
        ar.choose(burst, BurstContext{q.view(), &rng, 0}, got.data());
        ar_reference(burst, q, 7, ref_rng, want.data());
        ASSERT_EQ(got, want) << "buffer " << buffer << " burst " << t;
      }
    }
  }
}

TEST(TopK, ChoosesOnlyAmongTheKSmallestUniformly) {
  Queues q(8);
  q.set({7, 3, 9, 1, 12, 5, 4, 8});  // the 4 smallest: ports 3, 1, 6, 5
  TopK topk(0, BurstQueues(8, kStale, false));
  const auto h = histogram(topk, q, ports(8), 40000);
  EXPECT_EQ(h[0] + h[2] + h[4] + h[7], 0u);
  EXPECT_TRUE(testing::uniform_fit({h[1], h[3], h[5], h[6]}));
}

TEST(TopK, AdmitsTiesAtTheKthDepthAtRandom) {
  Queues q(6);
  q.set({1, 2, 2, 2, 9, 9});  // k = 2: port 0 always, one of ports 1-3
  TopK topk(2, BurstQueues(6, kStale, false));
  const auto h = histogram(topk, q, ports(6), 60000);
  EXPECT_EQ(h[4] + h[5], 0u);
  const std::vector<double> p = {1.0 / 2, 1.0 / 6, 1.0 / 6, 1.0 / 6};
  EXPECT_LT(testing::chi_square({h[0], h[1], h[2], h[3]}, p), testing::chi_square_critical(3));
}

TEST(TopK, RandomStatesNeverPickOutsideTheKSmallest) {
  Queues q(16);
  Rng rng(2), states(3);
  TopK topk(5, BurstQueues(16, 0, false));
  const auto cand = ports(16);
  for (int t = 0; t < 3000; ++t) {
    for (auto& d : q.depth) d = states.below(30);
    std::vector<uint32_t> sorted;
    for (auto& d : q.depth) sorted.push_back(d);
    std::sort(sorted.begin(), sorted.end());
    EXPECT_LE(q.depth[choose_one(topk, packet(cand), q.view(), rng)], sorted[4]);
  }
}

// Top-k by its definition, one packet at a time: the depths (the view plus the burst's own choices
// so far), v = the k-th smallest, then r uniform in [0, k): the r-th candidate below v, else one of
// those at v uniformly (candidate order). The same draws as TopK makes.
void topk_reference(uint32_t k_param, std::span<const Packet> burst, const Queues& q, Rng& rng,
                    bool bytes, PortId* out) {
  std::vector<uint32_t> pending(q.depth.size());
  for (size_t i = 0; i < burst.size(); ++i) {
    const Packet& p = burst[i];
    out[i] = kNoPort;
    if (p.num_candidates == 0) continue;
    const uint32_t w = p.num_candidates;
    const uint32_t k = std::min(w, std::max(1u, k_param != 0 ? k_param : w / 2));
    std::vector<uint32_t> d(w);
    for (uint32_t j = 0; j < w; ++j) d[j] = q.depth[p.candidates[j]] + pending[p.candidates[j]];
    std::vector<uint32_t> sorted = d;
    std::sort(sorted.begin(), sorted.end());
    const uint32_t v = sorted[k - 1];
    std::vector<uint32_t> below, at;
    for (uint32_t j = 0; j < w; ++j) (d[j] < v ? below : at).push_back(j);
    at.erase(std::remove_if(at.begin(), at.end(), [&](uint32_t j) { return d[j] != v; }), at.end());
    const uint32_t r = rng.below(k);
    const uint32_t c =
        r < below.size() ? below[r] : at[rng.below(static_cast<uint32_t>(at.size()))];
    out[i] = p.candidates[c];
    pending[out[i]] += bytes ? p.bytes : 1;
  }
}

// Whole bursts with a live view (the burst's own choices raise the depths, so the k-th depth moves
// within a burst): every port as the reference's, for equal, spread and random depths, two sets
// interleaved (a set's run interrupted and resumed in one burst), packets and bytes.
TEST(TopK, LiveBurstsChooseAsTheDefinition) {
  for (const bool bytes : {false, true}) {
    for (const uint32_t w : {2u, 4u, 16u, 17u, 64u, 100u}) {
      for (const uint32_t k : {0u, 1u, w - 1, w}) {
        Queues q(2 * w + 8);
        const auto a = ports(w, 1), b = ports(w, static_cast<PortId>(w + 4));
        Rng states(w * 7 + k), rng(3), ref_rng(3);
        TopK topk(k, BurstQueues(q.depth.size(), 0, bytes));
        for (int t = 0; t < 200; ++t) {
          const uint32_t spread = t % 3 == 0 ? 1 : t % 3 == 1 ? 4 : 40;  // 1: all equal
          for (auto& d : q.depth) d = states.below(spread) * (bytes ? 64 : 1);
          std::vector<Packet> burst;
          const uint32_t n = 1 + states.below(32);
          for (uint32_t i = 0; i < n; ++i) {
            const uint32_t pick = t % 2 == 0 ? 0 : states.below(8);  // even t: one set
            burst.push_back(packet(pick == 7 ? b : a, 0, states.below(2) ? 64 : 1500));
            if (pick == 6) burst.back().num_candidates = 0;
          }
          std::vector<PortId> got(n), want(n);
          topk.choose(burst, BurstContext{q.view(), &rng, static_cast<uint64_t>(t) * 1000},
                      got.data());
          topk_reference(k, burst, q, ref_rng, bytes, want.data());
          ASSERT_EQ(got, want) << "bytes " << bytes << " w " << w << " k " << k << " burst " << t;
        }
      }
    }
  }
}

TEST(Psp, BandAndWeightMappingForFourBands) {
  // Th = 100, n = 4: thresholds 25, 50, 75, 100; weights 4, 3, 2, 1.
  const std::vector<std::pair<uint32_t, uint32_t>> cases = {
      {0, 4}, {24, 4}, {25, 3}, {49, 3}, {50, 2}, {74, 2}, {75, 1}, {99, 1}, {100, 1}, {5000, 1}};
  for (auto [q, w] : cases) EXPECT_EQ(psp_weight(q, 4, 100, 1), w) << "q = " << q;
  EXPECT_EQ(psp_weight(100, 4, 100, 0), 0u);
  EXPECT_EQ(psp_weight(99, 4, 100, 0), 1u);
}

TEST(Psp, ChoiceFrequenciesAreProportionalToWeight) {
  Queues q(5);
  q.set({0, 30, 60, 90, 200});  // weights 4, 3, 2, 1, 1 (saturated)
  Psp psp(4, 100, 1, BurstQueues(5, kStale, false));
  const auto h = histogram(psp, q, ports(5), 55000);
  const std::vector<double> p = {4 / 11.0, 3 / 11.0, 2 / 11.0, 1 / 11.0, 1 / 11.0};
  EXPECT_LT(testing::chi_square(h, p), testing::chi_square_critical(4));
}

TEST(Psp, SaturatedWeightZeroExcludesFullQueues) {
  Queues q(3, 100);  // Th = the port buffer
  q.set({100, 10, 150});
  Psp psp(4, 0, 0, BurstQueues(3, kStale, false));
  const auto h = histogram(psp, q, ports(3), 1000);
  EXPECT_EQ(h[1], 1000u);
}

// PSP one packet at a time as ALGORITHMS.md states it, with the class order the balancer draws
// in (classes by weight from the top, members in candidate order at each load, a member that
// changes class swap-removed from the old and appended to the new): the reference the balancer's
// per-burst structures (draw table, member list, vector draw) must reproduce choice for choice.
class ReferencePsp {
 public:
  ReferencePsp(uint32_t n, uint64_t th, uint32_t saturated, bool bytes)
      : n_(n), th_(th), sat_(saturated), bytes_(bytes) {}
  // Th per port instead (BandThresholds' per-port table).
  ReferencePsp(uint32_t n, std::vector<uint32_t> th, uint32_t saturated, bool bytes)
      : n_(n), th_(0), th_per_port_(std::move(th)), sat_(saturated), bytes_(bytes) {}
  void choose(std::span<const Packet> burst, const QueueView& q, Rng& rng, PortId* out) {
    std::vector<uint32_t> extra(q.size(), 0);  // the burst's own choices (a live view)
    const PortId* loaded = nullptr;
    for (size_t i = 0; i < burst.size(); ++i) {
      const Packet& p = burst[i];
      if (p.num_candidates == 0) {
        out[i] = kNoPort;
        continue;
      }
      if (p.candidates != loaded) {
        loaded = p.candidates;
        ports_ = p.candidates;
        w_ = p.num_candidates;
        depth_.assign(w_, 0);
        top_ = std::max(n_, sat_);
        members_.assign(top_ + 1, {});
        weight_.assign(w_, 0);
        for (uint32_t c = 0; c < w_; ++c) {
          depth_[c] = q.depth(p.candidates[c]) + extra[p.candidates[c]];
          weight_[c] = psp_weight(depth_[c], n_, th(c), sat_);
          members_[weight_[c]].push_back(c);
        }
      }
      uint32_t total = 0;
      for (uint32_t c = 1; c <= top_; ++c) total += c * static_cast<uint32_t>(members_[c].size());
      uint32_t c = 0;
      if (total == 0) {
        c = rng.below(w_);
      } else {
        uint32_t r = rng.below(total);
        for (uint32_t cls = top_; cls >= 1; --cls) {
          const auto span = cls * static_cast<uint32_t>(members_[cls].size());
          if (r < span) {
            c = members_[cls][r / cls];
            break;
          }
          r -= span;
        }
      }
      out[i] = p.candidates[c];
      const uint32_t grew = bytes_ ? p.bytes : 1;
      extra[out[i]] += grew;
      depth_[c] += grew;
      const uint32_t w = psp_weight(depth_[c], n_, th(c), sat_);
      if (w != weight_[c]) {
        auto& from = members_[weight_[c]];
        *std::find(from.begin(), from.end(), c) = from.back();
        from.pop_back();
        members_[w].push_back(c);
        weight_[c] = w;
      }
    }
  }

 private:
  uint64_t th(uint32_t c) const { return th_per_port_.empty() ? th_ : th_per_port_[ports_[c]]; }

  uint32_t n_;
  uint64_t th_;
  std::vector<uint32_t> th_per_port_;
  uint32_t sat_;
  bool bytes_;
  const PortId* ports_ = nullptr;
  uint32_t w_ = 0, top_ = 0;
  std::vector<uint32_t> depth_, weight_;
  std::vector<std::vector<uint32_t>> members_;
};

// Issue 18: with a live view every per-burst structure (the draw table and its rebuilds, the
// member list, the class compare) gives exactly the reference's choices: queues that start empty
// (bands cross every few packets) or deep, one set per burst or two interleaved, widths across
// the vector paths' limits (16, 64 candidates, 8 classes), packets and bytes.
TEST(Psp, LiveBurstsChooseExactlyAsOnePacketAtATime) {
  struct Case {
    uint32_t w, n, sat;
    uint64_t th;
    bool bytes;
  };
  const std::vector<Case> cases = {
      {4, 4, 1, 8, false},  {16, 4, 1, 8, false},    {3, 2, 0, 8, false},    {33, 8, 1, 12, false},
      {64, 4, 1, 8, false}, {64, 8, 0, 100, false},  {80, 4, 1, 8, false},   {20, 10, 1, 40, false},
      {7, 1, 1, 8, false},  {16, 4, 1, 12000, true}, {64, 8, 0, 9000, true}, {5, 9, 1, 9, false},
      {6, 4, 6, 8, false},  {24, 4, 6, 4, false},    {64, 2, 1, 4, false},   {61, 8, 1, 16, false}};
  for (const Case& k : cases) {
    SCOPED_TRACE(::testing::Message() << "w " << k.w << " n " << k.n << " sat " << k.sat << " Th "
                                      << k.th << (k.bytes ? " bytes" : " packets"));
    const uint32_t ports_n = k.w + 8;
    Queues q(ports_n, 1u << 30);
    const std::vector<PortId> a = ports(k.w);
    const std::vector<PortId> b = ports(k.w / 2 + 1, 7);  // overlaps a
    Psp psp(k.n, k.th, k.sat, BurstQueues(ports_n, 0, k.bytes));
    ReferencePsp ref(k.n, k.th, k.sat, k.bytes);
    Rng rng_a(3), rng_b(3), gen(11);
    for (int round = 0; round < 400; ++round) {
      // Every other round starts from empty queues, the rest from what earlier rounds left.
      if (round % 2 == 0) {
        for (auto& d : q.depth) d = 0;
      }
      std::vector<Packet> burst(32);
      const bool two_sets = round % 3 == 2;
      for (uint32_t i = 0; i < burst.size(); ++i) {
        const std::vector<PortId>& set = two_sets && gen.below(4) == 0 ? b : a;
        burst[i] = packet(set, 0, 64 + gen.below(1500));
      }
      PortId got[32], want[32];
      psp.choose(burst, BurstContext{q.view(), &rng_a, 0}, got);
      ref.choose(burst, q.view(), rng_b, want);
      ASSERT_TRUE(std::equal(got, got + 32, want)) << "round " << round;
      for (uint32_t i = 0; i < burst.size(); ++i) q.depth[got[i]] += k.bytes ? burst[i].bytes : 1;
    }
  }
}

// Issue 41: a burst whose set starts at the depths the last two classify() calls were given
// restores their classes instead of classifying again (Psp::KeptClasses). The restored classes
// choose as the reference's fresh ones: bursts from empty queues in a row (the null case), a
// depth pattern held for three bursts, the same pattern with one depth one higher, the set's
// array rewritten at the same address with ports of another Th (their edges differ even where
// every queue is empty), and a second set within a burst.
TEST(Psp, KeptClassesChooseAsFreshOnes) {
  struct Case {
    uint32_t w, n;
  };
  for (const Case& k : std::vector<Case>{{64, 4}, {16, 4}, {61, 8}, {40, 2}}) {
    SCOPED_TRACE(::testing::Message() << "w " << k.w << " n " << k.n);
    const uint32_t ports_n = 2 * k.w + 8;
    // Ports below w: Th 8; the others: Th 16.
    std::vector<uint32_t> th(ports_n, 16);
    std::fill(th.begin(), th.begin() + k.w, 8);
    Queues q(ports_n, 1u << 30);
    std::vector<PortId> set = ports(k.w);  // rewritten in place below
    const std::vector<PortId> other = ports(k.w / 2 + 1, 5);
    Psp psp(k.n, BandThresholds(std::make_shared<const std::vector<uint32_t>>(th)), 1,
            BurstQueues(ports_n, 0, false));
    ReferencePsp ref(k.n, th, 1, false);
    Rng rng_a(3), rng_b(3), gen(11);
    std::vector<uint32_t> pattern(ports_n, 0);
    for (int round = 0; round < 240; ++round) {
      const int phase = round % 12;
      if (phase == 4) {
        for (auto& d : pattern) d = gen.below(20);
      }
      if (phase == 7) ++pattern[gen.below(k.w)];  // one depth one higher than the kept ones
      if (phase == 10) {                          // the other Th, at the same address
        const PortId first = set[0] == 0 ? static_cast<PortId>(k.w) : 0;
        std::iota(set.begin(), set.end(), first);
      }
      // Phases 0-3 and 9-11: empty queues; 4-8: the pattern.
      const bool empty = phase < 4 || phase > 8;
      for (uint32_t p = 0; p < ports_n; ++p) q.depth[p] = empty ? 0 : pattern[p];
      std::vector<Packet> burst(32);
      const bool two_sets = round % 5 == 3;
      for (uint32_t i = 0; i < burst.size(); ++i)
        burst[i] = packet(two_sets && gen.below(4) == 0 ? other : set, 0, 1000);
      PortId got[32], want[32];
      psp.choose(burst, BurstContext{q.view(), &rng_a, 0}, got);
      ref.choose(burst, q.view(), rng_b, want);
      ASSERT_TRUE(std::equal(got, got + 32, want)) << "round " << round;
    }
  }
}

// Issue 19: the default Th is one state-update period of line rate, at least 8 packets (and at
// least n), in the queue unit.
TEST(BandThreshold, DefaultIsOneUpdatePeriodOfLineRateWithAFloor) {
  constexpr uint32_t kFrame = 4096 + 82;  // + 24 B on the wire: 4202 B
  // 100 Gb/s × 20 µs = 250 000 B = 59.5 frames on the wire: 59 packets.
  EXPECT_EQ(default_band_threshold(100e9, 20'000, kFrame, 4, false), 59u);
  EXPECT_EQ(default_band_threshold(100e9, 20'000, kFrame, 4, true), 59u * kFrame);
  // 1 µs: 2.9 frames, under the floor of 8.
  EXPECT_EQ(default_band_threshold(100e9, 1'000, kFrame, 4, false), 8u);
  EXPECT_EQ(default_band_threshold(100e9, 0, kFrame, 4, false), 8u);
  EXPECT_EQ(default_band_threshold(100e9, 0, kFrame, 16, false), 16u);  // a band per packet
  EXPECT_EQ(default_band_threshold(0, 20'000, kFrame, 4, true), 8u * kFrame);
}

conf::BalancerSpec queue_spec(Algorithm a, uint32_t bands, uint64_t state_update_ns) {
  conf::BalancerSpec spec;
  spec.algorithm = a;
  spec.bands = bands;
  spec.state_update_ns = state_update_ns;
  return spec;
}

SwitchContext rated_switch(uint32_t ports, double rate_bps) {
  SwitchContext ctx;
  ctx.ports = ports;
  ctx.port_rate_bps.assign(ports, rate_bps);
  ctx.frame_bytes = 4096 + 82;
  return ctx;
}

// With the factory's defaults (Th = 59 packets at 100 Gb/s and 20 µs) PSP weighs queues of a few
// dozen packets against empty ones instead of seeing every queue of a 4096-packet ring in band 1.
TEST(Psp, FactoryDefaultsWeighQueuesBelowTheBuffer) {
  Queues q(4, 4096);
  q.set({0, 20, 40, 100});  // Th 59, n 4: bands at 14.75, 29.5, 44.25: weights 4, 3, 2, 1
  auto psp =
      BalancerFactory(queue_spec(Algorithm::kPsp, 4, 20'000), rated_switch(4, 100e9)).make(0);
  const auto h = histogram(*psp, q, ports(4), 50000);
  const std::vector<double> p = {0.4, 0.3, 0.2, 0.1};
  EXPECT_LT(testing::chi_square(h, p), testing::chi_square_critical(3));
}

TEST(Jsq, BandedFactoryDefaultsUseThePspThresholds) {
  Queues q(4, 4096);
  q.set({10, 14, 20, 40});  // Th 59, n 4: bands 1, 1, 2, 3
  auto jsq =
      BalancerFactory(queue_spec(Algorithm::kJsq, 4, 20'000), rated_switch(4, 100e9)).make(0);
  const auto h = histogram(*jsq, q, ports(4), 20000);
  EXPECT_EQ(h[2] + h[3], 0u);
  EXPECT_TRUE(testing::uniform_fit({h[0], h[1]}));
  // An explicit threshold wins over the default: Th 400 puts all four in band 1.
  conf::BalancerSpec spec = queue_spec(Algorithm::kJsq, 4, 20'000);
  spec.threshold = 400;
  auto wide = BalancerFactory(spec, rated_switch(4, 100e9)).make(0);
  const auto all = histogram(*wide, q, ports(4), 20000);
  EXPECT_TRUE(testing::uniform_fit(all));
}

}  // namespace
}  // namespace spraylab::lb
