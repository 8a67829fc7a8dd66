// NSCC's window rules (trafficgen/nscc_window.h), stepped by hand against the reference's
// updateCwndOnAck_NSCC / updateCwndOnNack_NSCC (uet-htsim, htsim/sim/uec.cpp).
//
// The fabric of every test but the first is the reference's own scale, so that the constants are
// round: 100 Gb/s (12.5 B/ns) and a 12 µs network RTT give BDP = 150000 B = the reference BDP,
// a = 1; the target is the network RTT, 12000 ns, b = 1; with mss 1000:
//   α = 4·1000·1·1/12000 = 1/3 B per acked byte per ns below the target, fi = 5000, η = 150,
//   fi_scale = 0.25, qa threshold 48000 ns, fulfil after > 8000 B or > 12000 ns,
//   max window 1.5·12000·12.5 = 225000 B, min window 1000 B.
#include "trafficgen/nscc_window.h"

#include <gtest/gtest.h>

namespace spraylab::gen {
namespace {

constexpr uint32_t kMss = 1000;
constexpr uint64_t kBase = 12'000;

NsccParams params(uint64_t initial_window = 100'000) {
  NsccParams p;
  p.mss = kMss;
  p.link_rate_bps = 100e9;
  p.network_rtt_ns = kBase;
  p.initial_window = initial_window;
  return p;
}

TEST(NsccWindow, ConstantsScaleWithTheFabricAsInitNsccParams) {
  const NsccWindow ref(params());
  EXPECT_DOUBLE_EQ(ref.constants().scaling_a, 1.0);
  EXPECT_DOUBLE_EQ(ref.constants().scaling_b, 1.0);
  EXPECT_DOUBLE_EQ(ref.constants().alpha, 4000.0 / 12000);
  EXPECT_DOUBLE_EQ(ref.constants().fi, 5000);
  EXPECT_DOUBLE_EQ(ref.constants().eta, 150);
  EXPECT_DOUBLE_EQ(ref.max_window(), 225'000);
  EXPECT_DOUBLE_EQ(NsccWindow(params(0)).cwnd(), 225'000);  // no initial window: the maximum
  // 800 Gb/s and a 6 µs RTT: BDP 600000 B, a = 4; target 6000 ns, b = 0.5;
  // α = 4·1000·4·0.5/6000 = 4/3, fi = 20000, η = 600, fi_scale = 1.
  NsccParams fast = params();
  fast.link_rate_bps = 800e9;
  fast.network_rtt_ns = 6'000;
  const NsccWindow f(fast);
  EXPECT_DOUBLE_EQ(f.constants().scaling_a, 4.0);
  EXPECT_DOUBLE_EQ(f.constants().scaling_b, 0.5);
  EXPECT_DOUBLE_EQ(f.constants().alpha, 4.0 / 3);
  EXPECT_DOUBLE_EQ(f.constants().fi, 20'000);
  EXPECT_DOUBLE_EQ(f.constants().eta, 600);
  EXPECT_DOUBLE_EQ(f.constants().fi_scale, 1.0);
  // With trimming the target is 0.75 RTT: 4500 ns, b = 0.375.
  fast.trimming = true;
  EXPECT_DOUBLE_EQ(NsccWindow(fast).constants().target_ns, 4'500);
  EXPECT_DOUBLE_EQ(NsccWindow(fast).constants().scaling_b, 0.375);
}

TEST(NsccWindow, FairIncreaseAtOrAboveTheTargetIsAppliedAtTheFulfil) {
  NsccWindow w(params());
  // Nine ACKs of 1000 B at t = 1 µs, delay 24000 − 12000 = 12000 ≥ target: inc += 5000·1000
  // each. The first eight leave the window (received 8000 is not > 8000); the ninth fulfils:
  // cwnd += 9·5e6 / 100000 = 450 (no η: 1000 ns since the last adjustment < 12000).
  for (int i = 0; i < 8; ++i) {
    w.on_ack(kMss, false, 24'000, 1'000);
    EXPECT_DOUBLE_EQ(w.cwnd(), 100'000);
  }
  w.on_ack(kMss, false, 24'000, 1'000);
  EXPECT_DOUBLE_EQ(w.cwnd(), 100'450);
  EXPECT_EQ(w.fulfils(), 1u);
}

TEST(NsccWindow, ProportionalIncreaseBelowTheTargetGrowsWithTheRoomLeft) {
  NsccWindow w(params());
  // Delay 15000 − 12000 = 3000 < 12000: inc += (1/3)·1000·(12000 − 3000) = 3e6 per ACK; nine
  // ACKs fulfil 2.7e7 / 100000 = 270.
  for (int i = 0; i < 9; ++i) w.on_ack(kMss, false, 15'000, 1'000);
  EXPECT_NEAR(w.cwnd(), 100'270, 1e-6);
}

TEST(NsccWindow, EtaIsAddedOncePerNetworkRtt) {
  NsccWindow w(params());
  // One fair ACK at t = 13000 ns: 13000 − 0 > 12000 fulfils at once: 5e6 / 100000 = 50, and
  // 13000 ≥ 12000 adds η = 150.
  w.on_ack(kMss, false, 24'000, 13'000);
  EXPECT_DOUBLE_EQ(w.cwnd(), 100'200);
  // Another at t = 14000: 8000 B not reached, 1000 ns since the adjustment: nothing yet.
  w.on_ack(kMss, false, 24'000, 14'000);
  EXPECT_DOUBLE_EQ(w.cwnd(), 100'200);
}

TEST(NsccWindow, FastIncreaseAfterAWindowOfAcksWithoutQueue) {
  NsccWindow w(params(4'000));
  // Delay 500 < 1000 ns: fi_count grows by 1000 per ACK. ACKs 1-4 (fi_count ≤ cwnd = 4000) are
  // proportional increases, held until the fulfil; the fifth (5000 > 4000) and every one after
  // add 1000·0.25 = 250 at once: 4250, 4500, 4750, 5000 after the eighth.
  for (int i = 0; i < 4; ++i) w.on_ack(kMss, false, kBase + 500, 1'000);
  EXPECT_DOUBLE_EQ(w.cwnd(), 4'000);
  w.on_ack(kMss, false, kBase + 500, 1'000);
  EXPECT_DOUBLE_EQ(w.cwnd(), 4'250);
  for (int i = 0; i < 3; ++i) w.on_ack(kMss, false, kBase + 500, 1'000);
  EXPECT_DOUBLE_EQ(w.cwnd(), 5'000);
  // One sample with a queue (delay 3000) ends it: fi_count restarts, no fast step.
  w.on_ack(kMss, false, kBase + 3'000, 1'000);
  EXPECT_GT(w.cwnd(), 5'000);  // the fulfil of the held proportional increases
  const double after = w.cwnd();
  w.on_ack(kMss, false, kBase + 500, 1'000);
  EXPECT_DOUBLE_EQ(w.cwnd(), after);
}

TEST(NsccWindow, MultiplicativeDecreaseOnEchoAboveTargetOncePerBaseRttAtMostHalf) {
  NsccWindow w(params());
  // An echoed ACK with delay 1.2e6 ns at t = 20000: avg = 0.0125·1.2e6 = 15000 > 12000, and
  // 20000 − 0 > base 12000: cwnd ·= max(1 − 0.8·(15000 − 12000)/15000, 0.5) = 0.84 → 84000;
  // then the fulfil (20000 > 12000 since the last adjustment) adds η: 84150.
  w.on_ack(kMss, true, kBase + 1'200'000, 20'000);
  EXPECT_NEAR(w.avg_delay_ns(), 15'000, 1e-6);
  EXPECT_NEAR(w.cwnd(), 84'150, 1e-6);
  EXPECT_EQ(w.decreases(), 1u);
  // 5000 ns later, within a base RTT: avg = 15000 + 0.9875·15000 = 29812.5, no cut.
  w.on_ack(kMss, true, kBase + 1'200'000, 25'000);
  EXPECT_NEAR(w.cwnd(), 84'150, 1e-6);
  EXPECT_EQ(w.decreases(), 1u);
  // At t = 32001 (12001 after the cut): avg = 15000 + 0.9875·29812.5 = 44439.84375;
  // 1 − 0.8·(44439.84 − 12000)/44439.84 = 0.416 → at most half: 42075, + η = 42225.
  w.on_ack(kMss, true, kBase + 1'200'000, 32'001);
  EXPECT_NEAR(w.avg_delay_ns(), 44'439.84375, 1e-6);
  EXPECT_NEAR(w.cwnd(), 42'225, 1e-6);
  EXPECT_EQ(w.decreases(), 2u);
}

TEST(NsccWindow, AnEchoBelowTheTargetChangesNothing) {
  NsccWindow w(params());
  w.on_ack(kMss, true, kBase + 100, 1'000);  // the path is congested, not the flow
  EXPECT_DOUBLE_EQ(w.cwnd(), 100'000);
  // Even with the smoothed delay above the target: the cut at t = 20000 (84000 + η = 84150, as
  // in the test below) leaves avg = 15000; an echo with delay 100 at t = 40000 (past a base
  // RTT) moves avg to 0.0125·100 + 0.9875·15000 = 14813.75 > 12000 but cuts nothing; only the
  // fulfil's η (20000 ns since the last) adds 150: 84300.
  NsccWindow v(params());
  v.on_ack(kMss, true, kBase + 1'200'000, 20'000);
  v.on_ack(kMss, true, kBase + 100, 40'000);
  EXPECT_NEAR(v.avg_delay_ns(), 14'813.75, 1e-6);
  EXPECT_NEAR(v.cwnd(), 84'300, 1e-6);
  EXPECT_EQ(v.decreases(), 1u);
}

TEST(NsccWindow, QuickAdaptDropsToWhatWasDeliveredAndIgnoresTheEchoesInFlight) {
  NsccWindow w(params());
  w.on_send(20'000);
  // The first ACK opens the first period: it ends at 1000 + base 12000 + target 12000 = 25000.
  w.release(kMss);
  w.on_ack(kMss, false, kBase, 1'000);
  // At t = 26000, delay 60000 > 4·target = 48000, and 5000 B delivered this period is below
  // 225000 / 2^3 = 28125: the window becomes 5000, the 14000 B still in flight are ignored.
  w.release(5'000);
  w.on_ack(5'000, false, kBase + 60'000, 26'000);
  EXPECT_DOUBLE_EQ(w.cwnd(), 5'000);
  EXPECT_EQ(w.quick_adapts(), 1u);
  // An echo with a huge delay from that flight: ignored, no decrease.
  w.release(kMss);
  w.on_ack(kMss, true, kBase + 1'200'000, 40'000);
  EXPECT_DOUBLE_EQ(w.cwnd(), 5'000);
  EXPECT_EQ(w.decreases(), 0u);
  // Without quick adapt the same steps leave the window alone at t = 26000.
  NsccParams off = params();
  off.quick_adapt = false;
  NsccWindow v(off);
  v.on_ack(kMss, false, kBase, 1'000);
  v.on_ack(5'000, false, kBase + 60'000, 26'000);
  EXPECT_EQ(v.quick_adapts(), 0u);
  EXPECT_GT(v.cwnd(), 5'000);
}

TEST(NsccWindow, ANackTakesItsBytesOffOrTriggersQuickAdapt) {
  NsccWindow w(params());
  // First NACK at t = 1000: no period yet (it starts now, ends at 25000): cwnd −= 1000.
  w.on_nack(kMss, 0, 1'000);
  EXPECT_DOUBLE_EQ(w.cwnd(), 99'000);
  // The next after the period: 0 B delivered < 28125 and a NACK: quick adapt to the floor,
  // max(0, one packet) = 1000.
  w.on_nack(kMss, 0, 30'000);
  EXPECT_DOUBLE_EQ(w.cwnd(), 1'000);
  EXPECT_EQ(w.nacks(), 2u);
  EXPECT_EQ(w.quick_adapts(), 1u);
}

TEST(NsccWindow, ATimeoutTakesTheLostBytesOffDownToOnePacket) {
  NsccWindow w(params());
  w.on_timeout(30'000);
  EXPECT_DOUBLE_EQ(w.cwnd(), 70'000);
  w.on_timeout(1'000'000);
  EXPECT_DOUBLE_EQ(w.cwnd(), kMss);
  EXPECT_EQ(w.timeouts(), 2u);
}

TEST(NsccWindow, ALowerRttSampleBecomesTheBaseAndShrinksTheMaximumWindow) {
  NsccWindow w(params(0));  // starts at the maximum, 225000
  // An 8000 ns sample: base 8000, max window 1.5·8000·12.5 = 150000; its delay is 0.
  w.on_ack(kMss, false, 8'000, 1'000);
  EXPECT_DOUBLE_EQ(w.base_rtt_ns(), 8'000);
  EXPECT_DOUBLE_EQ(w.max_window(), 150'000);
  EXPECT_DOUBLE_EQ(w.cwnd(), 150'000);
}

TEST(NsccWindow, SendsUpToTheWindowAndAlwaysOnePacketWhenNothingIsInFlight) {
  NsccWindow w(params(4 * kMss));
  EXPECT_EQ(w.packets_allowed(), 4u);
  for (int i = 0; i < 4; ++i) w.on_send(kMss);
  EXPECT_FALSE(w.may_send(kMss));
  w.release(4 * kMss);
  EXPECT_TRUE(w.may_send(kMss));
}

}  // namespace
}  // namespace spraylab::gen
