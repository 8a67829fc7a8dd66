// workload.injection bernoulli's arrival process (trafficgen/injection.h): a packet slot holds an
// arrival with probability `load`, independently, from the host's seed; counted lazily.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "trafficgen/injection.h"

namespace spraylab::gen {
namespace {

// Arrivals in slots [0, slots) at `load` from `seed`.
uint64_t arrivals_in(uint64_t slots, double load, uint64_t seed) {
  BernoulliArrivals a(load, seed);
  a.advance_to(slots);
  return a.arrivals();
}

TEST(BernoulliArrivals, CountOverALongWindowIsWithinTheBinomialBound) {
  // n slots at p: mean np, standard deviation sqrt(np(1 − p)); five of them is a 1-in-10^6 miss
  // for a correct process, and far less than a wrong p moves the count (0.01 · n = 40 sd at 0.5).
  constexpr uint64_t kSlots = 1'000'000;
  for (const double p : {0.05, 0.25, 0.5, 0.9}) {
    for (const uint64_t seed : {1u, 2u, 3u}) {
      const double mean = p * kSlots;
      const double sd = std::sqrt(mean * (1 - p));
      const auto k = static_cast<double>(arrivals_in(kSlots, p, seed));
      EXPECT_LE(std::fabs(k - mean), 5 * sd) << "load " << p << " seed " << seed << ": " << k;
    }
  }
}

TEST(BernoulliArrivals, FullLoadIsAnArrivalInEverySlot) {
  EXPECT_EQ(arrivals_in(12345, 1.0, 7), 12345u);
  BernoulliArrivals a(1.0, 7);
  EXPECT_EQ(a.next_arrival(), 0u);
  a.advance_to(3);
  EXPECT_EQ(a.next_arrival(), 3u);
}

TEST(BernoulliArrivals, TheCountDependsOnTimeNotOnHowOftenItIsRead) {
  // One jump, slot by slot, or in uneven steps: the same arrivals (an engine polled often or
  // seldom counts the same), and a slot passed twice is not counted twice.
  BernoulliArrivals step(0.3, 11), jump(0.3, 11), uneven(0.3, 11);
  for (uint64_t s = 0; s <= 5000; ++s) step.advance_to(s);
  jump.advance_to(5000);
  for (uint64_t s : {7u, 7u, 100u, 99u, 2500u, 4999u, 5000u}) uneven.advance_to(s);
  EXPECT_EQ(step.arrivals(), jump.arrivals());
  EXPECT_EQ(uneven.arrivals(), jump.arrivals());
  EXPECT_EQ(step.next_arrival(), jump.next_arrival());
  EXPECT_GE(jump.next_arrival(), 5000u);
}

TEST(BernoulliArrivals, GapsAreGeometric) {
  // P(gap = 1) = p, P(gap = 2) = (1 − p) p: the slots are independent, not spread evenly (a
  // pacer at rate p would give gaps of 1/p only).
  constexpr double kP = 0.25;
  BernoulliArrivals a(kP, 5);
  uint64_t gaps = 0, ones = 0, twos = 0, last = a.next_arrival();
  while (gaps < 200'000) {
    a.advance_to(last + 1);
    const uint64_t next = a.next_arrival();
    ones += next - last == 1;
    twos += next - last == 2;
    ++gaps;
    last = next;
  }
  const double n = static_cast<double>(gaps);
  EXPECT_NEAR(static_cast<double>(ones) / n, kP, 5 * std::sqrt(kP * (1 - kP) / n));
  const double p2 = (1 - kP) * kP;
  EXPECT_NEAR(static_cast<double>(twos) / n, p2, 5 * std::sqrt(p2 * (1 - p2) / n));
}

TEST(BernoulliArrivals, ASeedNamesOneStream) {
  EXPECT_EQ(arrivals_in(100'000, 0.4, 9), arrivals_in(100'000, 0.4, 9));
  BernoulliArrivals a(0.4, 9), b(0.4, 10);
  a.advance_to(1000);
  b.advance_to(1000);
  EXPECT_TRUE(a.arrivals() != b.arrivals() || a.next_arrival() != b.next_arrival());
}

}  // namespace
}  // namespace spraylab::gen
