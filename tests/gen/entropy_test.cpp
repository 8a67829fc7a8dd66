#include <gtest/gtest.h>

#include <set>

#include "trafficgen/entropy.h"

namespace spraylab::gen {
namespace {

constexpr uint64_t kMs = 1'000'000;

// Entropy values a test feeds back; real random draws are >= kEntropyMin, these are not, so a test
// can tell a recycled value from a random one.
constexpr uint16_t kGood = 100;

TEST(RepsEntropy, RecyclesGoodValuesOldestFirstEachOnce) {
  RepsEntropy reps(1);
  for (uint16_t i = 0; i < 3; ++i) reps.on_ack(kGood + i, false, 0);
  EXPECT_EQ(reps.next(0), kGood + 0);
  EXPECT_EQ(reps.next(0), kGood + 1);
  EXPECT_EQ(reps.next(0), kGood + 2);
  EXPECT_GE(reps.next(0), kEntropyMin) << "with every value used, the next is random";
}

TEST(RepsEntropy, AcksWithAnEcnEchoAreNotRecycled) {
  RepsEntropy reps(1);
  reps.on_ack(kGood, true, 0);
  EXPECT_EQ(reps.cached(), 0u);
  EXPECT_GE(reps.next(0), kEntropyMin);
}

TEST(RepsEntropy, KeepsAtMostEightOverwritingTheOldest) {
  RepsEntropy reps(1);
  for (uint16_t i = 0; i < 10; ++i) reps.on_ack(kGood + i, false, 0);
  EXPECT_EQ(reps.cached(), RepsEntropy::kRingSize);
  EXPECT_EQ(reps.unused(), 8u);
  for (uint16_t i = 2; i < 10; ++i) EXPECT_EQ(reps.next(0), kGood + i);  // 0 and 1 overwritten
  EXPECT_GE(reps.next(0), kEntropyMin);
}

TEST(RepsEntropy, WithoutGoodAcksEveryPacketIsRandom) {
  RepsEntropy reps(5);
  std::set<uint16_t> seen;
  for (int i = 0; i < 64; ++i) {
    const uint16_t e = reps.next(0);
    EXPECT_GE(e, kEntropyMin);
    seen.insert(e);
  }
  EXPECT_GT(seen.size(), 50u);
}

TEST(RepsEntropy, TimeoutFreezesForTenMsCyclingTheCachedValues) {
  RepsEntropy reps(1);
  for (uint16_t i = 0; i < 3; ++i) reps.on_ack(kGood + i, false, 0);
  EXPECT_EQ(reps.next(0), kGood + 0);  // used up, but still cached
  reps.on_timeout(1 * kMs);
  EXPECT_TRUE(reps.frozen(1 * kMs));
  reps.on_ack(kGood + 50, false, 2 * kMs);  // frozen: the cache does not change
  for (int round = 0; round < 3; ++round) {
    for (uint16_t i = 0; i < 3; ++i) EXPECT_EQ(reps.next(5 * kMs), kGood + i);
  }
  EXPECT_TRUE(reps.frozen(11 * kMs - 1));
  EXPECT_FALSE(reps.frozen(11 * kMs));
}

TEST(RepsEntropy, LeavingTheFreezeResetsTheCacheAndSendsSixteenRandomPackets) {
  RepsEntropy reps(1);
  for (uint16_t i = 0; i < 8; ++i) reps.on_ack(kGood + i, false, 0);
  reps.on_timeout(0);
  const uint64_t after = RepsEntropy::kFreezeNs;
  reps.on_ack(kGood + 20, false, after);  // the first event after the freeze thaws it
  EXPECT_FALSE(reps.frozen(after));
  EXPECT_EQ(reps.cached(), 1u) << "old values forgotten, the new good ACK kept";
  for (uint32_t i = 0; i < RepsEntropy::kExplorePackets; ++i) {
    EXPECT_GE(reps.next(after), kEntropyMin) << "exploration packet " << i;
  }
  EXPECT_EQ(reps.next(after), kGood + 20) << "then recycling resumes";
}

TEST(RepsEntropy, ATimeoutWhileFrozenRestartsTheFreeze) {
  RepsEntropy reps(1);
  reps.on_ack(kGood, false, 0);
  reps.on_timeout(0);
  reps.on_timeout(8 * kMs);
  EXPECT_TRUE(reps.frozen(12 * kMs));
  EXPECT_EQ(reps.next(12 * kMs), kGood);
  EXPECT_FALSE(reps.frozen(18 * kMs));
}

TEST(RepsEntropy, FrozenWithAnEmptyCacheSendsRandomValues) {
  RepsEntropy reps(1);
  reps.on_timeout(0);
  EXPECT_GE(reps.next(1), kEntropyMin);
}

TEST(PathEntropy, FlowModeIsFixedPacketModeVaries) {
  PathEntropy flow(EntropyMode::kFlow, 3);
  const uint16_t first = flow.next(0);
  flow.on_ack(kGood, false, 0);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(flow.next(i), first);
  PathEntropy packet(EntropyMode::kPacket, 3);
  std::set<uint16_t> seen;
  for (int i = 0; i < 10; ++i) seen.insert(packet.next(i));
  EXPECT_GT(seen.size(), 5u);
}

TEST(PathEntropy, RepsModeRecyclesAndSeedsAreReproducible) {
  PathEntropy reps(EntropyMode::kReps, 3);
  reps.on_ack(kGood, false, 0);
  EXPECT_EQ(reps.next(0), kGood);
  PathEntropy a(EntropyMode::kPacket, flow_seed(1, 2, 3));
  PathEntropy b(EntropyMode::kPacket, flow_seed(1, 2, 3));
  for (int i = 0; i < 8; ++i) EXPECT_EQ(a.next(i), b.next(i));
  EXPECT_NE(flow_seed(1, 2, 3), flow_seed(1, 3, 2)) << "each direction is its own flow";
}

TEST(PathEntropy, ModeNamesRoundTrip) {
  for (EntropyMode m : {EntropyMode::kFlow, EntropyMode::kPacket, EntropyMode::kReps}) {
    EXPECT_EQ(entropy_mode_from_name(to_string(m)), m);
  }
  EXPECT_EQ(entropy_mode_from_name("ecmp"), std::nullopt);
}

}  // namespace
}  // namespace spraylab::gen
