// DCTCP's window rules (trafficgen/dctcp_window.h), stepped by hand.
#include "trafficgen/dctcp_window.h"

#include <gtest/gtest.h>

namespace spraylab::gen {
namespace {

constexpr uint32_t kMss = 1000;

DctcpParams params(uint64_t initial_window) {
  DctcpParams p;
  p.mss = kMss;
  p.initial_window = initial_window;
  p.min_rto_ns = 1'000'000;
  return p;
}

// Sends `packets` full packets and acknowledges them one ACK each, `marked` of them with an echo.
void round_trip(DctcpWindow& w, uint32_t packets, uint32_t marked) {
  for (uint32_t i = 0; i < packets; ++i) w.on_send(kMss);
  for (uint32_t i = 0; i < packets; ++i) {
    w.release(kMss);
    w.on_ack(kMss, i < marked);
  }
}

TEST(DctcpWindow, SendsUpToTheWindowAndAlwaysOnePacketWhenNothingIsInFlight) {
  DctcpWindow w(params(4 * kMss));
  EXPECT_EQ(w.packets_allowed(), 4u);
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(w.may_send(kMss));
    w.on_send(kMss);
  }
  EXPECT_FALSE(w.may_send(kMss));
  EXPECT_EQ(w.packets_allowed(), 0u);
  DctcpWindow tiny(params(1));  // below one packet: still one packet
  EXPECT_EQ(tiny.cwnd(), kMss);
  EXPECT_TRUE(tiny.may_send(kMss));
  EXPECT_EQ(tiny.packets_allowed(), 1u);
}

TEST(DctcpWindow, AdditiveIncreaseIsOnePacketPerWindowWithoutMarks) {
  DctcpWindow w(params(10 * kMss));
  round_trip(w, 10, 0);
  // Ten ACKs of mss * mss / cwnd each: close to one packet more.
  EXPECT_NEAR(w.cwnd(), 11 * kMss, 50);
  EXPECT_EQ(w.cuts(), 0u);
}

TEST(DctcpWindow, AlphaMovesByOneSixteenthOfTheMarkedFractionOncePerWindow) {
  DctcpWindow w(params(10 * kMss));
  EXPECT_DOUBLE_EQ(w.alpha(), 1.0);  // RFC 8257's initial value
  round_trip(w, 10, 0);              // F = 0 over the first window
  EXPECT_EQ(w.alpha_updates(), 1u);
  EXPECT_DOUBLE_EQ(w.alpha(), 15.0 / 16);
  // The next window is one cwnd (10.95 packets) of data: 11 packets, 5 of them marked. α updates
  // once, when the window's data is acknowledged, with F = 5/11.
  round_trip(w, 10, 5);
  EXPECT_EQ(w.alpha_updates(), 1u);
  round_trip(w, 1, 0);
  EXPECT_EQ(w.alpha_updates(), 2u);
  EXPECT_NEAR(w.alpha(), (1 - 1.0 / 16) * (15.0 / 16) + (5.0 / 11) / 16, 1e-12);
}

TEST(DctcpWindow, CutsByHalfAlphaAtMostOncePerWindow) {
  DctcpWindow w(params(20 * kMss));
  for (int i = 0; i < 20; ++i) w.on_send(kMss);
  const double alpha = w.alpha();
  w.release(kMss);
  EXPECT_TRUE(w.on_ack(kMss, true));
  EXPECT_DOUBLE_EQ(w.cwnd(), 20 * kMss * (1 - alpha / 2));
  const double after_cut = w.cwnd();
  // Every other ACK of the same window echoes too: no second cut, and no increase either.
  for (int i = 1; i < 20; ++i) {
    w.release(kMss);
    EXPECT_FALSE(w.on_ack(kMss, true));
  }
  EXPECT_EQ(w.cuts(), 1u);
  EXPECT_DOUBLE_EQ(w.cwnd(), after_cut);
  // The window's data is acknowledged: the next echo cuts again.
  w.on_send(kMss);
  w.release(kMss);
  EXPECT_TRUE(w.on_ack(kMss, true));
  EXPECT_EQ(w.cuts(), 2u);
}

TEST(DctcpWindow, ACutNeverGoesBelowTwoPackets) {
  DctcpWindow w(params(2 * kMss));
  for (int round = 0; round < 10; ++round) round_trip(w, 2, 2);
  EXPECT_GE(w.cwnd(), 2 * kMss);
  EXPECT_GE(w.min_cwnd(), 2 * kMss);
}

TEST(DctcpWindow, TimeoutRestartsFromOnePacketAndSlowStartsToHalfTheWindow) {
  DctcpWindow w(params(16 * kMss));
  for (int i = 0; i < 16; ++i) w.on_send(kMss);
  w.release(16 * kMss);  // the engine gives up what the timed-out message had in flight
  w.on_timeout();
  EXPECT_EQ(w.cwnd(), kMss);
  EXPECT_EQ(w.flight(), 0u);
  EXPECT_EQ(w.timeouts(), 1u);
  round_trip(w, 1, 0);
  EXPECT_EQ(w.cwnd(), 2 * kMss);  // slow start: + what was acknowledged
  round_trip(w, 2, 0);
  round_trip(w, 4, 0);
  EXPECT_EQ(w.cwnd(), 8 * kMss);  // ssthresh = 16 / 2 packets
  round_trip(w, 8, 0);
  EXPECT_LT(w.cwnd(), 9.5 * kMss);  // then additive increase
}

TEST(DctcpWindow, RtoIsRfc6298AboveTheMinimum) {
  DctcpWindow w(params(kMss));
  EXPECT_EQ(w.rto_ns(), 1'000'000u);  // no sample yet
  w.on_rtt(10'000);
  EXPECT_EQ(w.rto_ns(), 1'000'000u);  // 10 us + 4 x 5 us is below the floor
  DctcpParams p = params(kMss);
  p.min_rto_ns = 1000;
  DctcpWindow v(p);
  v.on_rtt(10'000);
  EXPECT_EQ(v.rto_ns(), 30'000u);  // SRTT + 4 RTTVAR = 10 + 4 x 5 us
  v.on_rtt(10'000);                // RTTVAR = 3/4 x 5 us
  EXPECT_EQ(v.rto_ns(), 25'000u);
}

}  // namespace
}  // namespace spraylab::gen
