#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "trafficgen/entropy.h"

namespace spraylab::gen {
namespace {

constexpr uint64_t kMs = 1'000'000;

// Entropy values a test feeds back; real random draws are >= kEntropyMin, these are not, so a test
// can tell a recycled value from a random one.
constexpr uint16_t kGood = 100;

// The UEC htsim reference's defaults (entropy_mode.h): 64 values, 8 kept, freezing on.
const EntropyParams kRef{};

bool random_value(uint16_t e, uint32_t range = kRef.range) {
  return e >= kEntropyMin && e < kEntropyMin + range;
}

TEST(RepsEntropy, RecyclesGoodValuesOldestFirstEachOnce) {
  RepsEntropy reps(1, kRef);
  for (uint16_t i = 0; i < 3; ++i) reps.on_ack(kGood + i, false, 0);
  EXPECT_EQ(reps.next(), kGood + 0);
  EXPECT_EQ(reps.next(), kGood + 1);
  EXPECT_EQ(reps.next(), kGood + 2);
  EXPECT_TRUE(random_value(reps.next())) << "with every value used, the next is random";
}

TEST(RepsEntropy, AcksWithAnEcnEchoAreNotRecycled) {
  RepsEntropy reps(1, kRef);
  reps.on_ack(kGood, true, 0);
  EXPECT_EQ(reps.cached(), 0u);
  EXPECT_TRUE(random_value(reps.next()));
}

TEST(RepsEntropy, KeepsAtMostTheBufferSizeOverwritingTheOldest) {
  RepsEntropy reps(1, kRef);
  for (uint16_t i = 0; i < 10; ++i) reps.on_ack(kGood + i, false, 0);
  EXPECT_EQ(reps.cached(), 8u);
  EXPECT_EQ(reps.unused(), 8u);
  for (uint16_t i = 2; i < 10; ++i) EXPECT_EQ(reps.next(), kGood + i);  // 0 and 1 overwritten
  EXPECT_TRUE(random_value(reps.next()));
  RepsEntropy three(1, EntropyParams{64, 3, true});  // workload.reps_buffer: 3
  for (uint16_t i = 0; i < 10; ++i) three.on_ack(kGood + i, false, 0);
  EXPECT_EQ(three.cached(), 3u);
  for (uint16_t i = 7; i < 10; ++i) EXPECT_EQ(three.next(), kGood + i);
}

TEST(RepsEntropy, RandomValuesStayInTheEntropyRange) {
  for (uint32_t range : {1u, 64u, kMaxEntropyRange}) {
    RepsEntropy reps(5, EntropyParams{range, 8, true});
    std::set<uint16_t> seen;
    for (int i = 0; i < 4096; ++i) {
      const uint16_t e = reps.next();
      EXPECT_TRUE(random_value(e, range)) << e;
      seen.insert(e);
    }
    if (range <= 64) {
      EXPECT_EQ(seen.size(), range);
    } else {
      EXPECT_GT(seen.size(), 3000u);  // 4096 draws of 16384 values: ~3600 distinct
    }
  }
}

TEST(RepsEntropy, TimeoutFreezesForTenMsCyclingTheCachedValues) {
  RepsEntropy reps(1, kRef);
  for (uint16_t i = 0; i < 3; ++i) reps.on_ack(kGood + i, false, 0);
  EXPECT_EQ(reps.next(), kGood + 0);  // used up, but still cached
  reps.on_timeout(1 * kMs);
  EXPECT_TRUE(reps.frozen());
  for (int round = 0; round < 3; ++round) {
    for (uint16_t i = 0; i < 3; ++i) EXPECT_EQ(reps.next(), kGood + i);
  }
  reps.on_ack(kGood + 9, true, 11 * kMs);  // at the end, not after it: still frozen
  EXPECT_TRUE(reps.frozen());
  reps.on_ack(kGood + 9, true, 11 * kMs + 1);
  EXPECT_FALSE(reps.frozen());
}

TEST(RepsEntropy, LeavingTheFreezeResetsTheCacheAndSendsSixteenRandomPackets) {
  RepsEntropy reps(1, kRef);
  for (uint16_t i = 0; i < 8; ++i) reps.on_ack(kGood + i, false, 0);
  reps.on_timeout(0);
  const uint64_t after = RepsEntropy::kFreezeNs + 1;
  reps.on_ack(kGood + 20, false, after);  // the first feedback after the freeze thaws it
  EXPECT_FALSE(reps.frozen());
  EXPECT_EQ(reps.cached(), 1u) << "old values forgotten, the new good ACK kept";
  for (uint32_t i = 0; i < RepsEntropy::kExplorePackets; ++i) {
    EXPECT_TRUE(random_value(reps.next())) << "exploration packet " << i;
  }
  EXPECT_EQ(reps.next(), kGood + 20) << "then recycling resumes";
}

// The reference's cases (uec_mp.cpp UecMpReps::processEv).
TEST(RepsEntropy, ATimeoutWhileExploringDoesNotFreeze) {
  RepsEntropy reps(1, kRef);
  reps.on_timeout(0);
  reps.on_ack(kGood, false, RepsEntropy::kFreezeNs + 1);  // thaws: 16 packets explore
  ASSERT_EQ(reps.exploring(), RepsEntropy::kExplorePackets);
  reps.next();
  reps.on_timeout(RepsEntropy::kFreezeNs + 2);
  EXPECT_FALSE(reps.frozen());
  EXPECT_EQ(reps.exploring(), RepsEntropy::kExplorePackets - 1);
}

TEST(RepsEntropy, ASecondTimeoutDoesNotExtendTheFreeze) {
  RepsEntropy reps(1, kRef);
  reps.on_ack(kGood, false, 0);
  reps.on_timeout(0);
  reps.on_timeout(8 * kMs);  // frozen: ignored
  EXPECT_EQ(reps.next(), kGood);
  reps.on_ack(kGood + 1, false, 10 * kMs + 1);  // the first freeze's end, not 18 ms
  EXPECT_FALSE(reps.frozen());
  EXPECT_EQ(reps.exploring(), RepsEntropy::kExplorePackets);
}

TEST(RepsEntropy, GoodAcksDuringAFreezeAreRecycled) {
  RepsEntropy reps(1, kRef);
  reps.on_timeout(0);  // frozen with nothing kept
  EXPECT_TRUE(random_value(reps.next())) << "nothing kept yet: random";
  reps.on_ack(kGood, false, 1 * kMs);
  reps.on_ack(kGood + 1, true, 1 * kMs);  // marked: not kept
  EXPECT_TRUE(reps.frozen());
  EXPECT_EQ(reps.next(), kGood);
  reps.on_ack(kGood + 2, false, 2 * kMs);
  EXPECT_EQ(reps.next(), kGood);  // cycling through the kept values
  EXPECT_EQ(reps.next(), kGood + 2);
  EXPECT_EQ(reps.next(), kGood);
}

TEST(RepsEntropy, ATimeoutAfterTheFreezesEndThawsInsteadOfFreezingAgain) {
  RepsEntropy reps(1, kRef);
  reps.on_timeout(0);
  reps.on_timeout(RepsEntropy::kFreezeNs + 1);
  EXPECT_FALSE(reps.frozen());
  EXPECT_EQ(reps.exploring(), RepsEntropy::kExplorePackets);
}

TEST(RepsEntropy, WithFreezingOffATimeoutChangesNothing) {
  RepsEntropy reps(1, EntropyParams{64, 8, false});  // workload.reps_freezing: false
  reps.on_ack(kGood, false, 0);
  reps.on_timeout(1 * kMs);
  EXPECT_FALSE(reps.frozen());
  EXPECT_EQ(reps.next(), kGood);
  EXPECT_TRUE(random_value(reps.next())) << "used once, as without a timeout";
}

TEST(PathEntropy, FlowModeIsFixedPacketModeVaries) {
  PathEntropy flow(EntropyMode::kFlow, 3);
  const uint16_t first = flow.next();
  flow.on_ack(kGood, false, 0);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(flow.next(), first);
  PathEntropy packet(EntropyMode::kPacket, 3);
  std::set<uint16_t> seen;
  for (int i = 0; i < 10; ++i) seen.insert(packet.next());
  EXPECT_GT(seen.size(), 5u);
  PathEntropy wide(EntropyMode::kPacket, 3, EntropyParams{kMaxEntropyRange, 8, true});
  uint16_t top = 0;
  for (int i = 0; i < 1000; ++i) top = std::max(top, wide.next());
  EXPECT_GE(top, kEntropyMin + 64) << "entropy_range widens the draw";
}

TEST(PathEntropy, RepsModeRecyclesAndSeedsAreReproducible) {
  PathEntropy reps(EntropyMode::kReps, 3);
  reps.on_ack(kGood, false, 0);
  EXPECT_EQ(reps.next(), kGood);
  PathEntropy a(EntropyMode::kPacket, flow_seed(1, 2, 3));
  PathEntropy b(EntropyMode::kPacket, flow_seed(1, 2, 3));
  for (int i = 0; i < 8; ++i) EXPECT_EQ(a.next(), b.next());
  EXPECT_NE(flow_seed(1, 2, 3), flow_seed(1, 3, 2)) << "each direction is its own flow";
}

TEST(PathEntropy, ModeNamesRoundTrip) {
  for (EntropyMode m : {EntropyMode::kFlow, EntropyMode::kPacket, EntropyMode::kReps}) {
    EXPECT_EQ(entropy_mode_from_name(to_string(m)), m);
  }
  EXPECT_EQ(entropy_mode_from_name("ecmp"), std::nullopt);
}

TEST(DrbEntropy, EachTurnVisitsEveryValueOnceInOrder) {
  // DRB (Ofan §3.4): a per-destination pointer rotates over the entropy values; with `hash: digit`
  // switches each value is one path, so a turn of `range` packets puts one on every path.
  const EntropyParams params{.range = 36};
  PathEntropy drb(EntropyMode::kDrb, 7, params);
  const uint16_t first = drb.next();
  ASSERT_TRUE(random_value(first, params.range));
  for (int turn = 0; turn < 3; ++turn) {
    std::set<uint16_t> seen;
    for (uint32_t i = 0; i < params.range; ++i) {
      const uint16_t e = i == 0 && turn == 0 ? first : drb.next();
      EXPECT_TRUE(random_value(e, params.range)) << e;
      seen.insert(e);
    }
    EXPECT_EQ(seen.size(), params.range) << "turn " << turn;
  }
}

TEST(DrbEntropy, FlowsStartAtTheirOwnPointerAndIgnoreFeedback) {
  const EntropyParams params{.range = 4};
  std::set<uint16_t> starts;
  for (uint64_t seed = 1; seed <= 32; ++seed)
    starts.insert(PathEntropy(EntropyMode::kDrb, seed, params).next());
  EXPECT_EQ(starts.size(), 4u) << "random first pointers, so flows do not start in lock step";
  PathEntropy drb(EntropyMode::kDrb, 3, params);
  const uint16_t a = drb.next();
  drb.on_ack(a, true, 0);
  drb.on_timeout(kMs);
  EXPECT_EQ(drb.next(), kEntropyMin + (a - kEntropyMin + 1) % 4) << "feedback does not move it";
}

}  // namespace
}  // namespace spraylab::gen
