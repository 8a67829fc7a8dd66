// NSCC and MSwift (workload.cc: nscc, mswift) in virtual time on the demo's fabric (issue 36):
// every message completes, the windows report under their algorithm's name, and the same seed
// gives the same results.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "fabric/run/result.h"
#include "tests/fabric/fabric_test_util.h"

namespace spraylab::fabric {
namespace {

using testing::experiment;

void expect_complete(const FabricResult& r, const std::string& cc) {
  ASSERT_TRUE(r.completed) << gen::to_string(r.stopped_by);
  const auto& g = r.generator;
  EXPECT_EQ(g["loss"]["missing_at_end"].get<uint64_t>(), 0u);
  for (const auto& c : g["collectives"]) {
    EXPECT_EQ(c["completed_messages"], c["messages"]);
  }
  const auto& w = g["congestion_control"];
  EXPECT_EQ(w["algorithm"], cc);
  EXPECT_EQ(w["flows"].get<uint64_t>(), 16u);
  std::printf("%s: CCT %.1f us, %lu timeouts, %lu window cuts, cwnd %.0f..%.0f B\n", cc.c_str(),
              g["collectives"][0]["cct_ns"].get<double>() / 1e3,
              static_cast<unsigned long>(g["loss"]["timeouts"].get<uint64_t>()),
              static_cast<unsigned long>(w["window_cuts"].get<uint64_t>()),
              w["cwnd_bytes_over_run"]["lowest"].get<double>(),
              w["cwnd_bytes_over_run"]["highest"].get<double>());
}

TEST(SprayingCc, NsccCompletesEveryMessageAndCutsOnEcmpsCollisions) {
  for (const char* alg : {"ecmp", "rps", "ofan"}) {
    SCOPED_TRACE(alg);
    const FabricResult r = testing::run_virtual(experiment(testing::demo_with_cc(alg, "nscc")));
    expect_complete(r, "nscc");
  }
  // ECMP's colliding flows are marked and delayed: NSCC cuts their windows.
  const FabricResult ecmp = testing::run_virtual(experiment(testing::demo_with_cc("ecmp", "nscc")));
  EXPECT_GT(ecmp.generator["counters"]["rx_ecn_echoes"].get<uint64_t>(), 0u);
  EXPECT_GT(ecmp.generator["congestion_control"]["window_cuts"].get<uint64_t>(), 0u);
}

TEST(SprayingCc, MswiftCompletesEveryMessage) {
  for (const char* alg : {"ecmp", "rps", "ofan"}) {
    SCOPED_TRACE(alg);
    const FabricResult r = testing::run_virtual(experiment(testing::demo_with_cc(alg, "mswift")));
    expect_complete(r, "mswift");
  }
}

TEST(SprayingCc, SameSeedGivesIdenticalResults) {
  for (const char* cc : {"nscc", "mswift"}) {
    const conf::Experiment e = experiment(testing::demo_with_cc("rps", cc));
    const FabricResult a = testing::run_virtual(e);
    const FabricResult b = testing::run_virtual(e);
    EXPECT_EQ(a.generator.dump(), b.generator.dump()) << cc;
    EXPECT_EQ(a.clock_ns, b.clock_ns) << cc;
  }
}

}  // namespace
}  // namespace spraylab::fabric
