// injection: bernoulli, the MRLS paper's per-slot source, injects only the patterns it is made for
// (docs/workloads.md, "Injection"). One rule for the loader, which says it at the file's key, and
// the host plan, which also sees spraylab-gen's --payload and load.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "trafficgen/workloads/workload_type.h"

namespace spraylab::conf {

// Below this a host would draw 10^4 packet slots per arrival.
inline constexpr double kBernoulliMinLoad = 1e-4;

struct BernoulliProblem {
  std::string_view key;  // the workload key at fault: injection, message_size or load
  std::string message;
};

// What is wrong with injecting `type` by Bernoulli arrivals, or nullopt.
std::optional<BernoulliProblem> bernoulli_problem(gen::WorkloadType type, uint64_t message_bytes,
                                                  uint32_t payload_bytes, bool load_feasible,
                                                  double load);

}  // namespace spraylab::conf
