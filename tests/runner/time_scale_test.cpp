// run/time_scale.h: the in-process fabric slows the experiment struct down, the namespaced fabric
// writes the same change as settings of the file its processes read. Both must give the same
// experiment, or the two modes run different experiments at the same --rate.
#include "fabric/run/time_scale.h"

#include <gtest/gtest.h>

#include <string>

#include "conf/loader.h"
#include "fabric/run/variants.h"

namespace spraylab::fabric {
namespace {

const std::string kSource = std::string(SPRAYLAB_SOURCE_DIR) + "/conf/examples/link-events.yaml";

conf::Experiment through_settings(const std::string& text, const conf::Experiment& e, double k) {
  VariantRequest request;
  for (const auto& [key, value] : slow_down_settings(e, k)) request.sets.push_back({key, {value}});
  return expand_variants(text, kSource, request).at(0).experiment;
}

void expect_same(const conf::Experiment& a, const conf::Experiment& b) {
  EXPECT_DOUBLE_EQ(a.links.rate_bps, b.links.rate_bps);
  EXPECT_DOUBLE_EQ(a.links.delay_ns, b.links.delay_ns);
  EXPECT_EQ(a.workload.retransmit_timeout_ns, b.workload.retransmit_timeout_ns);
  EXPECT_EQ(a.measurement.queue_sample_ns, b.measurement.queue_sample_ns);
  EXPECT_EQ(a.measurement.duration_ns, b.measurement.duration_ns);
  ASSERT_EQ(a.events.links.size(), b.events.links.size());
  for (size_t i = 0; i < a.events.links.size(); ++i) {
    EXPECT_EQ(a.events.links[i].at_ns, b.events.links[i].at_ns) << a.events.links[i].path;
    EXPECT_DOUBLE_EQ(a.events.links[i].rate_bps, b.events.links[i].rate_bps)
        << a.events.links[i].path;
  }
  EXPECT_EQ(a.events.random_failures_at_ns, b.events.random_failures_at_ns);
}

TEST(TimeScale, FactorIsTheFastestLinkOverTheRate) {
  const conf::Experiment e = conf::load_experiment_file(kSource);
  EXPECT_DOUBLE_EQ(slowdown_factor(e, e.links.rate_bps / 4), 4);
  EXPECT_DOUBLE_EQ(slowdown_factor(e, e.links.rate_bps * 2), 1);  // the machine keeps up
  EXPECT_DOUBLE_EQ(slowdown_factor(e, 0), 1);                     // 'file': as written
}

TEST(TimeScale, StructAndFileSettingsGiveTheSameExperiment) {
  const std::string text = conf::read_experiment_text(kSource);
  const conf::Experiment e = conf::load_experiment_string(text, kSource);
  ASSERT_EQ(e.events.links.size(), 2u);  // a rate change and a link down
  ASSERT_GT(e.events.random_link_failures, 0u);
  for (const double k : {1.5, 4.0, 1000.0}) {
    SCOPED_TRACE(k);
    conf::Experiment by_struct = e;
    slow_down(&by_struct, k);
    expect_same(by_struct, through_settings(text, e, k));
  }
}

TEST(TimeScale, EveryTimeAndRateOfTheExperimentIsScaled) {
  const conf::Experiment e = conf::load_experiment_file(kSource);
  conf::Experiment s = e;
  slow_down(&s, 10);
  EXPECT_DOUBLE_EQ(s.links.rate_bps, e.links.rate_bps / 10);
  EXPECT_DOUBLE_EQ(s.links.delay_ns, e.links.delay_ns * 10);
  EXPECT_EQ(s.workload.retransmit_timeout_ns, e.workload.retransmit_timeout_ns * 10);
  EXPECT_EQ(s.measurement.queue_sample_ns, e.measurement.queue_sample_ns * 10);
  for (size_t i = 0; i < e.events.links.size(); ++i) {
    EXPECT_EQ(s.events.links[i].at_ns, e.events.links[i].at_ns * 10);
    EXPECT_DOUBLE_EQ(s.events.links[i].rate_bps, e.events.links[i].rate_bps / 10);
  }
  EXPECT_EQ(s.events.random_failures_at_ns, e.events.random_failures_at_ns * 10);
}

TEST(TimeScale, NoSlowingDownChangesNothing) {
  const conf::Experiment e = conf::load_experiment_file(kSource);
  EXPECT_TRUE(slow_down_settings(e, 1).empty());
  conf::Experiment s = e;
  slow_down(&s, 1);
  expect_same(s, e);
}

}  // namespace
}  // namespace spraylab::fabric
