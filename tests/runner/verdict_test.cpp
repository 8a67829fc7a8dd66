// The verdict of a check against the paper's number (fabric/reproduce/verdict.h): one case for
// each of the four verdicts, on both sides of "no effect", and the edges of the rule.
#include "fabric/reproduce/verdict.h"

#include <gtest/gtest.h>

#include <limits>

namespace spraylab::fabric {
namespace {

Interval ci(double mean, double half_width, size_t n = 10) {
  Interval i;
  i.n = n;
  i.mean = mean;
  i.half_width = half_width;
  return i;
}

// The paper: a ratio of 0.8 (20 % better), ± 10 %, no effect at 1.
const VerdictRule kBetter{0.8, {0.10, true}, 1.0};

TEST(Verdict, IntervalInsideTheBandIsReproduced) {
  EXPECT_EQ(judge(kBetter, ci(0.8, 0.05)), Verdict::kReproduced);
  EXPECT_EQ(judge(kBetter, ci(0.75, 0.03)), Verdict::kReproduced);  // [0.72, 0.78] in [0.72, 0.88]
}

TEST(Verdict, OnThePapersSideButNearerNoEffectIsASmallerEffect) {
  EXPECT_EQ(judge(kBetter, ci(0.95, 0.02)), Verdict::kSmallerEffect);
}

TEST(Verdict, OnThePapersSideButFartherIsALargerEffect) {
  EXPECT_EQ(judge(kBetter, ci(0.5, 0.05)), Verdict::kLargerEffect);
}

TEST(Verdict, AnIntervalReachingNoEffectOrBeyondIsNotReproduced) {
  EXPECT_EQ(judge(kBetter, ci(0.97, 0.05)), Verdict::kNotReproduced);  // reaches 1.02
  EXPECT_EQ(judge(kBetter, ci(1.2, 0.05)), Verdict::kNotReproduced);   // the other direction
}

TEST(Verdict, AnIntervalWiderThanTheBandIsNeverReproduced) {
  // Mean on the paper's value, but the interval sticks out of the band: more seeds could tell.
  EXPECT_EQ(judge(kBetter, ci(0.8, 0.15)), Verdict::kLargerEffect);
  EXPECT_EQ(judge(kBetter, ci(0.8, 0.5)), Verdict::kNotReproduced);  // reaches past 1
}

TEST(Verdict, AnEffectAboveNoEffectMirrorsIt) {
  // The paper: a slope of 0.5 ± 0.1 (absolute), no effect at 0.
  const VerdictRule grows{0.5, {0.1, false}, 0.0};
  EXPECT_EQ(judge(grows, ci(0.45, 0.04)), Verdict::kReproduced);
  EXPECT_EQ(judge(grows, ci(0.2, 0.05)), Verdict::kSmallerEffect);
  EXPECT_EQ(judge(grows, ci(0.9, 0.05)), Verdict::kLargerEffect);
  EXPECT_EQ(judge(grows, ci(-0.2, 0.05)), Verdict::kNotReproduced);
}

TEST(Verdict, WithoutNoEffectOnlyReproducedOrNot) {
  const VerdictRule value{17.06, {0.05, true}, std::nullopt};
  EXPECT_EQ(judge(value, ci(17.0, 0.2)), Verdict::kReproduced);
  EXPECT_EQ(judge(value, ci(12.0, 0.2)), Verdict::kNotReproduced);
}

TEST(Verdict, OneSeedHasNoIntervalAndIsNotReproduced) {
  EXPECT_EQ(judge(kBetter, ci(0.8, std::numeric_limits<double>::infinity(), 1)),
            Verdict::kNotReproduced);
  EXPECT_EQ(judge(kBetter, ci(0.8, 0, 1)), Verdict::kNotReproduced);
}

TEST(Verdict, NamesAreTheFourWordsAndReadBack) {
  for (Verdict v : {Verdict::kReproduced, Verdict::kSmallerEffect, Verdict::kLargerEffect,
                    Verdict::kNotReproduced}) {
    EXPECT_EQ(find_verdict(verdict_name(v)), v);
  }
  EXPECT_EQ(verdict_name(Verdict::kSmallerEffect), "same direction, smaller effect");
  EXPECT_FALSE(find_verdict("holds"));
}

// "over 11 %": at least 11 points of gain, ± 1 point, no effect at 0.
const VerdictRule kOver11{11, {1, false}, 0.0, Bound::kAtLeast};

TEST(Bound, AtLeastIsReproducedByAnyIntervalAboveTheBandsLowEdge) {
  EXPECT_EQ(judge(kOver11, ci(40, 5)), Verdict::kReproduced);      // far beyond: still the claim
  EXPECT_EQ(judge(kOver11, ci(10.5, 0.4)), Verdict::kReproduced);  // [10.1, 10.9] within 1 of 11
  EXPECT_EQ(tolerance_band(kOver11).first, 10);
}

TEST(Bound, AtLeastShortOfTheBoundButAboveNoEffectIsASmallerEffectNeverALargerOne) {
  EXPECT_EQ(judge(kOver11, ci(5, 1)), Verdict::kSmallerEffect);
  EXPECT_EQ(judge(kOver11, ci(11, 3)), Verdict::kSmallerEffect);  // [8, 14]: not shown yet
  EXPECT_EQ(judge(kOver11, ci(1, 2)), Verdict::kNotReproduced);   // reaches 0
  EXPECT_EQ(judge(kOver11, ci(-5, 1)), Verdict::kNotReproduced);
}

TEST(Bound, AtMostMirrorsIt) {
  // "under 1 %" of CCT increase, ± 0.5 point, no effect at 0: the bound is on no effect's
  // side, so there is no direction short of it: reproduced or not.
  const VerdictRule under1{1, {0.5, false}, 0.0, Bound::kAtMost};
  EXPECT_EQ(judge(under1, ci(0.2, 0.3)), Verdict::kReproduced);
  EXPECT_EQ(judge(under1, ci(-3, 0.3)), Verdict::kReproduced);
  EXPECT_EQ(judge(under1, ci(1.4, 0.3)), Verdict::kNotReproduced);  // reaches 1.7 > 1.5
  EXPECT_EQ(judge(under1, ci(5, 0.3)), Verdict::kNotReproduced);
  // "below 0.95 of line rate", no effect (full utilisation) at 1: short of it is smaller.
  const VerdictRule below95{0.95, {0.01, false}, 1.0, Bound::kAtMost};
  EXPECT_EQ(judge(below95, ci(0.90, 0.01)), Verdict::kReproduced);
  EXPECT_EQ(judge(below95, ci(0.97, 0.01)), Verdict::kSmallerEffect);
  EXPECT_EQ(judge(below95, ci(0.99, 0.02)), Verdict::kNotReproduced);
}

TEST(Bound, AtNoEffectItselfNeedsTheWholeIntervalPastIt) {
  // "the gap is larger with less skew": the quotient at least 1 = no effect, no tolerance. No
  // change at all (every seed exactly 1) is not the claim.
  const VerdictRule larger{1, {0, false}, 1.0, Bound::kAtLeast};
  EXPECT_EQ(judge(larger, ci(1, 0)), Verdict::kNotReproduced);
  EXPECT_EQ(judge(larger, ci(1.2, 0.2)), Verdict::kNotReproduced);  // [1, 1.4] touches 1
  EXPECT_EQ(judge(larger, ci(1.2, 0.1)), Verdict::kReproduced);
  const VerdictRule decreases{1, {0, false}, 1.0, Bound::kAtMost};
  EXPECT_EQ(judge(decreases, ci(1, 0)), Verdict::kNotReproduced);
  EXPECT_EQ(judge(decreases, ci(0.5, 0.1)), Verdict::kReproduced);
  // A bound away from no effect keeps its edge inclusive: exactly 1.01 is "at most 1.01".
  const VerdictRule under1pct{1.01, {0, false}, 1.0, Bound::kAtMost};
  EXPECT_EQ(judge(under1pct, ci(1.0, 0.01)), Verdict::kReproduced);  // [0.99, 1.01]
}

TEST(Tolerance, RelativeOrAbsolute) {
  EXPECT_TRUE(parse_tolerance("10%")->relative);
  EXPECT_DOUBLE_EQ(parse_tolerance("10%")->value, 0.10);
  EXPECT_FALSE(parse_tolerance("0.05")->relative);
  EXPECT_DOUBLE_EQ(parse_tolerance("0.05")->value, 0.05);
  EXPECT_FALSE(parse_tolerance("-3%"));
  EXPECT_FALSE(parse_tolerance("ten"));
  EXPECT_FALSE(parse_tolerance(""));
}

}  // namespace
}  // namespace spraylab::fabric
