// The reproduction tests (issue 14, results 7 and 8): small, deterministic virtual-time versions
// of the PSP and MRLS papers' shapes. Virtual time needs only the main lcore.
#include <gtest/gtest.h>

#include "fabric/eal.h"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  spraylab::fabric::EalOptions o;
  o.lcores = 1;
  o.memory_mb = 1024;
  spraylab::fabric::init_eal(o, "repro_test");
  return RUN_ALL_TESTS();
}
