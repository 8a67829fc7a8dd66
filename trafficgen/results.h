// The generator's results as JSON (keys documented in docs/generator.md): per message and per
// collective completion time against the CCT lower bound, latency percentiles, goodput, loss and
// reordering, and every engine counter.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "trafficgen/host_engine.h"
#include "trafficgen/host_plan.h"
#include "trafficgen/stop_reason.h"

namespace spraylab::gen {

struct RunInfo {
  std::string config;
  uint64_t start_ns = 0;  // the engines' start (TSC ns)
  uint64_t end_ns = 0;    // when the loop stopped
  bool completed = false;
  StopReason stopped_by = StopReason::kCompleted;  // set when the loop stops
};

nlohmann::ordered_json results_json(const RunPlan& plan,
                                    const std::vector<const HostEngine*>& engines,
                                    const RunInfo& run);

// Every counter, summed over engines, by its name.
nlohmann::ordered_json counters_json(const std::vector<const HostEngine*>& engines);

// The lower bound of each collective (by id) for the messages `engines` send: exact for a
// permutation; for another collective the permutation bound of the busiest local sender's bytes
// over the longest path (docs/generator.md). All zero for a collective with none sent here.
std::vector<CctBound> collective_bounds(const RunPlan& plan,
                                        const std::vector<const HostEngine*>& engines);

}  // namespace spraylab::gen
