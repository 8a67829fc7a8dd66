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

TEST(IdleSleep, NeverSleepsPastDueWork) {
  IdleSleep s(1'000'000);
  for (uint32_t i = 0; i < IdleSleep::kSpinTurns; ++i) s.idle(0, UINT64_MAX);
  EXPECT_TRUE(s.idle(5000, 6000));  // due in 1 us: a 1 us nap
  EXPECT_EQ(s.last_sleep_ns(), 1000u);
  EXPECT_EQ(s.sleeps(), 1u);
}

// Due work that a turn did not do (a device that refused a burst): after the spin, the shortest
// sleep instead of spinning on, which a real-time poller must not do (net/realtime.h).
TEST(IdleSleep, BlockedDueWorkSpinsThenSleepsTheShortestStep) {
  IdleSleep s(1'000'000);
  for (uint32_t i = 0; i < IdleSleep::kSpinTurns; ++i) EXPECT_FALSE(s.idle(5000, 5000));
  EXPECT_TRUE(s.idle(5000, 5000));  // due now
  EXPECT_EQ(s.last_sleep_ns(), IdleSleep::kFirstSleepNs);
  EXPECT_TRUE(s.idle(5000, 4000));  // overdue: still the shortest, no backoff
  EXPECT_EQ(s.last_sleep_ns(), IdleSleep::kFirstSleepNs);
  EXPECT_EQ(s.sleeps(), 2u);
}

// After kDeepAfterNs without work the cap is deep_ns; work, or the wake signal (SIGUSR1),
// brings back the max_ns cap from the first step up. Caps of 100 and 300 us keep it short.
TEST(IdleSleep, DeepIdleAfterALongSpellAndWokenBySignal) {
  constexpr uint64_t kMax = 100'000, kDeep = 300'000;
  install_idle_wake_signal();
  IdleSleep s(kMax, kDeep);
  const uint64_t t = 1'000'000'000;  // the spell starts here
  for (uint32_t i = 0; i < IdleSleep::kSpinTurns; ++i) s.idle(t, UINT64_MAX);
  for (int i = 0; i < 8; ++i) s.idle(t, UINT64_MAX);  // the backoff reaches the cap
  EXPECT_EQ(s.last_sleep_ns(), kMax);
  s.idle(t + IdleSleep::kDeepAfterNs - 1, UINT64_MAX);  // not 2 s yet
  EXPECT_EQ(s.last_sleep_ns(), kMax);
  // 2 s: the cap grows, and the backoff doubles up to it.
  for (const uint64_t want : {kMax, 2 * kMax, kDeep, kDeep}) {
    s.idle(t + IdleSleep::kDeepAfterNs, UINT64_MAX);
    EXPECT_EQ(s.last_sleep_ns(), want);
  }
  s.idle(t + IdleSleep::kDeepAfterNs, t + IdleSleep::kDeepAfterNs + 150'000);  // known work
  EXPECT_EQ(s.last_sleep_ns(), 150'000u);                                      // bounds it
  raise(SIGUSR1);  // woken for a run: a fresh spell from the first step, at the kMax cap
  s.idle(t + IdleSleep::kDeepAfterNs + 1, UINT64_MAX);
  EXPECT_EQ(s.last_sleep_ns(), IdleSleep::kFirstSleepNs);
  for (int i = 0; i < 8; ++i) s.idle(t + IdleSleep::kDeepAfterNs + 1, UINT64_MAX);
  EXPECT_EQ(s.last_sleep_ns(), kMax);
  s.worked();  // work too
  for (uint32_t i = 0; i < IdleSleep::kSpinTurns; ++i) EXPECT_FALSE(s.idle(t, UINT64_MAX));
  EXPECT_TRUE(s.idle(t, UINT64_MAX));
  EXPECT_EQ(s.last_sleep_ns(), IdleSleep::kFirstSleepNs);
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
