// When a run's numbers measure the machine more than the fabric (issue 43, point 2; docs/runner.md
// "Machine-bound results"): the rule of fabric/run/machine_bound.h, and the table's one line.
#include "fabric/run/machine_bound.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fabric/results/table.h"

namespace spraylab::fabric {
namespace {

using ::testing::HasSubstr;

TEST(MachineBound, VirtualTimeNeverIs) {
  EXPECT_EQ(machine_bound_reason({.mode = Mode::kVirtual, .cpus = 1, .threads = 100}), "");
}

TEST(MachineBound, NamespacedIsWhenProcessesOutnumberCpus) {
  EXPECT_THAT(machine_bound_reason({.mode = Mode::kNamespaced, .cpus = 2, .threads = 28}),
              HasSubstr("28 processes on 2 CPUs"));
  EXPECT_EQ(machine_bound_reason({.mode = Mode::kNamespaced, .cpus = 8, .threads = 5}), "");
}

TEST(MachineBound, InProcessIsWhenFramesWaitLongerThanAFrameTakes) {
  MachineShare s{.mode = Mode::kInProcess, .cpus = 2, .threads = 2};
  s.frame_ns = 33'000;  // 4 KB at 1 Gb/s
  s.mean_late_ns = 5'000;
  EXPECT_EQ(machine_bound_reason(s), "");
  s.frame_ns = 330;  // at 100 Gb/s
  EXPECT_THAT(machine_bound_reason(s),
              HasSubstr("frames waited 5.0 us on average for their node to take them, longer "
                        "than a frame takes on a link (0.3 us)"));
  s = {.mode = Mode::kInProcess, .cpus = 2, .threads = 3, .mean_late_ns = 0, .frame_ns = 1};
  EXPECT_THAT(machine_bound_reason(s), HasSubstr("3 lcores on 2 CPUs"));
}

TEST(MachineBound, TheTableSaysSoInOneLineAndNamesTheVariants) {
  VariantSummary a, b;
  a.variant = "ofan";
  b.variant = "rps";
  EXPECT_EQ(machine_bound_note({a, b}), "");
  b.machine_bound = "28 processes on 2 CPUs: ...";
  EXPECT_EQ(machine_bound_note({a, b}),
            "machine-bound (rps): these numbers measure this machine more than the fabric: 28 "
            "processes on 2 CPUs: ...\n");
  a.machine_bound = b.machine_bound;
  EXPECT_THAT(format_table({a, b}), HasSubstr("\nmachine-bound (every variant): "));
}

}  // namespace
}  // namespace spraylab::fabric
