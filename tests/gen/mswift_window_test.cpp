// MSwift's window rules (trafficgen/mswift_window.h), stepped by hand: Swift's Algorithm 1 per
// entropy value. Every test: mss 1000, 4 sub-windows of 8000 / 4 = 2000, target = base 10000 +
// 4 hops · 500 = 12000 ns (no flow scaling); entropy value ev goes to sub-window ev mod 4.
#include "trafficgen/mswift_window.h"

#include <gtest/gtest.h>

#include <cmath>

namespace spraylab::gen {
namespace {

constexpr uint32_t kMss = 1000;

MswiftParams params(uint64_t initial_window = 8'000) {
  MswiftParams p;
  p.mss = kMss;
  p.subflows = 4;
  p.initial_window = initial_window;
  p.base_target_ns = 10'000;
  p.hop_scale_ns = 500;
  p.hops = 4;
  return p;
}

TEST(MswiftWindow, TheTargetScalesWithHopsAndFlowScaling) {
  MswiftWindow w(params());
  EXPECT_DOUBLE_EQ(w.target_ns(2'000), 12'000);  // 10000 + 4·500, no flow scaling
  // fs_range 5000 between 0.1 and 100 packets: α = 5000 / (1/√0.1 − 1/√100), β = −α/10;
  // at 100 packets fs = 0, at 0.1 packet 5000, at one packet α − α/10 = 0.9·α.
  MswiftParams p = params();
  p.fs_range_ns = 5'000;
  MswiftWindow f(p);
  const double alpha = 5'000 / (1 / std::sqrt(0.1) - 0.1);
  EXPECT_NEAR(f.target_ns(100 * kMss), 12'000, 1e-6);
  EXPECT_NEAR(f.target_ns(0.1 * kMss), 17'000, 1e-6);
  EXPECT_NEAR(f.target_ns(kMss), 12'000 + 0.9 * alpha, 1e-6);
}

TEST(MswiftWindow, AdditiveIncreaseMovesOnlyTheAckedEntropysWindow) {
  MswiftWindow w(params());
  EXPECT_DOUBLE_EQ(w.cwnd(), 8'000);
  // ev 5 → sub-window 1; RTT 11000 < 12000: 2000 + 1·1000·1000/2000 = 2500.
  w.on_ack(kMss, 11'000, 5, 1'000);
  EXPECT_DOUBLE_EQ(w.sub_cwnd(1), 2'500);
  EXPECT_DOUBLE_EQ(w.sub_cwnd(0), 2'000);
  EXPECT_DOUBLE_EQ(w.cwnd(), 8'500);
  // Below one packet the increase is ai·acked: a sub-window of 2000/4 = 500 gains 1000 → 1500.
  MswiftWindow small(params(2'000));
  small.on_ack(kMss, 11'000, 4, 1'000);
  EXPECT_DOUBLE_EQ(small.sub_cwnd(0), 1'500);
}

TEST(MswiftWindow, DecreaseIsBetaTimesTheExcessAtMostMaxMdfOncePerRtt) {
  MswiftWindow w(params());
  // ev 6 → sub-window 2; RTT 24000: max(1 − 0.8·(24000 − 12000)/24000, 1 − 0.5) = 0.6 → 1200.
  w.on_ack(kMss, 24'000, 6, 1'000);
  EXPECT_DOUBLE_EQ(w.sub_cwnd(2), 1'200);
  EXPECT_DOUBLE_EQ(w.cwnd(), 7'200);
  // 20000 ns later, within the smoothed RTT (24000): no second cut.
  w.on_ack(kMss, 24'000, 6, 21'000);
  EXPECT_DOUBLE_EQ(w.sub_cwnd(2), 1'200);
  // 24000 ns after the cut: 1200·0.6 = 720.
  w.on_ack(kMss, 24'000, 6, 25'000);
  EXPECT_DOUBLE_EQ(w.sub_cwnd(2), 720);
  EXPECT_EQ(w.decreases(), 2u);
  // RTT 120000 on ev 7: 1 − 0.8·108000/120000 = 0.28 is below 1 − max_mdf: halved, 1000.
  w.on_ack(kMss, 120'000, 7, 25'000);
  EXPECT_DOUBLE_EQ(w.sub_cwnd(3), 1'000);
}

TEST(MswiftWindow, TimeoutsHalveEveryWindowAndTheFifthInARowResetsToTheMinimum) {
  MswiftWindow w(params(80'000));  // sub-windows of 20000
  // No RTT sample yet (smoothed RTT 0): each timeout may cut: 20000 → 10000 → 5000 → 2500 → 1250.
  for (uint64_t t = 1; t <= 4; ++t) w.on_timeout(t * 1'000);
  EXPECT_DOUBLE_EQ(w.sub_cwnd(0), 1'250);
  EXPECT_DOUBLE_EQ(w.cwnd(), 5'000);
  MswiftWindow reset = w;
  reset.on_timeout(5'000);  // the fifth in a row: every sub-window at 0.1 packet, not 625
  EXPECT_DOUBLE_EQ(reset.sub_cwnd(0), 100);
  EXPECT_DOUBLE_EQ(reset.cwnd(), 400);
  // An ACK resets the count: sub-window 0 gains 1000·1000/1250 = 800 → 2050, the smoothed RTT
  // becomes 11000; a timeout at 16000 (12000 after the last cut) halves again: 2050 → 1025,
  // the others 1250 → 625.
  w.on_ack(kMss, 11'000, 0, 5'000);
  w.on_timeout(16'000);
  EXPECT_DOUBLE_EQ(w.sub_cwnd(0), 1'025);
  EXPECT_DOUBLE_EQ(w.sub_cwnd(1), 625);
}

TEST(MswiftWindow, ANackHalvesItsEntropysWindowOncePerRtt) {
  MswiftWindow w(params());
  w.on_ack(kMss, 11'000, 4, 500);  // smoothed RTT 11000 (sub-window 0 grows to 2500)
  w.on_nack(kMss, 5, 1'000);
  EXPECT_DOUBLE_EQ(w.sub_cwnd(1), 1'000);
  w.on_nack(kMss, 5, 2'000);  // 1000 ns later: within the RTT
  EXPECT_DOUBLE_EQ(w.sub_cwnd(1), 1'000);
  EXPECT_DOUBLE_EQ(w.sub_cwnd(0), 2'500);
  EXPECT_EQ(w.nacks(), 2u);
}

TEST(MswiftWindow, TheFlowSendsWhileItsFlightIsBelowTheSumOfItsWindows) {
  MswiftWindow w(params());
  EXPECT_EQ(w.packets_allowed(), 8u);
  for (int i = 0; i < 8; ++i) w.on_send(kMss);
  EXPECT_FALSE(w.may_send(kMss));
  w.release(kMss);
  w.on_ack(kMss, 11'000, 1, 1'000);  // sub-window 1: 2500; sum 8500, flight 7000
  EXPECT_EQ(w.packets_allowed(), 1u);
}

}  // namespace
}  // namespace spraylab::gen
