// EAL for a test process that runs DPDK in itself (net_ring ports, no devices): no PCI, no
// hugepages, no shared config, no telemetry, one lcore, and a --file-prefix of its own,
// "<program>-<pid>". EAL makes its runtime folder (/var/run/dpdk/<prefix>) even with --no-shconf
// and DPDK 22.11 never removes it: with the default prefix every such test shared
// /var/run/dpdk/rte (and its telemetry socket) and left it behind. An atexit handler removes the
// folder; rmdir removes only an empty one, which is all --no-shconf and --no-telemetry leave (no
// config file, no IPC or telemetry socket), as fabric/emu/eal.cpp does for the fabrics.
#pragma once

#include <rte_eal.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace spraylab::testing {

inline std::string eal_file_prefix(const char* program) {
  return std::string(program) + "-" + std::to_string(getpid());
}

// True if EAL started (then its folder goes at exit).
inline bool init_test_eal(const char* program, unsigned memory_mb) {
  std::vector<std::string> args = {program,
                                   "--no-pci",
                                   "--no-shconf",
                                   "--no-huge",
                                   "--no-telemetry",
                                   "-m",
                                   std::to_string(memory_mb),
                                   "--lcores",
                                   "0",
                                   "--file-prefix",
                                   eal_file_prefix(program),
                                   "--log-level",
                                   "lib.eal:error"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  if (rte_eal_init(static_cast<int>(argv.size()), argv.data()) < 0) return false;
  static const std::string runtime_dir = rte_eal_get_runtime_dir();
  std::atexit([] { rmdir(runtime_dir.c_str()); });
  return true;
}

}  // namespace spraylab::testing
