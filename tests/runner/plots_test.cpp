// The plots: which data each one draws, and (when gnuplot is installed) real PNG and SVG files.
#include "fabric/results/plots.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

namespace spraylab::fabric {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

PlotVariant variant(const std::string& name, uint64_t max_queue, bool with_samples = true) {
  PlotVariant v;
  v.name = name;
  v.max_queue_bytes = max_queue;
  v.message_cct_ns = {1000, 2000, 4000};
  if (with_samples) v.queue_bytes = {{0, 0}, {1000, max_queue}, {2000, max_queue / 2}};
  return v;
}

TEST(DeepestQueue, IsTheMaximumOverPortsPerSampleTime) {
  FabricResult r;
  r.samples = {{2000, 0, 1, 10}, {1000, 0, 1, 5}, {1000, 1, 3, 30}, {2000, 1, 1, 4}};
  const auto d = deepest_queue_over_time(r);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0], (std::pair<uint64_t, uint64_t>{1000, 30}));
  EXPECT_EQ(d[1], (std::pair<uint64_t, uint64_t>{2000, 10}));
}

TEST(DecimateMax, KeepsEveryPeakWithinThePointBudget) {
  std::vector<std::pair<uint64_t, uint64_t>> series;
  for (uint64_t t = 0; t < 10'000; ++t) series.emplace_back(t, t % 97 == 50 ? 1000 + t : t % 7);
  const auto d = decimate_max(series, 100);
  EXPECT_LE(d.size(), 100u);
  uint64_t peak = 0, kept_peak = 0;
  for (const auto& p : series) peak = std::max(peak, p.second);
  for (const auto& p : d) kept_peak = std::max(kept_peak, p.second);
  EXPECT_EQ(kept_peak, peak);
  EXPECT_TRUE(std::is_sorted(d.begin(), d.end()));
  EXPECT_EQ(decimate_max(series, 20'000), series);  // within budget: unchanged
}

TEST(GnuplotScript, WithoutASizeSweepMaxQueueIsBarsPerVariant) {
  const std::string s = gnuplot_script({variant("ofan", 9000), variant("rps", 30000, false)});
  EXPECT_THAT(s, HasSubstr("'data/ofan.queue.dat'"));
  EXPECT_THAT(s, Not(HasSubstr("'data/rps.queue.dat'")));  // no samples, no line
  EXPECT_THAT(s, HasSubstr("'data/rps.cct.dat'"));
  EXPECT_THAT(s, HasSubstr("histograms"));
  EXPECT_THAT(s, Not(HasSubstr("logscale x 2")));     // no size axis
  EXPECT_THAT(s, HasSubstr("multiplot layout 1,1"));  // one queue panel: rps has no samples
  for (const char* image : {"queue_depth.png", "cct_cdf.svg", "max_queue.png", "max_queue.svg"}) {
    EXPECT_THAT(s, HasSubstr(image));
  }
}

// Issue 43, points 7 and 9: the CDF on a log x axis, every line its own colour, and the queue
// panels on one y scale.
TEST(GnuplotScript, CdfIsLogXLinesDifferAndQueuePanelsShareTheirYScale) {
  std::vector<PlotVariant> vs;
  for (int i = 0; i < 10; ++i) vs.push_back(variant(fmt::format("v{}", i), 1000 * (i + 1)));
  const std::string s = gnuplot_script(vs);
  EXPECT_THAT(s, HasSubstr("set logscale x 10\nset autoscale xfix\nplot 'data/v0.cct.dat'"));
  std::set<std::string> styles;
  for (size_t at = s.find("lc rgb '"); at != std::string::npos; at = s.find("lc rgb '", at + 1)) {
    styles.insert(s.substr(at, s.find(" title", at) - at));
  }
  EXPECT_EQ(styles.size(), 10u) << "each CDF line its own colour";
  EXPECT_THAT(s, HasSubstr("set yrange [0:10.5]\nunset key"));  // 10 KB, the deepest, + 5%
}

TEST(GnuplotScript, WithASizeSweepMaxQueueIsALinePerSeries) {
  std::vector<PlotVariant> vs;
  for (const char* algorithm : {"ofan", "rps"}) {
    for (uint64_t size : {64'000, 1'000'000}) {
      PlotVariant v = variant(std::string(algorithm) + "-" + std::to_string(size), size / 10);
      v.message_bytes = size;
      v.series = algorithm;
      vs.push_back(v);
    }
  }
  const std::string s = gnuplot_script(vs);
  EXPECT_THAT(s, HasSubstr("'data/ofan.size.dat'"));
  EXPECT_THAT(s, HasSubstr("'data/rps.size.dat'"));
  EXPECT_THAT(s, HasSubstr("logscale x"));
  EXPECT_THAT(s, Not(HasSubstr("histograms")));
}

TEST(DrawPlots, WritesPngAndSvgWhenGnuplotIsInstalled) {
  if (find_gnuplot().empty()) GTEST_SKIP() << "gnuplot is not installed";
  const auto dir = std::filesystem::temp_directory_path() / "spraylab_runner_plots_test";
  std::filesystem::remove_all(dir);
  const PlotOutcome out = draw_plots(dir.string(), {variant("ofan", 9000), variant("rps", 30000)});
  ASSERT_TRUE(out.drawn) << out.message;
  EXPECT_EQ(out.files.size(), 6u);
  char magic[8] = {};
  std::ifstream(dir / "max_queue.png", std::ios::binary).read(magic, 8);
  EXPECT_EQ(std::string(magic + 1, 3), "PNG");
  std::ifstream svg(dir / "cct_cdf.svg");
  std::string text((std::istreambuf_iterator<char>(svg)), {});
  EXPECT_THAT(text, HasSubstr("<svg"));
  EXPECT_THAT(text, HasSubstr("rps"));  // the legend names the variants
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace spraylab::fabric
