// The fabric tests need EAL, initialised once per process as the runner does: no devices, no
// hugepages, and worker lcores for the in-process fabric (two on a 2-CPU machine).
#include <gtest/gtest.h>

#include "fabric/emu/eal.h"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  spraylab::fabric::EalOptions o;
  o.lcores = 3;
  o.memory_mb = 2048;
  spraylab::fabric::init_eal(o, "fabric_test");
  return RUN_ALL_TESTS();
}
