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

// conf/examples/demo.yaml's fabric: a k = 4 fat tree at 100 Gb/s, 800 KB buffers, a 1 MB
// permutation, under `algorithm` and the host congestion control `cc`.
inline std::string demo_with_cc(const std::string& algorithm, const std::string& cc) {
  return R"(seed: 1
topology: {generator: fat-tree, k: 4, levels: 3}
links: {rate: 100Gbps, delay: 500ns}
buffer: {bytes: 800KB}
load_balancer: {algorithm: )" +
         algorithm + R"(}
workload: {type: permutation, message_size: 1MB, payload: 4096, cc: )" +
         cc + R"(}
measurement: {queue_sample: 10us}
)";
}

// The lossless-link tests' incast (pfc_test, credit_test): 8 senders, 256 KB each, into one host
// of a k = 4 fat tree at line rate (cc none), with the buffer section `buffer` (a YAML map).
inline std::string incast_8_to_1(const std::string& buffer) {
  return R"(seed: 5
topology: {generator: fat-tree, k: 4, levels: 3}
links: {rate: 100Gbps, delay: 500ns}
buffer: )" + buffer + R"(
load_balancer: {algorithm: ofan}
workload: {type: incast, fan_in: 8, message_size: 256KB, payload: 4096, cc: none}
measurement: {queue_sample: 1us}
)";
}

// The generator's counter `name` (it must exist: a missing one throws, never reads as 0).
inline uint64_t generator_counter(const FabricResult& r, const char* name) {
  return r.generator.at("counters").at(name).get<uint64_t>();
}

// Frames every switch port dropped, all reasons.
inline uint64_t switch_drops(const FabricResult& r) {
  uint64_t n = 0;
  for (const PortSummary& p : r.ports) n += p.drops;
  return n;
}

inline FabricResult run_virtual(const conf::Experiment& e) {
  FabricOptions o;
  o.mode = Mode::kVirtual;
  o.max_wall_seconds = 60;
  return run_fabric(e, o);
}

}  // namespace spraylab::fabric::testing
