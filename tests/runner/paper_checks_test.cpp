// Checks against the paper's numbers (fabric/reproduce/reproduction.h, checks.h): what each
// measure computes per seed, the file's errors, seeds.csv read back, and --redraw's keeping of
// the first verdict (keep_stored_verdicts).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "conf/config_error.h"
#include "fabric/reproduce/figures.h"
#include "fabric/reproduce/reproduction.h"

namespace spraylab::fabric {
namespace {

using ::testing::HasSubstr;

const std::string kBase = R"(name: p
topology: {generator: leaf-spine, leaves: 2, spines: 2, hosts_per_leaf: 2}
workload: {type: permutation, message_size: 64KB}
reproduce:
  title: paper checks
  runs:
    - {name: sw, algorithms: [rps, ofan], sweep: {workload.message_size: [1KiB, 16KiB]}}
  figures:
    - {name: q, x: workload.message_size, y: queue.max_packets, fit: loglog}
    - {name: bars, x: variant, y: queue.max_packets}
  differences:
    - {setting: links.delay, paper: 500 ns, here: 50 ns, why: a test}
  checks:
)";

Reproduction with_checks(const std::string& checks) {
  return read_reproduction(kBase + checks, "p.yaml", "p");
}

// The loader's words for a file with `checks`, or "accepted".
std::string error(const std::string& checks) {
  try {
    with_checks(checks);
  } catch (const conf::ConfigError& e) {
    return e.what();
  }
  return "accepted";
}

// Per seed s = 1..3: rps at 1KiB is 10 + s, at 16KiB 160 + 16 s (slope 1 for every seed);
// ofan is half of rps at 1KiB and a quarter at 16KiB, seed by seed.
std::vector<SeedRow> rows() {
  std::vector<SeedRow> out;
  for (uint64_t s = 1; s <= 3; ++s) {
    const double small = 10.0 + s;
    const double large = 16 * small;
    out.push_back({"q", "rps", 1024, "1KiB", s, small});
    out.push_back({"q", "rps", 16384, "16KiB", s, large});
    out.push_back({"q", "ofan", 1024, "1KiB", s, small / 2});
    out.push_back({"q", "ofan", 16384, "16KiB", s, large / 4});
    out.push_back({"bars", "rps", 0, "rps", s, 2.0 * s});
  }
  return out;
}

std::vector<FigureData> figures(const Reproduction& r) {
  std::vector<FigureData> out;
  const std::vector<SeedRow> all = rows();
  for (const Figure& f : r.figures) out.push_back(figure_from_rows(f, all));
  return out;
}

TEST(PaperChecks, EachMeasureIsTakenPerSeedThenAveraged) {
  const Reproduction r = with_checks(R"(
    - {figure: q, series: rps, measure: value, at: 16KiB, paper: 192, where: s1, tolerance: 10%}
    - {figure: q, series: ofan, measure: ratio, to: rps, at: 16KiB, paper: 0.25, where: s2, tolerance: 0.01}
    - {figure: q, series: rps, measure: difference, to: ofan, at: 1024, paper: 6, where: s3, tolerance: 1}
    - {figure: q, series: rps, measure: slope, paper: 1, where: s4, tolerance: 0.05}
    - {figure: bars, series: rps, measure: value, paper: 4, where: s5, tolerance: 50%}
)");
  const std::vector<FigureData> data = figures(r);
  const auto measured = [&](size_t i) { return *evaluate_check(r.checks[i], data).measured; };
  EXPECT_DOUBLE_EQ(measured(0).mean, 192);  // 16 · 12
  EXPECT_EQ(measured(0).n, 3u);
  EXPECT_DOUBLE_EQ(measured(1).mean, 0.25);  // the same ratio for every seed: no spread
  EXPECT_DOUBLE_EQ(measured(1).half_width, 0);
  EXPECT_EQ(*evaluate_check(r.checks[1], data).verdict, Verdict::kReproduced);
  EXPECT_DOUBLE_EQ(measured(2).mean, 6);  // 12 − 6, the x given as a number
  EXPECT_NEAR(measured(3).mean, 1, 1e-12);
  EXPECT_NEAR(measured(3).half_width, 0, 1e-9);
  EXPECT_DOUBLE_EQ(measured(4).mean, 4);  // the bar: 2, 4, 6
  EXPECT_NEAR(measured(4).half_width, 2 * 4.303 / std::sqrt(3.0), 1e-3);
  // [−0.97, 8.97] is wider than the band [2, 6], and a value has no no_effect to tell a
  // direction by.
  EXPECT_EQ(*evaluate_check(r.checks[4], data).verdict, Verdict::kNotReproduced);
}

TEST(PaperChecks, FromComparesOneMeasureAtTwoXSeedBySeed) {
  // Ofan §6.6's kind of claim ("a larger gap with less skew"): ofan / rps is 0.25 at 16KiB and 0.5
  // at 1KiB for every seed, so 0.5; rps's own value grows 16-fold, seed by seed.
  const Reproduction r = with_checks(R"(
    - {figure: q, series: ofan, measure: ratio, to: rps, at: 16KiB, from: 1KiB, paper: 0.5, where: s, tolerance: 0.01}
    - {figure: q, series: rps, measure: value, at: 16KiB, from: 1KiB, paper: 1, where: s, tolerance: 0, bound: at_least}
    - {figure: q, series: rps, measure: value, at: 16KiB, from: 4KiB, paper: 1, where: s, tolerance: 0, id: missing}
)");
  EXPECT_EQ(r.checks[0].id, "q/ofan/ratio@1KiB..16KiB/rps");
  EXPECT_THAT(r.checks[0].text, HasSubstr("at 16KiB / at 1KiB"));
  ASSERT_TRUE(r.checks[1].rule.no_effect);
  EXPECT_EQ(*r.checks[1].rule.no_effect, 1);  // a quotient: 1 is no change
  const std::vector<FigureData> data = figures(r);
  const CheckOutcome ratio = evaluate_check(r.checks[0], data);
  EXPECT_DOUBLE_EQ(ratio.measured->mean, 0.5);
  EXPECT_DOUBLE_EQ(ratio.measured->half_width, 0);
  EXPECT_EQ(*ratio.verdict, Verdict::kReproduced);
  const CheckOutcome value = evaluate_check(r.checks[1], data);
  EXPECT_DOUBLE_EQ(value.measured->mean, 16);
  EXPECT_EQ(value.measured->n, 3u);
  EXPECT_EQ(*value.verdict, Verdict::kReproduced);
  const CheckOutcome missing = evaluate_check(r.checks[2], data);
  EXPECT_EQ(*missing.verdict, Verdict::kNotReproduced);
  EXPECT_THAT(missing.detail, HasSubstr("no point at 4KiB"));
}

// A gap's change along x (`from:`): per seed, the measure at `at` over the same at `from`.
TEST(PaperChecks, FromDividesTheMeasureAtAtByTheSameMeasureAtFrom) {
  const Reproduction r = with_checks(R"(
    - {figure: q, series: rps, measure: difference, to: ofan, from: 1KiB, at: 16KiB, paper: 1, bound: at_most, where: s, tolerance: 0}
)");
  EXPECT_EQ(r.checks[0].id, "q/rps/difference@1KiB..16KiB/ofan");
  EXPECT_EQ(r.checks[0].rule.no_effect, 1);  // no change along x
  std::vector<SeedRow> rows;
  for (uint64_t s = 1; s <= 2; ++s) {
    // The gap rps − ofan is 10 s at 1 KiB and 5 s at 16 KiB: halved for every seed.
    rows.push_back({"q", "rps", 1024, "1KiB", s, 20.0 * s});
    rows.push_back({"q", "ofan", 1024, "1KiB", s, 10.0 * s});
    rows.push_back({"q", "rps", 16384, "16KiB", s, 100.0 + 5 * s});
    rows.push_back({"q", "ofan", 16384, "16KiB", s, 100.0});
  }
  const CheckOutcome o = evaluate_check(r.checks[0], {figure_from_rows(r.figures[0], rows)});
  ASSERT_TRUE(o.measured);
  EXPECT_EQ(o.measured->n, 2u);
  EXPECT_DOUBLE_EQ(o.measured->mean, 0.5);
  EXPECT_EQ(*o.verdict, Verdict::kReproduced);  // ≤ 1 for every seed, no spread
}

TEST(PaperChecks, AZeroDenominatorForOneSeedIsSaidAndNothingIsJudged) {
  // ofan at 1KiB is 0 for seed 2. A ratio to a series that is 0 for one seed, a from: whose base
  // is 0, or an argmin over another series' argmin of 0 (x = 0 added below, rps lowest there for
  // seed 2) is undefined there: the check names the seed and is not judged on the other two.
  std::vector<SeedRow> all = rows();
  for (SeedRow& row : all) {
    if (row.series == "ofan" && row.seed == 2 && row.x_text == "1KiB") row.y = 0;
  }
  for (uint64_t s = 1; s <= 3; ++s) {
    all.push_back({"q", "rps", 0, "0", s, s == 2 ? 1.0 : 1000.0});
    all.push_back({"q", "ofan", 0, "0", s, 1000.0});
  }
  const Reproduction r = with_checks(R"(
    - {figure: q, series: rps, measure: ratio, to: ofan, at: 1KiB, paper: 2, where: s, tolerance: 1}
    - {figure: q, series: ofan, measure: value, from: 1KiB, at: 16KiB, paper: 8, where: s, tolerance: 10}
    - {figure: q, series: ofan, measure: argmin, to: rps, paper: 1, where: s, tolerance: 0.5}
    - {figure: q, series: rps, measure: ratio, to: ofan, at: 16KiB, paper: 4, where: s, tolerance: 1}
)");
  std::vector<FigureData> data;
  for (const Figure& f : r.figures) data.push_back(figure_from_rows(f, all));
  const std::string undefined =
      "a quotient with a zero denominator for seed 2: not judged on the others";
  const std::array<std::string, 3> details = {"rps over ofan at 1KiB: " + undefined,
                                              "at 16KiB over at 1KiB: " + undefined, undefined};
  for (size_t i : {0, 1, 2}) {
    const CheckOutcome c = evaluate_check(r.checks[i], data);
    EXPECT_FALSE(c.measured) << i;
    EXPECT_EQ(*c.verdict, Verdict::kNotReproduced) << i;
    EXPECT_EQ(c.detail, details[i]) << i;
  }
  const CheckOutcome fine = evaluate_check(r.checks[3], data);  // 16KiB has no zero
  ASSERT_TRUE(fine.measured);
  EXPECT_EQ(fine.measured->n, 3u);
  EXPECT_EQ(*fine.verdict, Verdict::kReproduced);
}

// Accepted load over a sweep of offered load (x: 1KiB, 4KiB, 16KiB stand for three loads): rps
// rises to 0.80 + 0.01 s at the middle load and falls to 0.70 past saturation (seeds 1..3); ofan
// peaks last, at 0.90 + 0.01 s.
std::vector<SeedRow> saturation_rows() {
  std::vector<SeedRow> out;
  for (uint64_t s = 1; s <= 3; ++s) {
    const double e = 0.01 * static_cast<double>(s);
    out.push_back({"q", "rps", 1024, "1KiB", s, 0.5});
    out.push_back({"q", "rps", 4096, "4KiB", s, 0.8 + e});
    out.push_back({"q", "rps", 16384, "16KiB", s, 0.7});
    out.push_back({"q", "ofan", 1024, "1KiB", s, 0.5});
    out.push_back({"q", "ofan", 4096, "4KiB", s, 0.6});
    out.push_back({"q", "ofan", 16384, "16KiB", s, 0.9 + e});
  }
  return out;
}

// The saturation throughput (docs/reproduce.md): per seed the series' largest y over every x,
// not its value at the last x; then the mean and interval over seeds.
TEST(PaperChecks, MaxIsTheLargestValueOverEveryX) {
  const Reproduction r = with_checks(R"(
    - {figure: q, series: rps, measure: max, paper: 0.82, where: s, tolerance: 0.05}
    - {figure: q, series: rps, measure: max, paper: 0.70, where: s, tolerance: 0.02, id: last-x}
    - {figure: q, series: ofan, measure: max, paper: 0.92, where: s, tolerance: 0.05}
)");
  EXPECT_EQ(r.checks[0].id, "q/rps/max");
  EXPECT_FALSE(r.checks[0].rule.no_effect);  // a max alone: reproduced or not
  const std::vector<FigureData> data = {figure_from_rows(r.figures[0], saturation_rows())};
  const CheckOutcome rps = evaluate_check(r.checks[0], data);
  ASSERT_TRUE(rps.measured);
  EXPECT_EQ(rps.measured->n, 3u);
  EXPECT_NEAR(rps.measured->mean, 0.82, 1e-12);  // 0.81, 0.82, 0.83: the middle load's
  EXPECT_EQ(*rps.verdict, Verdict::kReproduced);
  // The value at full load (0.70) is not the saturation throughput: the same data fail it.
  EXPECT_EQ(*evaluate_check(r.checks[1], data).verdict, Verdict::kNotReproduced);
  const CheckOutcome ofan = evaluate_check(r.checks[2], data);
  EXPECT_NEAR(ofan.measured->mean, 0.92, 1e-12);
  EXPECT_EQ(*ofan.verdict, Verdict::kReproduced);
  // A seed without every load is not judged on the others.
  std::vector<SeedRow> missing = saturation_rows();
  std::erase_if(missing, [](const SeedRow& row) { return row.seed == 2 && row.x_text == "1KiB"; });
  const CheckOutcome some = evaluate_check(r.checks[0], {figure_from_rows(r.figures[0], missing)});
  EXPECT_FALSE(some.measured);
  EXPECT_EQ(*some.verdict, Verdict::kNotReproduced);
  EXPECT_THAT(some.detail, HasSubstr("no value at every x for seed 2"));
}

TEST(PaperChecks, MaxToIsTheRatioOfTheTwoSaturations) {
  // ofan / rps: (0.9 + e) / (0.8 + e) per seed, whatever load each peaks at: ≈ 1.122.
  const Reproduction r = with_checks(R"(
    - {figure: q, series: ofan, measure: max, to: rps, paper: 1.12, where: s, tolerance: 2%}
    - {figure: q, series: ofan, measure: max, to: rps, paper: 1.30, where: s, tolerance: 2%, id: big}
)");
  EXPECT_EQ(r.checks[0].id, "q/ofan/max/rps");
  ASSERT_TRUE(r.checks[0].rule.no_effect);
  EXPECT_EQ(*r.checks[0].rule.no_effect, 1);  // equal saturations
  EXPECT_THAT(r.checks[0].text, HasSubstr("max over rps's max"));
  const std::vector<FigureData> data = {figure_from_rows(r.figures[0], saturation_rows())};
  const CheckOutcome o = evaluate_check(r.checks[0], data);
  ASSERT_TRUE(o.measured);
  const double expected = (0.91 / 0.81 + 0.92 / 0.82 + 0.93 / 0.83) / 3;
  EXPECT_NEAR(o.measured->mean, expected, 1e-12);
  EXPECT_EQ(*o.verdict, Verdict::kReproduced);
  EXPECT_EQ(*evaluate_check(r.checks[1], data).verdict, Verdict::kSmallerEffect);
}

TEST(PaperChecks, AMaxSpansEveryXOfALineFigure) {
  EXPECT_THAT(error("    - {figure: q, series: rps, measure: max, at: 1KiB, paper: 1, where: s, "
                    "tolerance: 1}\n"),
              HasSubstr("spans every x"));
  EXPECT_THAT(
      error("    - {figure: bars, series: rps, measure: max, paper: 1, where: s, tolerance: 1}\n"),
      HasSubstr("a max needs a figure over a numeric x"));
}

TEST(PaperChecks, AValueWithoutNoEffectIsReproducedOrNot) {
  // rps at 16KiB: 176, 192, 208, so [152.3, 231.7]; the paper's 100 ± 10 % is far below.
  const Reproduction r = with_checks(R"(
    - {figure: q, series: rps, measure: value, at: 16KiB, paper: 100, where: s, tolerance: 10%}
    - {figure: q, series: rps, measure: value, at: 16KiB, paper: 100, where: s, tolerance: 10%, no_effect: 0, id: with-zero}
    - {figure: bars, series: rps, measure: value, paper: 4, where: s5, tolerance: 50%, no_effect: 0}
)");
  const std::vector<FigureData> data = figures(r);
  EXPECT_EQ(*evaluate_check(r.checks[0], data).verdict, Verdict::kNotReproduced);
  EXPECT_EQ(*evaluate_check(r.checks[1], data).verdict, Verdict::kLargerEffect);
  EXPECT_EQ(*evaluate_check(r.checks[2], data).verdict, Verdict::kNotReproduced);  // reaches 0
}

TEST(PaperChecks, ABoundIsReadAndJudgedOnItsClaimedSide) {
  // ofan / rps at 16KiB is 0.25 for every seed: "at most 0.3" holds, "= 0.3" is a larger effect,
  // "at least 0.3" is short of its bound (0.25 is still below no effect, 1).
  const Reproduction r = with_checks(R"(
    - {figure: q, series: ofan, measure: ratio, to: rps, at: 16KiB, paper: 0.3, where: s, tolerance: 0.01, bound: at_most}
    - {figure: q, series: ofan, measure: ratio, to: rps, at: 16KiB, paper: 0.3, where: s, tolerance: 0.01, id: point}
    - {figure: q, series: ofan, measure: ratio, to: rps, at: 16KiB, paper: 0.2, where: s, tolerance: 0.01, bound: at_least, id: least}
)");
  EXPECT_EQ(r.checks[0].rule.bound, Bound::kAtMost);
  EXPECT_EQ(r.checks[1].rule.bound, Bound::kPoint);
  EXPECT_EQ(r.checks[2].rule.bound, Bound::kAtLeast);
  EXPECT_THAT(r.checks[0].text, HasSubstr("≤ 0.3"));
  const std::vector<FigureData> data = figures(r);
  EXPECT_EQ(*evaluate_check(r.checks[0], data).verdict, Verdict::kReproduced);
  EXPECT_THAT(evaluate_check(r.checks[0], data).detail, HasSubstr("paper at most 0.3"));
  EXPECT_EQ(*evaluate_check(r.checks[1], data).verdict, Verdict::kLargerEffect);
  EXPECT_EQ(*evaluate_check(r.checks[2], data).verdict, Verdict::kReproduced);
  EXPECT_THAT(error("    - {figure: q, series: rps, measure: slope, paper: 1, where: s, "
                    "tolerance: 1%, bound: above}\n"),
              HasSubstr("at_least"));
  EXPECT_THAT(error("    - {figure: q, series: rps, below_series: ofan, bound: at_most}\n"),
              HasSubstr("only a check with paper:"));
}

// Per seed 1..3 at 1KiB: ar 20, 8, 30; REPS 10, 16, 12; ofan 1. The better (smaller) of ar and
// REPS per seed is 10, 8, 12 (mean 10), not the smaller mean (REPS's 12.67).
std::vector<FigureData> best_of_figures(const Reproduction& r) {
  const double ar[] = {20, 8, 30}, reps[] = {10, 16, 12};
  std::vector<SeedRow> rows;
  for (uint64_t s = 1; s <= 3; ++s) {
    rows.push_back({"q", "ar", 1024, "1KiB", s, ar[s - 1]});
    rows.push_back({"q", "REPS", 1024, "1KiB", s, reps[s - 1]});
    rows.push_back({"q", "ofan", 1024, "1KiB", s, 1});
    // The same values as bars, each series at its own index.
    rows.push_back({"bars", "ar", 0, "ar", s, ar[s - 1]});
    rows.push_back({"bars", "REPS", 1, "REPS", s, reps[s - 1]});
    rows.push_back({"bars", "ofan", 2, "ofan", s, 1});
  }
  std::vector<FigureData> out;
  for (const Figure& f : r.figures) out.push_back(figure_from_rows(f, rows));
  return out;
}

TEST(PaperChecks, TheBestOfSeveralSeriesIsTakenPerSeed) {
  // Ofan §6.7's kind of claim: the better baseline's inflation is at least 16x Ofan's.
  const Reproduction r = with_checks(R"(
    - {figure: q, series: [ar, REPS], pick: min, measure: ratio, to: ofan, at: 1KiB, paper: 4, where: s, tolerance: 0, bound: at_least}
    - {figure: q, series: [ar, REPS], pick: min, measure: ratio, to: ofan, at: 1KiB, paper: 16, where: s, tolerance: 1, bound: at_least, id: short}
    - {figure: q, series: [ar, REPS], pick: max, measure: value, at: 1KiB, paper: 22, where: s, tolerance: 50%}
    - {figure: bars, series: [ar, REPS], pick: min, measure: ratio, to: ofan, paper: 4, where: s, tolerance: 0, bound: at_least}
)");
  EXPECT_EQ(r.checks[0].series, "min(ar, REPS)");
  EXPECT_EQ(r.checks[0].id, "q/min(ar, REPS)/ratio@1KiB/ofan");
  const std::vector<FigureData> data = best_of_figures(r);
  const CheckOutcome pass = evaluate_check(r.checks[0], data);
  EXPECT_DOUBLE_EQ(pass.measured->mean, 10);
  EXPECT_NEAR(pass.measured->half_width, 2 * 4.303 / std::sqrt(3.0), 1e-3);  // 10, 8, 12
  EXPECT_EQ(*pass.verdict, Verdict::kReproduced);  // [5.03, 14.97], all of it >= 4
  // Short of 16 - 1 but above no effect (1): the same direction, a smaller effect.
  EXPECT_EQ(*evaluate_check(r.checks[1], data).verdict, Verdict::kSmallerEffect);
  EXPECT_DOUBLE_EQ(evaluate_check(r.checks[2], data).measured->mean, 22);  // 20, 16, 30
  EXPECT_DOUBLE_EQ(evaluate_check(r.checks[3], data).measured->mean, 10);  // bars: the same
}

TEST(PaperChecks, AListOfSeriesNeedsPickAndAPaperCheck) {
  EXPECT_THAT(error("    - {figure: q, series: [rps, ofan], measure: value, at: 1KiB, paper: 1, "
                    "where: s, tolerance: 1}\n"),
              HasSubstr("checks[0].pick: missing required key 'pick'"));
  EXPECT_THAT(error("    - {figure: q, series: rps, pick: min, measure: value, at: 1KiB, paper: 1, "
                    "where: s, tolerance: 1}\n"),
              HasSubstr("pick: chooses among a list of series"));
  EXPECT_THAT(error("    - {figure: q, series: [rps, ofan], pick: min, below_series: ofan}\n"),
              HasSubstr("a list of series is read only by a check with paper:"));
  EXPECT_THAT(error("    - {figure: q, series: [rps], pick: min, measure: value, at: 1KiB, "
                    "paper: 1, where: s, tolerance: 1}\n"),
              HasSubstr("a list of at least two series"));
  // A listed series the figure does not have: the file's mistake, not judged, and says which.
  const Reproduction r = with_checks(
      "    - {figure: q, series: [ar, TCP], pick: min, measure: value, at: 1KiB, paper: 1, "
      "where: s, tolerance: 1}\n");
  const CheckOutcome out = evaluate_check(r.checks[0], best_of_figures(r));
  EXPECT_TRUE(out.misnamed);
  EXPECT_FALSE(out.verdict.has_value());
  EXPECT_THAT(out.detail, HasSubstr("no series 'TCP'"));
}

// A point the data lack is a result (not reproduced); a series the figure lacks is a name the
// file got wrong (not judged: mrls-dragonfly's 'DF cost 1.33/ugal').
TEST(PaperChecks, AMissingPointIsNotReproducedAMissingSeriesNotJudged) {
  const Reproduction r = with_checks(R"(
    - {figure: q, series: rps, measure: value, at: 4KiB, paper: 1, where: s, tolerance: 1%}
    - {figure: q, series: rps, measure: ratio, to: jsq, at: 1KiB, paper: 1, where: s, tolerance: 1%}
)");
  const std::vector<FigureData> data = figures(r);
  const CheckOutcome a = evaluate_check(r.checks[0], data);
  EXPECT_EQ(*a.verdict, Verdict::kNotReproduced);
  EXPECT_THAT(a.detail, HasSubstr("no point at 4KiB"));
  EXPECT_FALSE(a.misnamed);
  const CheckOutcome b = evaluate_check(r.checks[1], data);
  EXPECT_TRUE(b.misnamed);
  EXPECT_FALSE(b.verdict.has_value());
  EXPECT_FALSE(b.passed);
  EXPECT_THAT(b.detail, HasSubstr("no series 'jsq'"));
}

TEST(PaperChecks, TheFileSaysEveryPartOrIsRefusedAtItsLine) {
  EXPECT_THAT(error("    - {figure: q, series: rps, measure: slope, paper: 1, where: s}\n"),
              HasSubstr("tolerance"));
  EXPECT_THAT(error("    - {figure: q, series: rps, measure: slope, paper: 1, tolerance: 1%}\n"),
              HasSubstr("where"));
  EXPECT_THAT(error("    - {figure: q, series: rps, measure: ratio, at: 1KiB, paper: 1, where: s, "
                    "tolerance: 1%}\n"),
              HasSubstr("to"));
  EXPECT_THAT(error("    - {figure: q, series: rps, measure: value, paper: 1, where: s, "
                    "tolerance: 1%}\n"),
              HasSubstr("at"));
  EXPECT_THAT(error("    - {figure: bars, series: rps, measure: slope, paper: 1, where: s, "
                    "tolerance: 1%}\n"),
              HasSubstr("slope needs"));
  EXPECT_THAT(error("    - {figure: q, series: rps, measure: slope, paper: 1, where: s, "
                    "tolerance: ten}\n"),
              HasSubstr("tolerance"));
  EXPECT_THAT(error("    - {kind: ordering, figure: q, series: rps, max_at_most: 3}\n"),
              HasSubstr("threshold"));
  EXPECT_THAT(error("    - {figure: q, series: rps, below_series: ofan, tolerance: 1%}\n"),
              HasSubstr("only a check with paper:"));
  EXPECT_THAT(error("    - {figure: q, series: rps, below_series: ofan}\n"
                    "    - {figure: q, series: rps, below_series: ofan, note: again}\n"),
              HasSubstr("two checks are q/rps/below_series/ofan"));
  EXPECT_EQ(error("    - {figure: q, series: rps, below_series: ofan}\n"), "accepted");
}

TEST(PaperChecks, RolesFollowTheKeys) {
  const Reproduction r = with_checks(R"(
    - {figure: q, series: rps, below_series: ofan}
    - {figure: q, series: rps, max_at_most: 3}
    - {figure: q, series: rps, measure: slope, paper: 1, where: s, tolerance: 1%}
)");
  EXPECT_EQ(r.checks[0].role, CheckRole::kOrdering);
  EXPECT_EQ(r.checks[1].role, CheckRole::kThreshold);
  EXPECT_EQ(r.checks[2].role, CheckRole::kPaper);
  EXPECT_NE(r.checks[0].hash, r.checks[1].hash);
  ASSERT_EQ(r.differences.size(), 1u);
  EXPECT_EQ(r.differences[0].here, "50 ns");
}

TEST(PaperChecks, DifferencesSayEveryPart) {
  EXPECT_THROW(read_reproduction(kBase.substr(0, kBase.find("  checks:")) +
                                     "    - {setting: x, paper: 1, here: 2}\n",
                                 "p.yaml", "p"),
               conf::ConfigError);
}

TEST(Orderings, SayAtHowManyXTheIntervalsAreApart) {
  // ofan below rps at both x, by far: [4.8, 7.2] against [9.5, 14.5], [38, 58] against
  // [152, 232]; rps below ofan nowhere.
  const Reproduction r = with_checks(R"(
    - {figure: q, series: ofan, below_series: rps}
    - {figure: q, series: rps, below_series: ofan}
)");
  const std::vector<FigureData> data = figures(r);
  const CheckOutcome below = evaluate_check(r.checks[0], data);
  EXPECT_TRUE(below.passed);
  EXPECT_THAT(below.detail, HasSubstr("95 % intervals apart at 2 of 2 x"));
  const CheckOutcome above = evaluate_check(r.checks[1], data);
  EXPECT_FALSE(above.passed);
  EXPECT_THAT(above.detail, HasSubstr("95 % intervals apart at 0 of 2 x"));
}

TEST(SeedsCsv, ReadsBackWhatItWrites) {
  const Reproduction r = with_checks("    - {figure: q, series: rps, below_series: ofan}\n");
  const std::vector<FigureData> data = figures(r);
  const std::string csv = seeds_csv(data);
  EXPECT_THAT(csv, HasSubstr("figure,series,x,x_text,seed,y\nq,rps,1024,1KiB,1,11\n"));
  const std::vector<SeedRow> back = parse_seeds_csv(csv, "seeds.csv");
  EXPECT_EQ(back.size(), rows().size());
  EXPECT_EQ(seeds_csv({figure_from_rows(r.figures[0], back), figure_from_rows(r.figures[1], back)}),
            csv);
  EXPECT_THROW(parse_seeds_csv("figure,series\n", "x.csv"), std::runtime_error);
  EXPECT_THROW(parse_seeds_csv(csv + "q,rps,1,1,one,2\n", "x.csv"), std::runtime_error);
}

// A stored verdicts.json whose one check was judged `verdict` with `hash`.
nlohmann::json stored(const Check& c, const std::string& verdict, const std::string& hash) {
  return {
      {"checks", {{{"id", c.id}, {"hash", hash}, {"check", "old text"}, {"verdict", verdict}}}}};
}

TEST(KeepStoredVerdicts, AStoredNotReproducedStaysWhateverTheDataOrTheCheckSay) {
  const Reproduction r = with_checks(
      "    - {figure: q, series: ofan, measure: ratio, to: rps, at: 16KiB, paper: 0.25, where: s, "
      "tolerance: 0.01}\n");
  const std::vector<FigureData> data = figures(r);
  std::vector<CheckOutcome> now = {evaluate_check(r.checks[0], data)};
  ASSERT_EQ(*now[0].verdict, Verdict::kReproduced);
  keep_stored_verdicts(now, stored(r.checks[0], "not reproduced", r.checks[0].hash));
  EXPECT_EQ(*now[0].verdict, Verdict::kNotReproduced);
  EXPECT_FALSE(now[0].passed);
  EXPECT_THAT(now[0].history, HasSubstr("kept the first verdict"));

  now = {evaluate_check(r.checks[0], data)};
  keep_stored_verdicts(now, stored(r.checks[0], "not reproduced", "an older hash"));
  EXPECT_EQ(*now[0].verdict, Verdict::kNotReproduced);
  EXPECT_THAT(now[0].history, HasSubstr("changed since"));
}

TEST(KeepStoredVerdicts, AChangedCheckOnceReproducedIsJudgedAgainAndSaysItChanged) {
  const Reproduction r = with_checks(
      "    - {figure: q, series: ofan, measure: ratio, to: rps, at: 16KiB, paper: 0.9, where: s, "
      "tolerance: 0.01}\n");
  std::vector<CheckOutcome> now = {evaluate_check(r.checks[0], figures(r))};
  keep_stored_verdicts(now, stored(r.checks[0], "reproduced", "an older hash"));
  // 0.25 lies on 0.9's side of 1 (no effect), farther from it than 0.9.
  EXPECT_EQ(*now[0].verdict, Verdict::kLargerEffect);
  EXPECT_THAT(now[0].history, HasSubstr("changed since"));
}

// A figure that draws nothing (every variant failed): no evidence for or against the paper, so
// none of its checks is judged, the picking ones neither, and none leaves a verdict to keep.
TEST(PaperChecks, AFigureThatDrawsNothingJudgesNoneOfItsChecks) {
  const Reproduction r = with_checks(R"(
    - {figure: q, series: rps, measure: value, at: 1KiB, paper: 1, where: s, tolerance: 1%}
    - {figure: q, series: [rps, ofan], pick: min, measure: value, at: 1KiB, paper: 1, where: s, tolerance: 1%}
    - {figure: q, series: ofan, below_series: rps}
    - {figure: bars, series: rps, measure: value, paper: 4, where: s, tolerance: 200%}
)");
  std::vector<FigureData> data;
  std::vector<SeedRow> only_bars;
  for (const SeedRow& row : rows()) {
    if (row.figure == "bars") only_bars.push_back(row);
  }
  for (const Figure& f : r.figures) data.push_back(figure_from_rows(f, only_bars));
  ASSERT_TRUE(data[0].series.empty());
  std::vector<CheckOutcome> now;
  for (const Check& c : r.checks) now.push_back(evaluate_check(c, data));
  for (size_t i = 0; i < 3; ++i) {
    SCOPED_TRACE(r.checks[i].text);
    EXPECT_TRUE(now[i].no_data);
    EXPECT_FALSE(now[i].misnamed);
    EXPECT_FALSE(now[i].judged());
    EXPECT_FALSE(now[i].verdict.has_value());
    EXPECT_FALSE(now[i].passed);
    EXPECT_THAT(now[i].detail, HasSubstr("figure 'q' draws nothing"));
  }
  // The figure beside it is judged as ever: 2, 4, 6 over three seeds is 4.
  EXPECT_TRUE(now[3].judged());
  EXPECT_EQ(*now[3].verdict, Verdict::kReproduced) << now[3].detail;
  // verdicts.json keeps only what was judged, and a stored verdict is not forced on no data.
  const nlohmann::ordered_json v = verdicts_json(now);
  ASSERT_EQ(v["checks"].size(), 1u);
  EXPECT_EQ(v["checks"][0]["id"], r.checks[3].id);
  keep_stored_verdicts(now, stored(r.checks[1], "not reproduced", r.checks[1].hash));
  EXPECT_FALSE(now[1].verdict.has_value());
}

// A title too long for the image is wrapped at spaces (gnuplot cuts it at both edges: mrls-11k's
// RSP figure lost its "RSP"); a short one stays one string. Every word is kept, in order.
TEST(Figures, ALongTitleIsWrappedIntoLinesThatFit) {
  Reproduction r = with_checks("    - {figure: q, series: ofan, below_series: rps}\n");
  r.figures[0].title =
      "RSP (random switch permutation): accepted against offered load (Bernoulli, one packet per "
      "message)";
  r.figures[1].title = "short";
  std::vector<FigureData> data;
  for (const Figure& f : r.figures) data.push_back(figure_from_rows(f, rows()));
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("titles-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  draw_figures(dir.string(), data);
  std::ifstream in(dir / "figures.gp");
  std::stringstream script;
  script << in.rdbuf();
  std::filesystem::remove_all(dir);
  std::vector<std::string> titles;
  std::istringstream lines(script.str());
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("set title ", 0) == 0) titles.push_back(line.substr(10));
  }
  ASSERT_EQ(titles.size(), 4u);  // PNG and SVG of each figure
  // 'RSP ... packet per'."\n".'message) (ours: ... 3 seeds)'
  const std::regex quoted("'([^']*)'");
  std::string joined;
  size_t pieces = 0;
  for (auto it = std::sregex_iterator(titles[0].begin(), titles[0].end(), quoted);
       it != std::sregex_iterator(); ++it) {
    const std::string piece = (*it)[1];
    EXPECT_LE(piece.size(), 110u) << piece;
    joined += (joined.empty() ? "" : " ") + piece;
    ++pieces;
  }
  EXPECT_EQ(pieces, 2u) << titles[0];
  EXPECT_THAT(titles[0], HasSubstr("'.\"\\n\".'"));
  EXPECT_EQ(joined, r.figures[0].title + " (ours: mean and 95% CI over 3 seeds)");
  EXPECT_EQ(titles[2], "'short (ours: mean and 95% CI over 3 seeds)'");
}

}  // namespace
}  // namespace spraylab::fabric
