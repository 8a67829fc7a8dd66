#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "trafficgen/workload.h"
#include "trafficgen/workloads/all_to_all.h"
#include "trafficgen/workloads/all_to_all_v.h"
#include "trafficgen/workloads/bipartite.h"
#include "trafficgen/workloads/incast.h"
#include "trafficgen/workloads/iterations.h"
#include "trafficgen/workloads/permutation.h"
#include "trafficgen/workloads/placement.h"
#include "trafficgen/workloads/switch_permutation.h"
#include "trafficgen/workloads/uniform.h"

namespace spraylab::gen {
namespace {

TEST(Permutation, IsADerangement) {
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    const uint32_t n = 2 + seed % 30;
    const std::vector<Rank> p = random_derangement(n, seed);
    std::set<Rank> targets(p.begin(), p.end());
    EXPECT_EQ(targets.size(), n) << "not a permutation, seed " << seed;
    for (Rank r = 0; r < n; ++r) EXPECT_NE(p[r], r) << "fixed point, seed " << seed;
  }
}

TEST(Permutation, SameSeedSameMessagesOtherSeedOtherMessages) {
  EXPECT_EQ(random_derangement(64, 7), random_derangement(64, 7));
  EXPECT_NE(random_derangement(64, 7), random_derangement(64, 8));
  const Schedule s = permutation(16, 1'000'000, 3);
  ASSERT_EQ(s.messages.size(), 16u);
  const std::vector<Rank> p = random_derangement(16, 3);
  for (const Message& m : s.messages) {
    EXPECT_EQ(m.dst, p[m.src]);
    EXPECT_EQ(m.bytes, 1'000'000u);
    EXPECT_TRUE(m.depends_on.empty());
  }
}

TEST(Permutation, EveryDerangementOfThreeIsDrawn) {
  // Three ranks have exactly two derangements, (1 2 0) and (2 0 1); a uniform draw finds both.
  std::set<std::vector<Rank>> drawn;
  for (uint64_t seed = 0; seed < 50; ++seed) drawn.insert(random_derangement(3, seed));
  EXPECT_EQ(drawn.size(), 2u);
}

TEST(Permutation, OneRankIsAnError) { EXPECT_THROW(random_derangement(1, 1), WorkloadError); }

TEST(AllToAll, EveryOrderedPairOnceForRanksTimesRanksMinusOneMessages) {
  const Schedule s = all_to_all(8, 1000);
  EXPECT_EQ(s.messages.size(), 8u * 7u);
  EXPECT_EQ(total_bytes(s), 8u * 7u * 1000u);
  for (uint64_t sent : bytes_sent_per_rank(s)) EXPECT_EQ(sent, 7u * 1000u);
  for (uint64_t received : bytes_received_per_rank(s)) EXPECT_EQ(received, 7u * 1000u);
  std::set<std::pair<Rank, Rank>> pairs;
  for (const Message& m : s.messages) pairs.insert({m.src, m.dst});
  EXPECT_EQ(pairs.size(), s.messages.size());
}

TEST(AllToAll, ShiftedOrderMakesEveryRoundAPermutation) {
  // htsim's all-to-all: the j-th message of every host goes to a distinct destination, so a
  // round has no incast; the rank order sends every host's j-th message to nearly one place.
  const uint32_t n = 12;
  const Schedule s = all_to_all(n, 1000, AllToAllOrder::kShifted, 7);
  ASSERT_EQ(s.messages.size(), n * (n - 1));
  std::set<std::pair<Rank, Rank>> pairs;
  for (const Message& m : s.messages) pairs.insert({m.src, m.dst});
  EXPECT_EQ(pairs.size(), s.messages.size());
  for (uint32_t j = 0; j + 1 < n; ++j) {
    std::set<Rank> round;
    for (Rank src = 0; src < n; ++src) round.insert(s.messages[src * (n - 1) + j].dst);
    EXPECT_EQ(round.size(), n) << "round " << j;
  }
  const Schedule ranked = all_to_all(n, 1000);
  std::set<Rank> first;
  for (Rank src = 0; src < n; ++src) first.insert(ranked.messages[src * (n - 1)].dst);
  EXPECT_EQ(first.size(), 2u);  // everyone to rank 0, and rank 0 to rank 1
  const auto destinations = [](const Schedule& x) {
    std::vector<Rank> d;
    for (const Message& m : x.messages) d.push_back(m.dst);
    return d;
  };
  EXPECT_NE(destinations(all_to_all(n, 1000, AllToAllOrder::kShifted, 8)), destinations(s));
}

TEST(AllToAllV, ZipfPreservesTheUniformTotalAndEachSendersShare) {
  const ByteMatrix m = zipf_matrix(16, 100'003, 1.2, 9);
  const Schedule s = all_to_all_v(m);
  EXPECT_EQ(total_bytes(s), 16u * 15u * 100'003u);
  for (uint64_t sent : bytes_sent_per_rank(s)) EXPECT_EQ(sent, 15u * 100'003u);
  for (Rank r = 0; r < 16; ++r) EXPECT_EQ(m[r][r], 0u);
}

TEST(AllToAllV, ZipfSkewMakesOneDestinationHotAndZeroSkewIsUniform) {
  const std::vector<uint64_t> hot =
      bytes_received_per_rank(all_to_all_v(zipf_matrix(8, 70'000, 2.0, 1)));
  const uint64_t hottest = *std::max_element(hot.begin(), hot.end());
  const uint64_t coldest = *std::min_element(hot.begin(), hot.end());
  EXPECT_GT(hottest, 20 * coldest);  // 1/1² vs 1/8²: a 64× popularity ratio
  const ByteMatrix flat = zipf_matrix(8, 70'000, 0.0, 1);
  for (Rank i = 0; i < 8; ++i) {
    for (Rank j = 0; j < 8; ++j) EXPECT_EQ(flat[i][j], i == j ? 0u : 70'000u);
  }
}

// conf/experiments/ofan-moe.yaml's exponents (docs/results/claims/ofan-moe.md §3): the hottest
// receiver's bytes over the mean receiver's are the declared imbalances, 4.01 (no EPLB) and 1.04
// (EPLB), at 432 and 128 ranks, to within 0.1 %.
TEST(AllToAllV, OfanMoeExponentsGiveTheDeclaredReceiverImbalance) {
  struct Case {
    uint32_t ranks;
    double s;
    double imbalance;
  };
  for (const Case c : {Case{432, 0.2823, 4.01}, Case{432, 0.0077, 1.04}, Case{128, 0.3776, 4.01},
                       Case{128, 0.0101, 1.04}}) {
    const std::vector<uint64_t> got =
        bytes_received_per_rank(all_to_all_v(zipf_matrix(c.ranks, 1 << 20, c.s, 1)));
    const double mean = double(c.ranks - 1) * (1 << 20);
    const double hottest = double(*std::max_element(got.begin(), got.end()));
    EXPECT_NEAR(hottest / mean, c.imbalance, 0.001 * c.imbalance) << c.ranks << " ranks, s " << c.s;
  }
}

TEST(AllToAllV, ExplicitMatrixIsScaledToTheUniformTotalInProportion) {
  const ByteMatrix m = scaled_matrix({{0, 1, 3}, {1, 0, 1}, {0, 2, 0}}, 1000);
  EXPECT_EQ(total_bytes(all_to_all_v(m)), 3u * 2u * 1000u);
  EXPECT_EQ(m[0][2], 2250u);  // 3/8 of 6000
  EXPECT_EQ(m[0][1], 750u);
  EXPECT_EQ(m[2][1], 1500u);
  EXPECT_EQ(all_to_all_v(m).messages.size(), 5u);  // the zero cell sends nothing
}

TEST(AllToAllV, MatrixErrorsNameTheCell) {
  EXPECT_THROW(scaled_matrix({{0, 1}, {1}}, 10), WorkloadError);
  try {
    scaled_matrix({{1, 1}, {1, 0}}, 10);
    FAIL() << "a non-zero diagonal must be rejected";
  } catch (const WorkloadError& e) {
    EXPECT_NE(std::string(e.what()).find("matrix[0][0]"), std::string::npos) << e.what();
  }
  EXPECT_THROW(scaled_matrix({{0, -1}, {1, 0}}, 10), WorkloadError);
}

TEST(Apportion, SharesSumExactlyAndStayWithinOneOfTheQuota) {
  const std::vector<uint64_t> s = apportion({1, 1, 1}, 100);
  EXPECT_EQ(s[0] + s[1] + s[2], 100u);
  for (uint64_t v : s) EXPECT_TRUE(v == 33 || v == 34);
}

TEST(Incast, FanInDistinctSendersToOneReceiver) {
  const Schedule s = incast(32, 8, 4096, 5);
  ASSERT_EQ(s.messages.size(), 8u);
  std::set<Rank> senders;
  for (const Message& m : s.messages) {
    EXPECT_EQ(m.dst, s.messages[0].dst);
    senders.insert(m.src);
  }
  EXPECT_EQ(senders.size(), 8u);
  EXPECT_EQ(senders.count(s.messages[0].dst), 0u);
  EXPECT_THROW(incast(8, 8, 4096, 5), WorkloadError);
}

TEST(Iterations, EachCopyWaitsForTheRanksTrafficInThePreviousCopy) {
  const Schedule one = permutation(4, 100, 1);
  const Schedule s = repeat(one, 3);
  ASSERT_EQ(s.messages.size(), 12u);
  ASSERT_EQ(s.collectives.size(), 3u);
  EXPECT_EQ(s.collectives[2].iteration, 2u);
  for (const Message& m : s.messages) {
    const uint32_t it = m.id / 4;
    EXPECT_EQ(m.collective, it);
    if (it == 0) {
      EXPECT_TRUE(m.depends_on.empty());
      continue;
    }
    // Rank src sent one message and received one in the previous iteration: it waits for both.
    ASSERT_EQ(m.depends_on.size(), 2u);
    for (MessageId d : m.depends_on) {
      const Message& dep = s.messages[d];
      EXPECT_EQ(d / 4, it - 1);
      EXPECT_TRUE(dep.src == m.src || dep.dst == m.src);
    }
  }
  EXPECT_TRUE(dependencies_are_local(s));
  EXPECT_NO_THROW(validate(s));
}

TEST(Factory, BuildsEachTypeFromTheSpecAndRepeatsIt) {
  conf::WorkloadSpec w;
  w.message_bytes = 8192;
  w.iterations = 2;
  for (WorkloadType type :
       {WorkloadType::kPermutation, WorkloadType::kAllToAll, WorkloadType::kAllToAllV,
        WorkloadType::kAllReduce, WorkloadType::kIncast}) {
    SCOPED_TRACE(to_string(type));
    w.type = type;
    w.fan_in = 3;
    const Schedule s = make_workload(w, 4, 11);
    EXPECT_EQ(s.ranks, 4u);
    EXPECT_EQ(s.collectives.size() % 2, 0u);
    EXPECT_EQ(s.collectives.back().iteration, 1u);
    EXPECT_EQ(s.collectives.back().name, to_string(type));  // collectives carry the type's name
    EXPECT_TRUE(dependencies_are_local(s));
  }
  w.type = WorkloadType::kPermutation;
  EXPECT_EQ(make_workload(w, 6, 1).messages[0].dst, make_workload(w, 6, 1).messages[0].dst);
}

// Six leaves of three hosts: rank r on leaf 10 + r / 3 (leaf ids are any numbers).
std::vector<uint32_t> six_leaves() {
  std::vector<uint32_t> leaf(18);
  for (uint32_t r = 0; r < 18; ++r) leaf[r] = 10 + r / 3;
  return leaf;
}

TEST(Uniform, EveryRankSendsItsMessagesToOthersSpreadOverAll) {
  const Schedule s = uniform(8, 200, 4096, 5);
  ASSERT_EQ(s.messages.size(), 8u * 200);
  std::vector<uint32_t> received(8, 0);
  for (const Message& m : s.messages) {
    EXPECT_NE(m.src, m.dst);
    ++received[m.dst];
  }
  for (uint32_t n : received) EXPECT_GT(n, 100u);  // 200 expected each
  EXPECT_TRUE(dependencies_are_local(s));
}

TEST(SwitchPermutation, EachLeafSendsToOneOtherLeafHostByHost) {
  const std::vector<uint32_t> leaf = six_leaves();
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const Schedule s = switch_permutation(leaf, 2, 4096, seed);
    ASSERT_EQ(s.messages.size(), 36u);
    std::vector<uint32_t> to_leaf(6, UINT32_MAX), received(18, 0);
    for (const Message& m : s.messages) {
      const uint32_t a = leaf[m.src] - 10, b = leaf[m.dst] - 10;
      EXPECT_NE(a, b);
      if (to_leaf[a] == UINT32_MAX) to_leaf[a] = b;
      EXPECT_EQ(to_leaf[a], b) << "leaf " << a << " sends to two leaves, seed " << seed;
      EXPECT_EQ(m.src % 3, m.dst % 3);  // the j-th host to the j-th host
      ++received[m.dst];
    }
    for (uint32_t n : received) EXPECT_EQ(n, 2u);
  }
}

TEST(Bipartite, MessagesCrossBetweenTwoHalvesOfTheLeaves) {
  const std::vector<uint32_t> leaf = six_leaves();
  const Schedule s = bipartite(leaf, 50, 4096, 3);
  ASSERT_EQ(s.messages.size(), 18u * 50);
  // Two-colour the leaves by the messages: every message joins leaves of different colours.
  std::vector<int> colour(6, -1);
  colour[leaf[s.messages[0].src] - 10] = 0;
  for (int pass = 0; pass < 6; ++pass) {
    for (const Message& m : s.messages) {
      const uint32_t a = leaf[m.src] - 10, b = leaf[m.dst] - 10;
      if (colour[a] >= 0 && colour[b] < 0) colour[b] = 1 - colour[a];
      if (colour[b] >= 0 && colour[a] < 0) colour[a] = 1 - colour[b];
    }
  }
  for (const Message& m : s.messages) {
    EXPECT_NE(colour[leaf[m.src] - 10], colour[leaf[m.dst] - 10]);
  }
  EXPECT_EQ(std::count(colour.begin(), colour.end(), 0), 3);
}

TEST(Factory, LeafWorkloadsNeedTheLeaves) {
  conf::WorkloadSpec w;
  w.message_bytes = 4096;
  for (WorkloadType type : {WorkloadType::kSwitchPermutation, WorkloadType::kBipartite}) {
    w.type = type;
    EXPECT_THROW(make_workload(w, 18, 1), WorkloadError);
    EXPECT_EQ(make_workload(w, 18, 1, six_leaves()).messages.size(), 18u);
  }
}

TEST(Placement, RandomIsABijectionThatDependsOnTheSeed) {
  for (uint64_t seed = 1; seed <= 50; ++seed) {
    const std::vector<Rank> h = random_placement(432, seed);
    EXPECT_EQ(std::set<Rank>(h.begin(), h.end()).size(), 432u) << "seed " << seed;
    EXPECT_EQ(*std::max_element(h.begin(), h.end()), 431u);
  }
  EXPECT_EQ(random_placement(432, 3), random_placement(432, 3));
  EXPECT_NE(random_placement(432, 3), random_placement(432, 4));
  // Nearly every rank moves (the shuffle is not the identity in disguise).
  size_t moved = 0;
  const std::vector<Rank> h = random_placement(432, 9);
  for (Rank r = 0; r < 432; ++r) moved += h[r] != r;
  EXPECT_GT(moved, 400u);
}

// A ring all-reduce in rank order keeps 5 of every 6 messages under one 6-host leaf; placed at
// random, the ring's neighbours are on other leaves almost always. The traffic is the same ring
// with its hosts renamed: the same sizes, steps and dependencies, each host sending and receiving
// as much as before.
TEST(Placement, RandomMovesARingAcrossTheLeaves) {
  conf::WorkloadSpec w;
  w.type = WorkloadType::kAllReduce;
  w.message_bytes = 432 * 4096;
  const Schedule rank = make_workload(w, 432, 5);
  w.placement = Placement::kRandom;
  const Schedule placed = make_workload(w, 432, 5);
  ASSERT_EQ(placed.messages.size(), rank.messages.size());
  const auto same_leaf = [](const Schedule& s) {
    size_t n = 0;
    for (const Message& m : s.messages) n += m.src / 6 == m.dst / 6;
    return static_cast<double>(n) / static_cast<double>(s.messages.size());
  };
  EXPECT_GT(same_leaf(rank), 0.8);
  EXPECT_LT(same_leaf(placed), 0.1);
  const std::vector<Rank> host = random_placement(432, 5);
  for (size_t i = 0; i < rank.messages.size(); ++i) {
    const Message& a = rank.messages[i];
    const Message& b = placed.messages[i];
    EXPECT_EQ(b.src, host[a.src]);
    EXPECT_EQ(b.dst, host[a.dst]);
    EXPECT_EQ(b.bytes, a.bytes);
    EXPECT_EQ(b.depends_on, a.depends_on);
    EXPECT_EQ(b.step, a.step);
  }
  EXPECT_EQ(make_workload(w, 432, 5).messages[7].src, placed.messages[7].src);
}

// The placement draws from its own stream of the seed: a placed permutation is the rank-order
// one renamed by random_placement, not the same derangement drawn twice (which would make the
// placed traffic the square of the permutation), and a Zipf matrix's hot ranks are not the
// placement's first hosts.
TEST(Placement, DrawsFromItsOwnStreamOfTheSeed) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    EXPECT_NE(random_placement(64, seed), random_derangement(64, seed)) << seed;
    for (WorkloadType type : {WorkloadType::kPermutation, WorkloadType::kAllToAllV}) {
      conf::WorkloadSpec w;
      w.type = type;
      w.message_bytes = 8192;
      Schedule expected = make_workload(w, 64, seed);
      place(expected, random_placement(64, seed));
      w.placement = Placement::kRandom;
      const Schedule placed = make_workload(w, 64, seed);
      ASSERT_EQ(placed.messages.size(), expected.messages.size());
      for (size_t i = 0; i < placed.messages.size(); ++i) {
        EXPECT_EQ(placed.messages[i].src, expected.messages[i].src);
        EXPECT_EQ(placed.messages[i].dst, expected.messages[i].dst);
        EXPECT_EQ(placed.messages[i].bytes, expected.messages[i].bytes);
      }
    }
  }
}

TEST(Placement, RandomIsRefusedWhereTheLeavesArePaired) {
  conf::WorkloadSpec w;
  w.message_bytes = 4096;
  w.placement = Placement::kRandom;
  for (WorkloadType type : {WorkloadType::kSwitchPermutation, WorkloadType::kBipartite}) {
    w.type = type;
    EXPECT_THROW(make_workload(w, 18, 1, six_leaves()), WorkloadError);
  }
}

TEST(Placement, PlaceRejectsWhatIsNotABijection) {
  Schedule s;
  s.ranks = 3;
  const uint32_t c = s.add_collective("x");
  s.add_message(0, 1, 10, c);
  EXPECT_THROW(place(s, {0, 1}), WorkloadError);
  EXPECT_THROW(place(s, {0, 1, 1}), WorkloadError);
  EXPECT_THROW(place(s, {0, 1, 3}), WorkloadError);
  place(s, {2, 0, 1});
  EXPECT_EQ(s.messages[0].src, 2u);
  EXPECT_EQ(s.messages[0].dst, 0u);
}

// Unknown types are the loader's error (tests/conf/errors_test.cpp).
TEST(Factory, BadMatrixShapeIsAnError) {
  conf::WorkloadSpec w;
  w.type = WorkloadType::kAllToAllV;
  w.skew = Skew::kMatrix;
  w.matrix = {{0, 1}, {1, 0}};
  EXPECT_THROW(make_workload(w, 4, 1), WorkloadError);
  EXPECT_NO_THROW(make_workload(w, 2, 1));
}

TEST(Validate, RejectsSelfSendsUnknownDependenciesAndCycles) {
  Schedule s;
  s.ranks = 2;
  s.add_collective("x");
  s.add_message(0, 1, 1, 0, {1});
  s.add_message(1, 0, 1, 0, {0});
  EXPECT_EQ(cycle_member(s).has_value(), true);
  EXPECT_THROW(validate(s), WorkloadError);
  s.messages[1].depends_on.clear();
  EXPECT_NO_THROW(validate(s));
  s.messages[1].dst = 1;
  EXPECT_THROW(validate(s), WorkloadError);
}

}  // namespace
}  // namespace spraylab::gen
