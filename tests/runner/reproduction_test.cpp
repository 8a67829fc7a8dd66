// Reproductions (docs/reproduce.md): the reproduce: section as read, the small version, the
// series a variant belongs to, the log-log fit, the figures gathered from summaries and the
// checks evaluated on them. The command itself is tests/cli/reproduce_test.py.
#include "fabric/reproduce/reproduction.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "conf/config_error.h"
#include "fabric/reproduce/figures.h"
#include "fabric/reproduce/loglog_fit.h"

namespace spraylab::fabric {
namespace {

using ::testing::HasSubstr;

// Tables write a mean as results are written: the half width to two significant digits, the mean
// to the same decimal place.
TEST(MeanCiText, RoundsTheMeanToTheHalfWidthsSecondDigit) {
  const auto text = [](double mean, double half, size_t n = 10) {
    Interval i;
    i.n = n;
    i.mean = mean;
    i.half_width = half;
    return mean_ci_text(i);
  };
  EXPECT_EQ(text(9.8, 1.297), "9.8 ± 1.3");
  EXPECT_EQ(text(33.6, 11.16), "34 ± 11");
  EXPECT_EQ(text(0.00935, 0.0009883), "0.00935 ± 0.00099");
  EXPECT_EQ(text(0.02396, 0.001048), "0.0240 ± 0.0010");
  EXPECT_EQ(text(17.5, 0), "17.5 ± 0");
  EXPECT_EQ(text(1.0279123375000936, 1.7e-16), "1.028 ± 0");  // rounding noise, not a spread
  EXPECT_EQ(text(17.5, INFINITY, 1), "17.5 (1 seed)");
}

const std::string kBase = R"(name: r
topology: {generator: leaf-spine, leaves: 2, spines: 2, hosts_per_leaf: 2}
workload: {type: permutation, message_size: 64KB}
)";

const std::string kSection = R"(reproduce:
  title: growth
  paper: somewhere
  runs:
    - name: sw
      algorithms: [rps, ofan]
      sweep: {workload.message_size: [64KB, 256KB, 1MB]}
      set: {workload.entropy: packet}
    - name: host
      label: REPS
      algorithms: [ecmp]
      set: {workload.entropy: reps, buffer.ecn_threshold: 20%}
  small:
    set: {links.rate: 10Gbps}
    sweep: {workload.message_size: [64KB, 256KB]}
  figures:
    - {name: q, x: workload.message_size, y: queue.max_packets, fit: loglog, log: xy,
       marks: [{label: bound, y: 3}]}
    - {name: c, x: variant, y: cct.collective_ns}
  checks:
    - {figure: q, series: ofan, slope_below: 0.15}
    - {figure: q, series: rps, slope_between: [0.35, 0.65]}
    - {figure: c, series: ofan, ratio_at_most: {series: rps, ratio: 1.0}}
)";

Reproduction read(const std::string& section) {
  return read_reproduction(kBase + section, "r.yaml", "r");
}

std::string error_of(const std::string& section) {
  try {
    read(section);
  } catch (const conf::ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(Reproduction, ReadsRunsFiguresAndChecks) {
  const Reproduction r = read(kSection);
  EXPECT_EQ(r.title, "growth");
  ASSERT_EQ(r.runs.size(), 2u);
  EXPECT_EQ(r.runs[0].algorithms, (std::vector<std::string>{"rps", "ofan"}));
  ASSERT_EQ(r.runs[0].sweeps.size(), 1u);
  EXPECT_EQ(r.runs[0].sweeps[0].values, (std::vector<std::string>{"64KB", "256KB", "1MB"}));
  EXPECT_EQ(r.runs[1].sets[1].key, "buffer.ecn_threshold");
  EXPECT_EQ(r.runs[1].label, "REPS");
  ASSERT_EQ(r.figures.size(), 2u);
  EXPECT_TRUE(r.figures[0].fit_loglog && r.figures[0].log_x && r.figures[0].log_y);
  EXPECT_TRUE(r.figures[1].by_variant());
  ASSERT_EQ(r.checks.size(), 3u);
  EXPECT_EQ(r.checks[1].kind, CheckKind::kSlopeBetween);
  EXPECT_EQ(r.checks[2].other, "rps");
}

TEST(Reproduction, SmallReplacesSweepsAndSetsInEveryRun) {
  const std::vector<ReproRun> runs = runs_to_execute(read(kSection), true);
  EXPECT_EQ(runs[0].sweeps[0].values, (std::vector<std::string>{"64KB", "256KB"}));
  EXPECT_EQ(runs[1].sweeps[0].key, "workload.message_size");  // added where it had none
  EXPECT_EQ(runs[0].sets.back().key, "links.rate");
  EXPECT_EQ(runs_to_execute(read(kSection), false)[0].sweeps[0].values.size(), 3u);
}

TEST(Reproduction, MistakesAreNamedWithTheirPosition) {
  EXPECT_THAT(error_of("reproduce: {title: t, runs: [{name: a}], checks: [{figure: nope, "
                       "series: a, max_at_most: 1}]}\n"),
              HasSubstr("no figure is named 'nope'"));
  EXPECT_THAT(error_of("reproduce: {title: t, runs: [{name: a}, {name: a}]}\n"),
              HasSubstr("two runs are named 'a'"));
  EXPECT_THAT(error_of("reproduce: {title: t, runs: [{name: a, sweep: {x: 1}}]}\n"),
              HasSubstr("a non-empty list of values"));
  EXPECT_THAT(error_of("reproduce: {title: t, runs: [{name: a, algorithm: [x]}]}\n"),
              HasSubstr("r.yaml:4:"));  // line and column of the unknown key
  EXPECT_THAT(error_of("reproduce: {title: t, runs: [{name: a}], figures: [{name: f, x: variant, "
                       "y: q}], checks: [{figure: f, series: a}]}\n"),
              HasSubstr("exactly one of"));
  EXPECT_THAT(error_of("reproduce: {title: t, runs: [{name: figures}]}\n"),
              HasSubstr("not 'figures'"));
  EXPECT_THAT(error_of(""), HasSubstr("reproduce"));
}

TEST(LogLogFit, RecoversTheExponentAndSkipsZeros) {
  const std::vector<double> x = {16, 64, 256, 1024};
  std::vector<double> y;
  for (double v : x) y.push_back(3 * std::sqrt(v));
  EXPECT_NEAR(*loglog_slope(x, y), 0.5, 1e-9);
  EXPECT_NEAR(*loglog_slope({1, 2, 4, 8}, {0, 5, 5, 5}), 0.0, 1e-9);  // the 0 is left out
  EXPECT_FALSE(loglog_slope({4, 4}, {1, 2}).has_value());
  EXPECT_FALSE(loglog_slope({4}, {1}).has_value());
}

TEST(AxisValue, ReadsNumbersSizesTimesAndRates) {
  EXPECT_EQ(*axis_value("12"), 12);
  EXPECT_EQ(*axis_value("64KiB"), 65536);
  EXPECT_EQ(*axis_value("20us"), 20000);
  EXPECT_EQ(*axis_value("10Gbps"), 1e10);
  EXPECT_FALSE(axis_value("fast").has_value());
}

// A variant as expand_variants would make it, without loading anything.
VariantResult result(const ReproRun& run, const std::string& algorithm, const std::string& size,
                     double max_packets) {
  VariantResult r;
  r.run = &run;
  r.variant.algorithm = algorithm;
  r.variant.name = algorithm + "-message_size=" + size;
  r.variant.name_parts = {{"", algorithm}, {"workload.message_size", "message_size=" + size}};
  r.variant.settings = {{"workload.message_size", size, "--sweep"}};
  r.summary = {{"queue", {{"max_packets", max_packets}}}, {"cct", {{"collective_ns", 1000}}}};
  return r;
}

TEST(Figures, SeriesSlopesAndChecksFollowTheData) {
  const Reproduction r = read(kSection);
  const ReproRun& sw = r.runs[0];
  std::vector<VariantResult> results;
  const std::vector<std::string> sizes = {"16KiB", "64KiB", "256KiB"};
  for (size_t i = 0; i < sizes.size(); ++i) {
    results.push_back(result(sw, "rps", sizes[i], 4 * std::pow(4.0, 0.5 * i)));  // m^0.5
    results.push_back(result(sw, "ofan", sizes[i], 5));                          // flat
  }
  const FigureData q = gather_figure(r.figures[0], results);
  ASSERT_EQ(q.series.size(), 2u);
  EXPECT_EQ(q.series[0].name, "rps");
  EXPECT_NEAR(*q.series[0].slope, 0.5, 1e-9);
  EXPECT_NEAR(*q.series[1].slope, 0.0, 1e-9);
  EXPECT_EQ(q.series[1].points[2].x_text, "256KiB");
  const std::vector<FigureData> figures = {q, gather_figure(r.figures[1], results)};
  EXPECT_TRUE(evaluate_check(r.checks[0], figures).passed);  // ofan flat
  EXPECT_TRUE(evaluate_check(r.checks[1], figures).passed);  // rps 0.5

  // The same checks fail when the data says otherwise.
  results.push_back(result(sw, "ofan", "1MiB", 500));
  const std::vector<FigureData> worse = {gather_figure(r.figures[0], results)};
  const CheckOutcome bad = evaluate_check(r.checks[0], worse);
  EXPECT_FALSE(bad.passed);
  EXPECT_THAT(bad.detail, HasSubstr("slope"));
  Check missing = r.checks[0];
  missing.series = "jsq";
  EXPECT_THAT(evaluate_check(missing, worse).detail, HasSubstr("no series 'jsq'"));
}

TEST(Figures, AValueMissingFromASummaryIsReportedNotInvented) {
  const Reproduction r = read(kSection);
  VariantResult v = result(r.runs[0], "rps", "16KiB", 4);
  v.summary = nlohmann::json::object();
  const FigureData q = gather_figure(r.figures[0], {v});
  EXPECT_TRUE(q.series.empty());
  ASSERT_EQ(q.problems.size(), 1u);
  EXPECT_THAT(q.problems[0], HasSubstr("no number at queue.max_packets"));
}

TEST(Figures, AOneValueSweepNamesNoSeriesInABarChart) {
  // A run swept over one value (every series then shares a line figure's x) keeps the plain
  // series name in a by-variant figure; a real sweep still names its values.
  ReproRun one{"r", "AR", {"ar"}, {{"workload.message_size", {"2MB"}}}, {}};
  ReproRun two{"r", "AR", {"ar"}, {{"workload.message_size", {"1MB", "2MB"}}}, {}};
  const VariantResult v = result(one, "ar", "2MB", 1);
  Figure bars;
  bars.x = "variant";
  EXPECT_EQ(series_name(one, v.variant, bars), "AR");
  EXPECT_EQ(series_name(two, v.variant, bars), "AR-message_size=2MB");
}

TEST(Figures, RelativeToDrawsThePercentageAboveABound) {
  const Reproduction r = read(R"(reproduce:
  title: t
  runs: [{name: sw, algorithms: [ofan]}]
  figures:
    - {name: b, x: workload.message_size, y: cct.collective_ns, relative_to: bound}
    - {name: c, x: workload.message_size, y: cct.collective_ns, y_divide: 1000,
       relative_to: 16}
    - {name: d, x: workload.message_size, y: cct.collective_ns, relative_to: cct.nowhere}
)");
  EXPECT_EQ(r.figures[0].relative_to, "cct.bound_ns");
  EXPECT_FALSE(r.figures[0].relative_to_value.has_value());
  EXPECT_EQ(*r.figures[1].relative_to_value, 16);
  VariantResult v = result(r.runs[0], "ofan", "1MB", 10);
  v.summary["cct"] = {{"collective_ns", 20000}, {"bound_ns", 16000}};
  const FigureData b = gather_figure(r.figures[0], {v});
  ASSERT_EQ(b.series.size(), 1u);
  EXPECT_NEAR(b.series[0].points[0].y, 25, 1e-9);         // 20 us over a 16 us bound: +25 %
  const FigureData c = gather_figure(r.figures[1], {v});  // the constant is in µs, as plotted
  EXPECT_NEAR(c.series[0].points[0].y, 25, 1e-9);
  const FigureData d = gather_figure(r.figures[2], {v});  // no reference: named, not invented
  EXPECT_TRUE(d.series.empty());
  ASSERT_EQ(d.problems.size(), 1u);
  EXPECT_THAT(d.problems[0], HasSubstr("no reference > 0 at cct.nowhere"));
  ReportContext ctx;
  ctx.command = "cmd";
  EXPECT_THAT(report_markdown(r, ctx, {b}, {}), HasSubstr("% above cct.bound_ns"));
  EXPECT_THAT(error_of("reproduce: {title: t, runs: [{name: a}], figures: [{name: f, x: variant, "
                       "y: q, relative_to: -3}]}\n"),
              HasSubstr("> 0"));
  EXPECT_THAT(error_of("reproduce: {title: t, runs: [{name: a}], figures: [{name: f, x: k, "
                       "source: u.csv, y: q, relative_to: bound}]}\n"),
              HasSubstr("with source has none"));
}

}  // namespace
}  // namespace spraylab::fabric
