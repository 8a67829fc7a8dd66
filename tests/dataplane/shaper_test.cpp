#include <gtest/gtest.h>

#include "switch/dataplane/shaper.h"

namespace spraylab::dataplane {
namespace {

TEST(Shaper, SendsAtExactlyTheLinkRateOverALongRun) {
  // 10 Gb/s, 1000-byte frames: 1024 wire bytes = 819.2 ns each.
  Shaper s(10e9, 0);
  uint64_t now = 0, sent = 0;
  for (; now < 1'000'000; ++now) {
    while (s.may_send(now)) {
      s.sent(1000, now);
      ++sent;
    }
  }
  EXPECT_NEAR(static_cast<double>(sent), 1e6 / 819.2, 1.0);
}

TEST(Shaper, SlackLetsABurstLeaveTogetherWithoutRaisingTheRate) {
  Shaper s(10e9, 5000);
  int burst = 0;
  while (s.may_send(0)) {
    s.sent(1000, 0);
    ++burst;
  }
  EXPECT_EQ(burst, 7);  // starts at 0, 819, ..., 4915 ns all within 5000 ns of slack
  EXPECT_FALSE(s.may_send(0));
  EXPECT_TRUE(s.may_send(s.busy_until_ns() - 5000));
}

TEST(Shaper, IdleTimeIsNotBankedAsCredit) {
  Shaper s(10e9, 0);
  s.sent(1000, 0);
  const uint64_t later = 1'000'000;
  ASSERT_TRUE(s.may_send(later));
  s.sent(1000, later);
  EXPECT_FALSE(s.may_send(later));  // one frame, then busy again
}

TEST(Shaper, ZeroRateMeansTheDeviceRate) {
  Shaper s(0, 0);
  for (int i = 0; i < 100; ++i) {
    ASSERT_TRUE(s.may_send(0));
    s.sent(1500, 0);
  }
}

}  // namespace
}  // namespace spraylab::dataplane
