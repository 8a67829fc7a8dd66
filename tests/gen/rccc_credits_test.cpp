// RCCC's credit rules (trafficgen/rccc_credits.h), stepped by hand against the reference's
// UecSrc::handlePull / computePullTarget / stopSpeculating, UecSink::pull and
// UecPullPacer::doNextEvent (uet-htsim, htsim/sim/uec.cpp).
//
// Round numbers: max credit 40000 B, a frame of 4000 B, 64 quanta (16384 B) a pull.
#include "trafficgen/rccc_credits.h"

#include <gtest/gtest.h>

#include <vector>

namespace spraylab::gen {
namespace {

RcccParams params() {
  RcccParams p;
  p.max_credit = 40'000;
  p.packet_bytes = 4'000;
  p.credit_per_pull = 64;
  return p;
}

TEST(RcccCredits, QuantaAndWireNumbers) {
  EXPECT_EQ(quanta_ceil(0), 0u);
  EXPECT_EQ(quanta_ceil(1), 1u);
  EXPECT_EQ(quanta_ceil(256), 1u);
  EXPECT_EQ(quanta_ceil(257), 2u);
  EXPECT_EQ(quanta_floor(40'000), 156u);  // 40000 / 256 = 156.25
  EXPECT_EQ(quanta_bytes(64), 16'384u);
  // 16 bits on the wire, read against the reader's own number: forwards and back, across 2^16.
  EXPECT_EQ(unwrap16(10, 0), 10u);
  EXPECT_EQ(unwrap16(0x0005, 0xfff0), 0x10005u);
  EXPECT_EQ(unwrap16(0xfff0, 0x10005), 0xfff0u);
  EXPECT_EQ(unwrap16(static_cast<uint16_t>(70'000), 69'000), 70'000u);
}

TEST(RcccCredits, SpeculativeStartThenOnlyPulledCredit) {
  RcccSender s(params());
  EXPECT_TRUE(s.speculating());
  EXPECT_EQ(s.credit(), 40'000);
  // Ten frames of 4000 B fit in 40000; the tenth leaves 0, and 0 sends nothing.
  EXPECT_EQ(s.packets_allowed(4'000), 10u);
  for (int i = 0; i < 9; ++i) s.on_send(4'000);
  EXPECT_EQ(s.credit(), 4'000);
  EXPECT_TRUE(s.may_send());
  // Any credit sends a frame, and may take the credit below 0 (a 4100 B frame on 4000).
  s.on_send(4'100);
  EXPECT_EQ(s.credit(), -100);
  EXPECT_FALSE(s.may_send());
  EXPECT_EQ(s.packets_allowed(4'000), 0u);
  EXPECT_EQ(s.spent(), 40'100u);
  // The first ACK ends speculation; a debt stays a debt.
  s.stop_speculating();
  EXPECT_FALSE(s.speculating());
  EXPECT_EQ(s.credit(), -100);
  // A PULL to 64 quanta: +16384 B.
  EXPECT_TRUE(s.on_pull(64));
  EXPECT_EQ(s.credit(), 16'284);
  EXPECT_EQ(s.packets_allowed(4'000), 5u);  // 16284, 12284, 8284, 4284, 284 all > 0
  // An old or repeated pull number grants nothing.
  EXPECT_FALSE(s.on_pull(64));
  EXPECT_FALSE(s.on_pull(10));
  EXPECT_EQ(s.credit(), 16'284);
  // Credit is held to max_credit: +4 x 16384 would be 81820.
  EXPECT_TRUE(s.on_pull(320));
  EXPECT_EQ(s.credit(), 40'000);
  EXPECT_EQ(s.pull(), 320u);
}

TEST(RcccCredits, StopSpeculatingDropsPositiveCredit) {
  RcccSender s(params());
  s.on_send(4'000);
  s.stop_speculating();  // 36000 left of the speculative start: dropped
  EXPECT_EQ(s.credit(), 0);
  EXPECT_FALSE(s.may_send());
  s.on_pull(1);          // 256 B: enough for a frame (any credit sends)
  s.stop_speculating();  // once only: pulled credit stays
  EXPECT_EQ(s.credit(), 256);
  EXPECT_TRUE(s.may_send());
}

TEST(RcccCredits, PullTargetAsComputePullTarget) {
  RcccSender s(params());
  // Speculating, credit 40000, backlog 100000: min(100000, 40000) − 40000 = 0 < a frame with
  // a backlog: one frame, 4000 B, over pull 0: quanta_ceil(4000) = 16.
  EXPECT_EQ(s.pull_target(100'000, 0, 1), 16u);
  // No backlog: 0 − 40000 < 0; the target lies below the pull number (clamped at 0 here).
  EXPECT_EQ(s.pull_target(0, 0, 1), 0u);
  s.stop_speculating();  // credit 0
  // 100000 capped at max credit 40000, less 0 credit, over pull 0: ceil(40000/256) = 157.
  EXPECT_EQ(s.pull_target(100'000, 0, 1), 157u);
  // A sender window of 10000 caps it at 10000 + a frame = 14000: ceil(14000/256) = 55.
  EXPECT_EQ(s.pull_target(100'000, 10'000, 1), 55u);
  // Shared over 4 backlogged sources: 40000 / 4 = 10000 → 40 quanta.
  EXPECT_EQ(s.pull_target(100'000, 0, 4), 40u);
  // After a pull to 100 quanta (25600 B credit): 40000 − 25600 = 14400 over 25600 → 40000 B,
  // 157 quanta (156.25 up); a backlog of 8000: 8000 − 25600 < 0 → 25600 − 17600 = 8000 → 32.
  s.on_pull(100);
  EXPECT_EQ(s.pull_target(100'000, 0, 1), 157u);
  EXPECT_EQ(s.pull_target(8'000, 0, 1), 32u);
}

TEST(RcccCredits, PacerPullsToTheTargetRoundRobinThenSlowPulls) {
  const RcccParams p = params();
  std::vector<RcccSinkFlow> flows(2);
  RcccPullPacer pacer;
  pacer.reserve(2);
  RcccPullPacer::Pull pull;
  EXPECT_FALSE(pacer.turn(flows, p, &pull));  // nothing to pull
  // Flow 0 wants 100 quanta, flow 1 wants 30.
  EXPECT_TRUE(flows[0].on_target(100));
  EXPECT_FALSE(flows[0].on_target(90));  // a lower target is old news
  EXPECT_TRUE(flows[1].on_target(30));
  pacer.request(0, flows[0]);
  pacer.request(1, flows[1]);
  pacer.request(0, flows[0]);  // in the ring already: once
  // Round robin: 0 gets 64, 1 gets its 30 (not 64: only what it asked for), 0 its last 36.
  ASSERT_TRUE(pacer.turn(flows, p, &pull));
  EXPECT_EQ(pull.flow, 0u);
  EXPECT_EQ(pull.number, 64u);
  EXPECT_EQ(pull.quanta, 64u);
  EXPECT_FALSE(pull.slow);
  ASSERT_TRUE(pacer.turn(flows, p, &pull));
  EXPECT_EQ(pull.flow, 1u);
  EXPECT_EQ(pull.number, 30u);
  EXPECT_EQ(pull.quanta, 30u);
  EXPECT_FALSE(flows[1].in_pull);  // satisfied: idle
  EXPECT_TRUE(flows[1].in_idle);
  ASSERT_TRUE(pacer.turn(flows, p, &pull));
  EXPECT_EQ(pull.flow, 0u);
  EXPECT_EQ(pull.number, 100u);
  EXPECT_EQ(pull.quanta, 36u);
  EXPECT_EQ(RcccPullPacer::turn_quanta(pull), 36u);
  // None below target: slow pulls of 64 to the idle flows in turn, beyond their targets, while
  // their surplus stays under max credit (floor(40000/256) = 156 quanta): 64, 128, 192 — the
  // third takes it past 156 and the flow leaves the idle ring.
  ASSERT_TRUE(pacer.turn(flows, p, &pull));
  EXPECT_EQ(pull.flow, 1u);
  EXPECT_TRUE(pull.slow);
  EXPECT_EQ(pull.number, 94u);
  ASSERT_TRUE(pacer.turn(flows, p, &pull));
  EXPECT_EQ(pull.flow, 0u);
  EXPECT_EQ(pull.number, 164u);
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(pacer.turn(flows, p, &pull));
  EXPECT_EQ(flows[0].slow_credit(), 192u);
  EXPECT_EQ(flows[1].slow_credit(), 192u);
  EXPECT_FALSE(pacer.turn(flows, p, &pull));
  EXPECT_TRUE(pacer.empty());
  // A new target above the surplus: pulled again, from where the grants stand.
  EXPECT_TRUE(flows[1].on_target(300));
  pacer.request(1, flows[1]);
  ASSERT_TRUE(pacer.turn(flows, p, &pull));
  EXPECT_EQ(pull.number, 286u);
  // An empty grant (a target reached by slow credit) still takes 1024 B of the pacer's time.
  RcccPullPacer::Pull none;
  EXPECT_EQ(RcccPullPacer::turn_quanta(none), 4u);
}

}  // namespace
}  // namespace spraylab::gen
