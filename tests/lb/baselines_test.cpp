// ECMP, RPS and SimpleRR (ALGORITHMS.md, Baselines).
#include <gtest/gtest.h>

#include <set>

#include "lb_test_util.h"
#include "switch/lb/ecmp.h"
#include "switch/lb/rng.h"
#include "switch/lb/rps.h"
#include "switch/lb/rr.h"

namespace spraylab::lb {
namespace {

using testing::packet;
using testing::ports;
using testing::Queues;

TEST(Rng, SameSeedAndLcoreGiveTheSameStreamOthersDiffer) {
  Rng a = Rng::for_lcore(7, 0), b = Rng::for_lcore(7, 0), c = Rng::for_lcore(7, 1);
  int same = 0;
  for (int i = 0; i < 100; ++i) {
    const uint32_t x = a.next();
    EXPECT_EQ(x, b.next());
    same += x == c.next();
  }
  EXPECT_LT(same, 3);
}

TEST(Rng, BelowIsUniform) {
  Rng rng(3);
  std::vector<uint64_t> n(7);
  for (int i = 0; i < 70000; ++i) ++n[rng.below(7)];
  EXPECT_TRUE(testing::uniform_fit(n));
}

TEST(Ecmp, KeepsAFlowOnOnePort) {
  Queues q(8);
  Rng rng(1);
  Ecmp ecmp(0x1234);
  const auto cand = ports(8);
  for (uint32_t flow = 0; flow < 100; ++flow) {
    std::vector<Packet> burst(32, packet(cand, flow * 2654435761u));
    std::vector<PortId> out(32);
    std::set<PortId> used;
    for (int round = 0; round < 10; ++round) {
      ecmp.choose(burst, BurstContext{q.view(), &rng, 0}, out.data());
      used.insert(out.begin(), out.end());
    }
    EXPECT_EQ(used.size(), 1u) << "flow " << flow;
  }
}

TEST(Ecmp, SpreadsFlowsOverAllPorts) {
  Queues q(8);
  Rng rng(1), flows(99);
  Ecmp ecmp(0x1234);
  const auto cand = ports(8);
  std::vector<uint64_t> n(8);
  for (int f = 0; f < 16000; ++f)
    ++n[testing::choose_one(ecmp, packet(cand, flows.next()), q.view(), rng)];
  EXPECT_TRUE(testing::uniform_fit(n));
}

TEST(Ecmp, DifferentSaltsMapAFlowDifferently) {
  Queues q(16);
  Rng rng(1);
  Ecmp a(1), b(2);
  const auto cand = ports(16);
  int differ = 0;
  for (uint32_t f = 0; f < 100; ++f) {
    differ += testing::choose_one(a, packet(cand, f), q.view(), rng) !=
              testing::choose_one(b, packet(cand, f), q.view(), rng);
  }
  EXPECT_GT(differ, 70);  // ~94 expected: switches do not polarise
}

TEST(Rps, PassesChiSquare) {
  Queues q(12);
  Rng rng(5);
  Rps rps;
  const auto cand = ports(10, 2);
  std::vector<Packet> burst(32, packet(cand, 77));  // one flow: the hash plays no part
  std::vector<PortId> out(32);
  std::vector<uint64_t> n(10);
  for (int b = 0; b < 3000; ++b) {
    rps.choose(burst, BurstContext{q.view(), &rng, 0}, out.data());
    for (PortId p : out) ++n[p - 2];
  }
  EXPECT_TRUE(testing::uniform_fit(n));
}

TEST(SimpleRr, CyclesExactlyAcrossBursts) {
  Queues q(8);
  Rng rng(1);
  SimpleRr rr(0);
  const std::vector<PortId> cand = {5, 3, 7, 1, 6};
  std::vector<Packet> burst(7, packet(cand));
  std::vector<PortId> out(7);
  int i = 0;
  for (int b = 0; b < 5; ++b) {
    rr.choose(burst, BurstContext{q.view(), &rng, 0}, out.data());
    for (PortId p : out) EXPECT_EQ(p, cand[i++ % cand.size()]);
  }
}

TEST(SimpleRr, ReshufflesOnlyEveryNWraps) {
  Queues q(8);
  Rng rng(1);
  SimpleRr rr(2);
  const auto cand = ports(6);
  std::vector<Packet> burst(6, packet(cand));
  std::vector<std::vector<PortId>> wraps;
  for (int b = 0; b < 40; ++b) {
    std::vector<PortId> out(6);
    rr.choose(burst, BurstContext{q.view(), &rng, 0}, out.data());
    EXPECT_EQ(std::set<PortId>(out.begin(), out.end()).size(), 6u);  // every wrap is a permutation
    wraps.push_back(out);
  }
  int changes = 0;
  for (size_t w = 1; w < wraps.size(); ++w) {
    if (w % 2 == 1) {
      EXPECT_EQ(wraps[w], wraps[w - 1]) << "order changed inside a reshuffle period";
    }
    changes += wraps[w] != wraps[w - 1];
  }
  EXPECT_GT(changes, 10);
}

TEST(SimpleRr, EmptyCandidateSetGivesNoPort) {
  Queues q(1);
  Rng rng(1);
  SimpleRr rr(0);
  Packet p;
  EXPECT_EQ(testing::choose_one(rr, p, q.view(), rng), kNoPort);
}

}  // namespace
}  // namespace spraylab::lb
