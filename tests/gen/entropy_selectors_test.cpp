// The UEC reference's entropy selectors (trafficgen/entropy/oblivious.h, bitmap.h, mixed.h) against
// expectations derived by hand from htsim's uec_mp.cpp rules. A bitmap or mixed selector with a
// given seed walks the same cycle as an oblivious one with that seed (bitmap.h), so an oblivious
// "twin" tells each test which EV the cycle stands on; the expectations are then that sequence
// with the skips and recycled values the rules call for.
#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <vector>

#include "trafficgen/entropy.h"

namespace spraylab::gen {
namespace {

// Small spaces, so cycles are short and every EV can be named.
EntropyParams with_range(uint32_t range) {
  EntropyParams p;
  p.range = range;
  return p;
}

// The next n values of a selector.
template <class Selector>
std::vector<uint16_t> take(Selector& s, size_t n) {
  std::vector<uint16_t> out;
  for (size_t i = 0; i < n; ++i) out.push_back(s.next());
  return out;
}

uint16_t low(uint16_t port, uint32_t range) { return static_cast<uint16_t>(port & (range - 1)); }

TEST(ObliviousEntropy, EveryCycleVisitsEveryValueOnceInXorOrder) {
  for (uint32_t range : {1u, 2u, 8u, 64u, kMaxEntropyRange}) {
    ObliviousEntropy ob(7, with_range(range));
    const uint16_t upper = ob.upper_bits();
    EXPECT_EQ(upper & (range - 1), 0) << "the upper bits leave the index alone";
    for (int cycle = 0; cycle < 3; ++cycle) {
      const std::vector<uint16_t> v = take(ob, range);
      // The cycle's first value is its XOR (index 0 ^ x); the i-th is i ^ x.
      const uint16_t x = low(v[0], range);
      std::set<uint16_t> seen;
      for (uint32_t i = 0; i < range; ++i) {
        EXPECT_EQ(low(v[i], range), i ^ x) << "range " << range << " cycle " << cycle;
        EXPECT_EQ(v[i] & ~(range - 1) & 0x3FFF, upper) << "the upper bits never change";
        EXPECT_GE(v[i], kEntropyMin);
        seen.insert(v[i]);
      }
      EXPECT_EQ(seen.size(), range) << "each value once per cycle";
    }
  }
}

TEST(ObliviousEntropy, CyclesAndFlowsDrawTheirOwnOrderAndUpperBits) {
  ObliviousEntropy ob(3, with_range(64));
  std::set<uint16_t> xors;
  for (int cycle = 0; cycle < 32; ++cycle) xors.insert(low(take(ob, 64)[0], 64));
  EXPECT_GT(xors.size(), 8u) << "a new XOR at every wrap";
  std::set<uint16_t> uppers;
  for (uint64_t seed = 1; seed <= 16; ++seed) {
    uppers.insert(ObliviousEntropy(seed, with_range(64)).upper_bits());
  }
  EXPECT_GT(uppers.size(), 8u) << "random upper bits per flow";
}

TEST(ObliviousEntropy, TheRangeMustBeAPowerOfTwo) {
  EXPECT_THROW(ObliviousEntropy(1, with_range(36)), std::invalid_argument);
  EXPECT_THROW(ObliviousEntropy(1, with_range(0)), std::invalid_argument);
  EXPECT_THROW(BitmapEntropy(1, with_range(48)), std::invalid_argument);
  EXPECT_THROW(PathEntropy(EntropyMode::kMixed, 1, with_range(100)), std::invalid_argument);
}

TEST(BitmapEntropy, WithoutPenaltiesItIsTheObliviousCycle) {
  BitmapEntropy bm(11, with_range(8));
  ObliviousEntropy twin(11, with_range(8));
  for (int i = 0; i < 40; ++i) {
    bm.on_ack(bm.next(), false);  // good ACKs add nothing
    EXPECT_EQ(bm.penalty(twin.next()), 0);
  }
  BitmapEntropy again(11, with_range(8));
  ObliviousEntropy twin2(11, with_range(8));
  EXPECT_EQ(take(again, 40), take(twin2, 40));
}

TEST(BitmapEntropy, AnEcnEchoSkipsItsValueOnceAndThePenaltyIsSpent) {
  BitmapEntropy bm(5, with_range(8));
  ObliviousEntropy twin(5, with_range(8));
  const std::vector<uint16_t> o = take(twin, 16);  // two cycles of the walk
  bm.on_ack(o[2], true);                           // +1
  EXPECT_EQ(bm.penalty(o[2]), 1);
  // The walk meets o[2] at its third step: it spends the penalty and sends o[3] instead.
  EXPECT_EQ(take(bm, 7), (std::vector<uint16_t>{o[0], o[1], o[3], o[4], o[5], o[6], o[7]}));
  EXPECT_EQ(bm.penalty(o[2]), 0);
  // The next cycle sends it again.
  EXPECT_EQ(take(bm, 8), std::vector<uint16_t>(o.begin() + 8, o.end()));
}

TEST(BitmapEntropy, ANackPenaltyOfFourSkipsTheValueForFourCycles) {
  const uint32_t range = 4;
  BitmapEntropy bm(9, with_range(range));
  ObliviousEntropy twin(9, with_range(range));
  const uint16_t blamed = twin.port(1);  // EV index 1
  bm.on_nack(blamed);
  EXPECT_EQ(bm.penalty(blamed), 4);
  // Index 1 comes up once a cycle, each time the first penalised EV met: it is skipped and its
  // penalty drops 4, 3, 2, 1, 0; the fifth time it is sent. The walk is the twin's with the
  // first four index-1 values left out.
  const std::vector<uint16_t> o = take(twin, 6 * range);
  std::vector<uint16_t> expected;
  int skipped = 0;
  for (uint16_t v : o) {
    if (low(v, range) == 1 && skipped < 4) {
      ++skipped;
      continue;
    }
    expected.push_back(v);
  }
  expected.resize(4 * (range - 1) + range);  // four cycles of three, then a whole fifth one
  EXPECT_EQ(take(bm, expected.size()), expected);
  EXPECT_EQ(bm.penalty(blamed), 0);
}

TEST(BitmapEntropy, PenaltiesAddUpToTheCapAndATimeoutBlamesValueZero) {
  BitmapEntropy bm(2, with_range(8));
  const uint16_t port = bm.cycle().port(3);
  for (int i = 0; i < 20; ++i) bm.on_ack(port, true);
  EXPECT_EQ(bm.penalty(port), 15) << "capped at max_penalty";
  bm.on_ack(bm.cycle().port(5), true);
  bm.on_nack(bm.cycle().port(5));
  EXPECT_EQ(bm.penalty(bm.cycle().port(5)), 5) << "ECN 1 + NACK 4";
  bm.on_ack(bm.cycle().port(5), false);
  EXPECT_EQ(bm.penalty(bm.cycle().port(5)), 5) << "good news lowers nothing";
  // uec.cpp rtxTimerExpired reports UNKNOWN_EV (0): the flow's value with index 0 pays.
  bm.on_timeout();
  EXPECT_EQ(bm.penalty(bm.cycle().port(0)), 15);
  // The penalties are keys of their own (workload.bitmap_*).
  EntropyParams p = with_range(8);
  p.bitmap_ecn_penalty = 2;
  p.bitmap_nack_penalty = 7;
  p.bitmap_max_penalty = 8;
  BitmapEntropy custom(2, p);
  custom.on_ack(custom.cycle().port(1), true);
  EXPECT_EQ(custom.penalty(custom.cycle().port(1)), 2);
  custom.on_nack(custom.cycle().port(1));
  EXPECT_EQ(custom.penalty(custom.cycle().port(1)), 8);
  custom.on_timeout();
  EXPECT_EQ(custom.penalty(custom.cycle().port(0)), 8);
}

TEST(BitmapEntropy, OnlyTheFirstPenalisedValueMetDecays) {
  BitmapEntropy bm(4, with_range(8));
  ObliviousEntropy twin(4, with_range(8));
  const std::vector<uint16_t> o = take(twin, 8);
  bm.on_ack(o[1], true);
  bm.on_ack(o[2], true);
  // Step one sends o[0]; step two meets o[1] (spent to 0) then o[2] (skipped, kept at 1) and
  // sends o[3].
  EXPECT_EQ(take(bm, 2), (std::vector<uint16_t>{o[0], o[3]}));
  EXPECT_EQ(bm.penalty(o[1]), 0);
  EXPECT_EQ(bm.penalty(o[2]), 1);
}

TEST(BitmapEntropy, WithEveryValuePenalisedItGivesUpAfterRangePlusOneSteps) {
  const uint32_t range = 4;
  BitmapEntropy bm(6, with_range(range));
  ObliviousEntropy twin(6, with_range(range));
  for (uint16_t i = 0; i < range; ++i) {
    for (int echo = 0; echo < 15; ++echo) bm.on_ack(bm.cycle().port(i), true);
  }
  const std::vector<uint16_t> o = take(twin, 2 * range + 2);
  // It stands on o[0] (spent to 14), walks range steps to o[range], breaks there and sends it;
  // the next call starts at o[range + 1].
  EXPECT_EQ(bm.next(), o[range]);
  uint32_t total = 0;
  for (uint16_t i = 0; i < range; ++i) total += bm.penalty(bm.cycle().port(i));
  EXPECT_EQ(total, range * 15 - 1);
  EXPECT_EQ(bm.penalty(o[0]), 14);
  EXPECT_EQ(bm.next(), o[2 * range + 1]) << "it stood on o[range + 1], spent it, gave up again";
}

TEST(MixedEntropy, GoodAcksAreRecycledFirstInArrivalOrderEachOnce) {
  MixedEntropy mx(8, with_range(8));
  ObliviousEntropy twin(8, with_range(8));
  const std::vector<uint16_t> o = take(twin, 8);
  EXPECT_EQ(take(mx, 2), (std::vector<uint16_t>{o[0], o[1]})) << "nothing queued: bitmap";
  // Values a test feeds back; the cycle never sends these, so a recycled one is recognised.
  mx.on_ack(100, false);
  mx.on_ack(101, false);
  mx.on_ack(o[7], true);  // an ECN echo is not recycled; it penalises o[7], sent last
  EXPECT_EQ(mx.queued(), 2u);
  EXPECT_EQ(mx.bitmap().penalty(o[7]), 1);
  EXPECT_EQ(take(mx, 4), (std::vector<uint16_t>{100, 101, o[2], o[3]}))
      << "the queue first, then the bitmap where its cycle stood";
}

TEST(MixedEntropy, BitmapPenaltiesSteerWhatIsNotRecycled) {
  MixedEntropy mx(12, with_range(8));
  ObliviousEntropy twin(12, with_range(8));
  const std::vector<uint16_t> o = take(twin, 8);
  mx.on_nack(o[1]);  // penalty 4: not queued, skipped by the cycle
  EXPECT_EQ(mx.bitmap().penalty(o[1]), 4);
  mx.on_timeout();  // index 0 at the cap
  EXPECT_EQ(mx.queued(), 0u);
  EXPECT_EQ(mx.bitmap().penalty(mx.bitmap().cycle().port(0)), 15);
  std::vector<uint16_t> expected;
  for (uint16_t v : o) {
    if (v != o[1] && low(v, 8) != 0) expected.push_back(v);
  }
  const std::vector<uint16_t> got = take(mx, expected.size());
  EXPECT_EQ(got, expected);
}

TEST(MixedEntropy, AFullQueueDropsItsOldestEntry) {
  MixedEntropy mx(1, with_range(64));
  const uint32_t n = MixedEntropy::kRecycleCapacity;
  for (uint32_t i = 0; i <= n; ++i) mx.on_ack(static_cast<uint16_t>(i), false);
  EXPECT_EQ(mx.queued(), n);
  EXPECT_EQ(mx.dropped(), 1u);
  EXPECT_EQ(mx.next(), 1) << "entry 0 made room for entry n";
  for (uint32_t i = 2; i <= n; ++i) ASSERT_EQ(mx.next(), i);
  EXPECT_EQ(mx.queued(), 0u);
}

TEST(RepsEntropy, ANackNeitherKeepsNorBlamesItsValueButEndsADueFreeze) {
  RepsEntropy reps(1, EntropyParams{});
  reps.on_nack(0);
  reps.on_ack(100, false, 0);
  reps.on_nack(0);
  EXPECT_EQ(reps.cached(), 1u) << "a NACK adds nothing and removes nothing";
  reps.on_timeout(0);
  ASSERT_TRUE(reps.frozen());
  reps.on_nack(RepsEntropy::kFreezeNs);
  EXPECT_TRUE(reps.frozen()) << "not after the freeze's end yet";
  reps.on_nack(RepsEntropy::kFreezeNs + 1);
  EXPECT_FALSE(reps.frozen());
  EXPECT_EQ(reps.exploring(), RepsEntropy::kExplorePackets);
}

// PathEntropy routes every feedback to its mode's selector and to no other.
TEST(PathEntropy, TheUecModesTakeTheirFeedback) {
  const uint32_t range = 4;
  for (EntropyMode mode : {EntropyMode::kBitmap, EntropyMode::kMixed}) {
    PathEntropy pe(mode, 21, with_range(range));
    const uint16_t blamed = pe.next();
    pe.on_nack(blamed, 0);  // +4: the rest of this cycle and four more without it
    for (uint16_t v : take(pe, 5 * (range - 1))) {
      EXPECT_NE(low(v, range), low(blamed, range)) << to_string(mode);
    }
  }
  PathEntropy mixed(EntropyMode::kMixed, 21, with_range(range));
  mixed.on_ack(100, false, 0);
  EXPECT_EQ(mixed.next(), 100);
  PathEntropy bitmap(EntropyMode::kBitmap, 21, with_range(range));
  bitmap.on_ack(100, false, 0);
  EXPECT_NE(bitmap.next(), 100) << "bitmap does not recycle";
  // Oblivious and the older modes ignore NACKs: the sequence is the twin's.
  for (EntropyMode mode : {EntropyMode::kOblivious, EntropyMode::kFlow, EntropyMode::kPacket,
                           EntropyMode::kDrb, EntropyMode::kReps}) {
    PathEntropy fed(mode, 33, with_range(range));
    PathEntropy twin(mode, 33, with_range(range));
    for (int i = 0; i < 32; ++i) {
      const uint16_t v = fed.next();
      fed.on_nack(v, 0);
      ASSERT_EQ(v, twin.next()) << to_string(mode) << " packet " << i;
    }
  }
}

}  // namespace
}  // namespace spraylab::gen
