// The fabric tests need EAL, initialised once per process as the runner does: no devices, no
// hugepages, and worker lcores for the in-process fabric (two on a 2-CPU machine).
#include <gtest/gtest.h>

#include <cstdio>

#include "fabric/emu/eal.h"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  spraylab::fabric::EalOptions o;
  o.lcores = 3;
  o.memory_mb = 2048;
  spraylab::fabric::init_eal(o, "fabric_test");
  const int rc = RUN_ALL_TESTS();
  // A suite that picks its cases with --gtest_filter (repro-psp, repro-mrls) must not pass by
  // matching nothing, and GoogleTest 1.12 (Debian 12) has no --gtest_fail_if_no_test_run.
  if (rc == 0 && !GTEST_FLAG_GET(list_tests) &&
      ::testing::UnitTest::GetInstance()->test_to_run_count() == 0) {
    std::fprintf(stderr, "no test matches --gtest_filter=%s\n", GTEST_FLAG_GET(filter).c_str());
    return 1;
  }
  return rc;
}
