// The mean and 95 % confidence interval over seeds (fabric/results/confidence.h) against
// published t tables and intervals worked by hand.
#include "fabric/results/confidence.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace spraylab::fabric {
namespace {

TEST(TQuantile, MatchesThePublishedTwoSidedNinetyFivePercentTable) {
  // t(0.975, df) as every statistics table prints it (three decimals).
  const std::vector<std::pair<double, double>> table = {
      {1, 12.706}, {2, 4.303},  {3, 3.182},  {4, 2.776},  {5, 2.571},   {9, 2.262},
      {10, 2.228}, {19, 2.093}, {29, 2.045}, {30, 2.042}, {120, 1.980}, {1e6, 1.960}};
  for (const auto& [df, t] : table) EXPECT_NEAR(t_quantile(0.975, df), t, 5e-4) << "df " << df;
}

TEST(TQuantile, OtherLevelsAndTheLowerTail) {
  EXPECT_NEAR(t_quantile(0.95, 9), 1.833, 5e-4);
  EXPECT_NEAR(t_quantile(0.995, 9), 3.250, 5e-4);
  EXPECT_NEAR(t_quantile(0.025, 9), -2.262, 5e-4);
  EXPECT_NEAR(t_quantile(0.5, 4), 0, 1e-9);
  EXPECT_THROW(t_quantile(1, 3), std::invalid_argument);
  EXPECT_THROW(t_quantile(0.9, 0), std::invalid_argument);
}

TEST(MeanInterval, TenValuesByHand) {
  // 1..10: mean 5.5, s = sqrt(82.5 / 9) = 3.02765, half width 2.262 * 3.02765 / sqrt(10) = 2.1658.
  const std::vector<double> v = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  const Interval i = mean_interval(v);
  EXPECT_EQ(i.n, 10u);
  EXPECT_DOUBLE_EQ(i.mean, 5.5);
  EXPECT_NEAR(i.stddev, 3.02765, 1e-5);
  EXPECT_NEAR(i.half_width, 2.1658, 1e-3);
  EXPECT_NEAR(i.low(), 3.334, 1e-3);
  EXPECT_NEAR(i.high(), 7.666, 1e-3);
}

TEST(MeanInterval, ThreeValuesUseTwoDegreesOfFreedom) {
  // 10, 12, 14: s = 2, half width 4.303 * 2 / sqrt(3) = 4.9687.
  const std::vector<double> v = {10, 12, 14};
  EXPECT_NEAR(mean_interval(v).half_width, 4.9687, 1e-3);
}

TEST(MeanInterval, OneValueHasNoIntervalAndEqualValuesAZeroOne) {
  const std::vector<double> one = {3};
  EXPECT_TRUE(std::isinf(mean_interval(one).half_width));
  EXPECT_DOUBLE_EQ(mean_interval(one).mean, 3);
  const std::vector<double> same = {2, 2, 2, 2};
  EXPECT_DOUBLE_EQ(mean_interval(same).half_width, 0);
  EXPECT_TRUE(std::isnan(mean_interval(std::vector<double>{}).mean));
}

}  // namespace
}  // namespace spraylab::fabric
