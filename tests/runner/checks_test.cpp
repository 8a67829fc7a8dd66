// Every check kind of a reproduction (docs/reproduce.md, checks[]) on data that must pass and on
// data that must fail, with the failing point placed first, in the middle and last in turn: a
// verdict that reads only some of the points (the last one, say) passes data it must fail. The
// data goes through gather_figure as a run's summaries would, so a fit that leaves out a point is
// caught too. The expected slopes are derived by hand below, not taken from the code.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "conf/config_error.h"
#include "fabric/reproduce/figures.h"
#include "fabric/reproduce/reproduction.h"

namespace spraylab::fabric {
namespace {

using ::testing::HasSubstr;

// A new kind needs its passing and failing cases here (and EveryKindTheReaderKnowsIsTestedHere
// finds it from the reader's own list).
static_assert(static_cast<int>(CheckKind::kRatioAtMost) == 5, "a check kind without cases here");

// Two series, a and b (algorithm names are not looked up here), over message sizes 1, 2 and 16
// KiB; one check of every kind, in the order of the CheckKind enum, then two on a bar chart.
const std::string kExperiment = R"(name: checks
topology: {generator: leaf-spine, leaves: 2, spines: 2, hosts_per_leaf: 2}
workload: {type: permutation, message_size: 64KB}
reproduce:
  title: checks
  runs: [{name: sw, algorithms: [a, b]}]
  figures:
    - {name: f, x: workload.message_size, y: queue.max_packets, fit: loglog}
    - {name: bars, x: variant, y: queue.max_packets}
  checks:
    - {figure: f, series: a, slope_below: 0.15}
    - {figure: f, series: a, slope_between: [0.35, 0.65]}
    - {figure: f, series: a, max_at_most: 10}
    - {figure: f, series: a, min_at_least: 5}
    - {figure: f, series: a, below_series: b}
    - {figure: f, series: a, ratio_at_most: {series: b, ratio: 1.5}}
    - {figure: bars, series: a, below_series: b}
    - {figure: bars, series: a, ratio_at_most: {series: b, ratio: 1.5}}
)";
enum CheckIndex : size_t {
  kSlopeBelow,
  kSlopeBetween,
  kMaxAtMost,
  kMinAtLeast,
  kBelowSeries,
  kRatioAtMost,
  kBarsBelow,
  kBarsRatio
};

const std::vector<std::string> kSizes = {"1KiB", "2KiB", "16KiB"};
const char* const kPosition[] = {"first", "middle", "last"};
using Ys = std::vector<double>;

class Checks : public ::testing::Test {
 protected:
  Checks() : r_(read_reproduction(kExperiment, "checks.yaml", "checks")) {}

  VariantResult variant(const std::string& series, const std::string& size, double y) {
    VariantResult v;
    v.run = &r_.runs[0];
    v.variant.algorithm = series;
    v.variant.name = series + "-message_size=" + size;
    v.variant.name_parts = {{"", series}, {"workload.message_size", "message_size=" + size}};
    v.variant.settings = {{"workload.message_size", size, "--sweep"}};
    v.summary = {{"queue", {{"max_packets", y}}}};
    return v;
  }

  // The line figure of series a and b, one y per size.
  FigureData line(const Ys& a, const Ys& b) {
    std::vector<VariantResult> results;
    for (size_t i = 0; i < a.size(); ++i) results.push_back(variant("a", kSizes[i], a[i]));
    for (size_t i = 0; i < b.size(); ++i) results.push_back(variant("b", kSizes[i], b[i]));
    return gather_figure(r_.figures[0], results);
  }

  CheckOutcome check(size_t index, const Ys& a, const Ys& b = {1e6, 1e6, 1e6}) {
    figures_ = {line(a, b)};
    return evaluate_check(r_.checks[index], figures_);
  }

  double slope_of_a(const Ys& a) { return *line(a, {}).series.at(0).slope; }

  // The bar chart: one bar per series.
  CheckOutcome bars(size_t index, double a, double b) {
    std::vector<VariantResult> results = {variant("a", "1KiB", a), variant("b", "1KiB", b)};
    for (VariantResult& v : results) v.variant.name_parts.resize(1);  // no sweep in the name
    figures_ = {gather_figure(r_.figures[1], results)};
    return evaluate_check(r_.checks[index], figures_);
  }

  Reproduction r_;
  std::vector<FigureData> figures_;  // what the last check read
};

// The fit's x are 1, 2 and 16 KiB: lx = log2(x / 1 KiB) = 0, 1, 4, mean 5/3, deviations −5/3,
// −2/3 and 7/3, whose squares sum to 26/3. A least-squares slope is Σ dev·ly / Σ dev², so
//   slope = (−5·ly0 − 2·ly1 + 7·ly2) / 26,  ly = log2 y
// (any base: the ratio of logs does not depend on it). Every point has a weight: changing any one
// of them moves the slope.
double slope(double ly0, double ly1, double ly2) { return (-5 * ly0 - 2 * ly1 + 7 * ly2) / 26; }

TEST_F(Checks, SlopeBelowFailsWhenAnyOnePointTiltsTheFit) {
  EXPECT_NEAR(slope_of_a({8, 8, 8}), 0, 1e-12);
  EXPECT_TRUE(check(kSlopeBelow, {8, 8, 8}).passed);  // flat: slope 0 < 0.15
  // ly = 3 but one point: 0 first (15/26), 0 in the middle (6/26), 6 last (21/26); all ≥ 0.15.
  const Ys fail[] = {{1, 8, 8}, {8, 1, 8}, {8, 8, 64}};
  const double expected[] = {slope(0, 3, 3), slope(3, 0, 3), slope(3, 3, 6)};
  for (int p = 0; p < 3; ++p) {
    EXPECT_NEAR(slope_of_a(fail[p]), expected[p], 1e-12) << kPosition[p];
    const CheckOutcome out = check(kSlopeBelow, fail[p]);
    EXPECT_FALSE(out.passed) << kPosition[p] << ": " << out.detail;
  }
}

TEST_F(Checks, SlopeBetweenFailsBelowAndAboveWhicheverPointMovesIt) {
  // y = x^0.5: ly = 0, 1/2, 2, slope (−1 + 14) / 26 = 1/2, inside [0.35, 0.65].
  EXPECT_NEAR(slope_of_a({1, M_SQRT2, 4}), 0.5, 1e-12);
  EXPECT_TRUE(check(kSlopeBetween, {1, M_SQRT2, 4}).passed);
  // One point moved at a time, once each way: 8/26 and 6/26 are below 0.35, 18/26 and 20/26 above
  // 0.65.
  struct Case {
    Ys y;
    double slope;
  };
  const Case below[] = {{{2, M_SQRT2, 4}, slope(1, 0.5, 2)},     // 8/26
                        {{1, 8, 4}, slope(0, 3, 2)},             // 8/26
                        {{1, M_SQRT2, 2}, slope(0, 0.5, 1)}};    // 6/26
  const Case above[] = {{{0.5, M_SQRT2, 4}, slope(-1, 0.5, 2)},  // 18/26
                        {{1, 0.25, 4}, slope(0, -2, 2)},         // 18/26
                        {{1, M_SQRT2, 8}, slope(0, 0.5, 3)}};    // 20/26
  for (int p = 0; p < 3; ++p) {
    for (const Case& c : {below[p], above[p]}) {
      EXPECT_NEAR(slope_of_a(c.y), c.slope, 1e-12) << kPosition[p];
      const CheckOutcome out = check(kSlopeBetween, c.y);
      EXPECT_FALSE(out.passed) << kPosition[p] << ": " << out.detail;
    }
  }
}

TEST_F(Checks, MaxAtMostFailsOnOneHighPointAnywhere) {
  EXPECT_TRUE(check(kMaxAtMost, {10, 10, 10}).passed);  // at most: the bound itself passes
  for (int p = 0; p < 3; ++p) {
    Ys y = {1, 1, 1};
    y[p] = 11;
    const CheckOutcome out = check(kMaxAtMost, y);
    EXPECT_FALSE(out.passed) << kPosition[p];
    EXPECT_THAT(out.detail, HasSubstr("max 11 at " + kSizes[p])) << kPosition[p];
  }
}

TEST_F(Checks, MinAtLeastFailsOnOneLowPointAnywhere) {
  EXPECT_TRUE(check(kMinAtLeast, {5, 5, 5}).passed);  // at least: the bound itself passes
  for (int p = 0; p < 3; ++p) {
    Ys y = {9, 9, 9};
    y[p] = 4;
    const CheckOutcome out = check(kMinAtLeast, y);
    EXPECT_FALSE(out.passed) << kPosition[p];
    EXPECT_THAT(out.detail, HasSubstr("min 4 at " + kSizes[p])) << kPosition[p];
  }
}

TEST_F(Checks, BelowSeriesFailsWhenAnyOnePointIsNotBelow) {
  const Ys b = {2, 3, 4};
  EXPECT_TRUE(check(kBelowSeries, {1, 2, 3}, b).passed);
  for (int p = 0; p < 3; ++p) {
    for (double above : {0.0, 0.5}) {  // equal is not below; above is not either
      Ys a = {1, 2, 3};
      a[p] = b[p] + above;
      const CheckOutcome out = check(kBelowSeries, a, b);
      EXPECT_FALSE(out.passed) << kPosition[p] << " +" << above;
      EXPECT_THAT(out.detail, HasSubstr(above == 0 ? ": 0 over 3 x" : ": 0.5 over 3 x"));
    }
  }
}

TEST_F(Checks, RatioAtMostFailsWhenAnyOneRatioIsAboveTheBound) {
  const Ys b = {2, 4, 8};
  EXPECT_TRUE(check(kRatioAtMost, {3, 6, 12}, b).passed);  // every ratio exactly 1.5
  for (int p = 0; p < 3; ++p) {
    Ys a = {3, 6, 12};
    a[p] = 2 * b[p];
    const CheckOutcome out = check(kRatioAtMost, a, b);
    EXPECT_FALSE(out.passed) << kPosition[p];
    EXPECT_THAT(out.detail, HasSubstr("largest ratio 2.0000 over 3 x")) << kPosition[p];
  }
}

TEST_F(Checks, RatioAtMostOverAZeroIsOneForZeroAndInfiniteOtherwise) {
  for (int p = 0; p < 3; ++p) {
    Ys a = {3, 6, 12}, b = {2, 4, 8};
    a[p] = b[p] = 0;  // 0 / 0 counts as 1
    EXPECT_TRUE(check(kRatioAtMost, a, b).passed) << kPosition[p];
    a[p] = 1;  // 1 / 0: above any bound
    EXPECT_FALSE(check(kRatioAtMost, a, b).passed) << kPosition[p];
  }
}

TEST_F(Checks, SeriesComparisonsReadOnlyTheXBothSeriesHave) {
  // b has the first two sizes only: a's last point, far above, is not compared.
  EXPECT_TRUE(check(kBelowSeries, {1, 2, 100}, {2, 3}).passed);
  EXPECT_FALSE(check(kBelowSeries, {1, 5, 100}, {2, 3}).passed);
  EXPECT_THAT(check(kBelowSeries, {1, 2, 3}, {}).detail, HasSubstr("no series 'b'"));
}

// The kinds read_reproduction accepts, from its own message for a check with none; each must have
// a check in kExperiment (and its cases above).
TEST_F(Checks, EveryKindTheReaderKnowsIsTestedHere) {
  std::string message;
  try {
    read_reproduction(kExperiment + "    - {figure: f, series: a}\n", "checks.yaml", "checks");
    ADD_FAILURE() << "a check without a kind was read";
  } catch (const conf::ConfigError& e) {
    message = e.what();
  }
  const std::string lead = "exactly one of ";
  ASSERT_NE(message.find(lead), std::string::npos) << message;
  std::string list = message.substr(message.find(lead) + lead.size()) + ",";
  std::vector<std::string> kinds;
  for (size_t at = 0, comma; (comma = list.find(',', at)) != std::string::npos; at = comma + 2)
    kinds.push_back(list.substr(at, comma - at));
  EXPECT_EQ(kinds.size(), 6u) << message;
  for (const std::string& kind : kinds)
    EXPECT_NE(kExperiment.find(", " + kind + ":"), std::string::npos) << kind << " is not tested";
}

TEST_F(Checks, BarChartComparisonsPassAndFailOnTheBars) {
  EXPECT_TRUE(bars(kBarsBelow, 1, 2).passed);
  EXPECT_FALSE(bars(kBarsBelow, 2, 2).passed);
  EXPECT_FALSE(bars(kBarsBelow, 3, 2).passed);
  EXPECT_TRUE(bars(kBarsRatio, 3, 2).passed);  // 1.5
  EXPECT_FALSE(bars(kBarsRatio, 3.1, 2).passed);
}

}  // namespace
}  // namespace spraylab::fabric
