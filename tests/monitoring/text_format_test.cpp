// write_text is prometheus-cpp's TextSerializer, faster: the same bytes for the same families.
#include <gtest/gtest.h>
#include <prometheus/text_serializer.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "monitoring/families.h"
#include "monitoring/text_format.h"

namespace spraylab::monitoring {
namespace {

using prometheus::MetricType;

std::string ours(const std::vector<prometheus::MetricFamily>& fs) {
  std::string s;
  write_text(s, fs);
  return s;
}

std::string theirs(const std::vector<prometheus::MetricFamily>& fs) {
  return prometheus::TextSerializer().Serialize(fs);
}

TEST(TextFormat, WritesWhatTextSerializerWritesForEveryKindOfValue) {
  auto gauge = make_family({"a_gauge", MetricType::Gauge, "", "values of every kind"});
  const double values[] = {0,     1,      -1,      12345678901,      123456789012345678.0,
                           0.1,   1e-06,  2.5e-07, 1.0 / 3,          -2.75,
                           1e300, 5e-324, NAN,     INFINITY,         -INFINITY,
                           4096,  1e15,   1e16,    999999999999999.5};
  int i = 0;
  for (double v : values) add_value(gauge, {{"i", std::to_string(i++)}}, v);
  auto counter = make_family({"a_total", MetricType::Counter, "", "c"});
  add_value(counter, {}, 42);
  add_value(counter, {{"esc", "back\\slash \"quote\"\nnewline"}, {"b", ""}}, 7);
  auto untyped = make_family({"an_untyped", MetricType::Untyped, "", ""});
  add_metric(untyped, {{"k", "v"}}).untyped.value = 3.5;
  auto stamped = make_family({"stamped", MetricType::Gauge, "", "with a timestamp"});
  add_metric(stamped, {}).timestamp_ms = 1700000000123;
  auto summary = make_family({"a_summary", MetricType::Summary, "", "s"});
  auto& sm = add_metric(summary, {{"x", "y"}});
  sm.summary.sample_count = 10;
  sm.summary.sample_sum = 12.5;
  sm.summary.quantile = {{0.5, 1.25}, {0.99, NAN}};
  auto hist = make_family({"a_seconds", MetricType::Histogram, "", "h"});
  const std::vector<double> bounds = {1e-6, 2e-5, 0.5, 100};
  const std::vector<uint64_t> counts = {1, 0, 3, 0, 2};
  add_metric(hist, {{"p", "0"}}).histogram = make_histogram(bounds, counts, 250.000001);
  auto& no_inf = add_metric(hist, {}).histogram;  // buckets without +Inf: the writer adds it
  no_inf.sample_count = 4;
  no_inf.sample_sum = 1;
  no_inf.bucket = {{1, 0.25}, {3, 1}};
  auto empty = make_family({"no_samples", MetricType::Gauge, "", "nothing"});
  const std::vector<prometheus::MetricFamily> fs = {gauge,   counter, untyped, stamped,
                                                    summary, hist,    empty};
  EXPECT_EQ(ours(fs), theirs(fs));
}

TEST(TextFormat, HelpTextEscapesBackslashAndNewlineOnly) {
  auto g = make_family({"g", MetricType::Gauge, "", "a \"quoted\" back\\slash\nnewline"});
  add_value(g, {}, 1);
  EXPECT_EQ(ours({g}), "# HELP g a \"quoted\" back\\\\slash\\nnewline\n# TYPE g gauge\ng 1\n");
}

TEST(TextFormat, AppendsToWhatIsThere) {
  auto g = make_family({"g", MetricType::Gauge, "", "h"});
  add_value(g, {}, 1);
  std::string s = "x\n";
  write_text(s, {g});
  EXPECT_EQ(s, "x\n# HELP g h\n# TYPE g gauge\ng 1\n");
}

}  // namespace
}  // namespace spraylab::monitoring
