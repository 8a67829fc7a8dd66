#include "net/idle_sleep.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>

namespace spraylab::net {
namespace {

using Clock = std::chrono::steady_clock;

uint64_t ns_since(Clock::time_point t) {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t).count());
}

TEST(IdleSleep, DisabledNeverSleeps) {
  IdleSleep s(0);
  EXPECT_FALSE(s.enabled());
  for (int i = 0; i < 1000; ++i) EXPECT_FALSE(s.idle(0, UINT64_MAX));
  EXPECT_EQ(s.sleeps(), 0u);
}

TEST(IdleSleep, SpinsFirstThenSleepsAtLeastTheFirstStep) {
  IdleSleep s(1'000'000);
  for (uint32_t i = 0; i < IdleSleep::kSpinTurns; ++i) EXPECT_FALSE(s.idle(0, UINT64_MAX));
  const auto t0 = Clock::now();
  EXPECT_TRUE(s.idle(0, UINT64_MAX));
  EXPECT_GE(ns_since(t0), IdleSleep::kFirstSleepNs);
  EXPECT_EQ(s.sleeps(), 1u);
}

TEST(IdleSleep, NeverSleepsWhenWorkIsDue) {
  IdleSleep s(1'000'000);
  for (uint32_t i = 0; i < IdleSleep::kSpinTurns; ++i) s.idle(0, UINT64_MAX);
  EXPECT_FALSE(s.idle(5000, 5000));  // due now
  EXPECT_FALSE(s.idle(5000, 4000));  // overdue
  EXPECT_TRUE(s.idle(5000, 6000));   // due in 1 us: a short nap
  EXPECT_EQ(s.sleeps(), 1u);
}

TEST(IdleSleep, WorkPutsItBackToSpinning) {
  IdleSleep s(100'000);
  for (uint32_t i = 0; i < IdleSleep::kSpinTurns; ++i) s.idle(0, UINT64_MAX);
  EXPECT_TRUE(s.idle(0, UINT64_MAX));
  s.worked();
  for (uint32_t i = 0; i < IdleSleep::kSpinTurns; ++i) EXPECT_FALSE(s.idle(0, UINT64_MAX));
  EXPECT_TRUE(s.idle(0, UINT64_MAX));
  EXPECT_EQ(s.sleeps(), 2u);
}

}  // namespace
}  // namespace spraylab::net
