// Shared by the fabric tests: small experiments as YAML, and run helpers.
#pragma once

#include <string>

#include "conf/loader.h"
#include "fabric/emu/run_fabric.h"
#include "fabric/run/result.h"

namespace spraylab::fabric::testing {

inline conf::Experiment experiment(const std::string& yaml) {
  return conf::load_experiment_string(yaml, "test.yaml");
}

// The issue's small fabric: a 16-host 3-level fat tree (k = 4) and a 64 KB permutation.
inline std::string fat_tree_16(const std::string& algorithm, uint64_t seed = 1) {
  return "seed: " + std::to_string(seed) + R"(
topology: {generator: fat-tree, k: 4, levels: 3}
links: {rate: 100Gbps, delay: 500ns}
buffer: {bytes: 800KB}
load_balancer: {algorithm: )" +
         algorithm + R"(}
workload: {type: permutation, message_size: 64KB, payload: 4096}
measurement: {queue_sample: 200ns}
)";
}

inline FabricResult run_virtual(const conf::Experiment& e) {
  FabricOptions o;
  o.mode = Mode::kVirtual;
  o.max_wall_seconds = 60;
  return run_fabric(e, o);
}

}  // namespace spraylab::fabric::testing
