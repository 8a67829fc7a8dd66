#include "conf/bernoulli_check.h"

#include <fmt/format.h>

#include "conf/units.h"

namespace spraylab::conf {

std::optional<BernoulliProblem> bernoulli_problem(gen::WorkloadType type, uint64_t message_bytes,
                                                  uint32_t payload_bytes, bool load_feasible,
                                                  double load) {
  using gen::WorkloadType;
  switch (type) {
    case WorkloadType::kUniform:
    case WorkloadType::kBipartite:
      // UN and BU draw a destination per packet: one packet per message.
      if (message_bytes > payload_bytes) {
        return BernoulliProblem{
            "message_size",
            fmt::format("{} with injection: bernoulli draws a destination per packet: the "
                        "message ({}) must fit one packet (payload {} B)",
                        gen::to_string(type), format_size(message_bytes), payload_bytes)};
      }
      break;
    case WorkloadType::kPermutation:
    case WorkloadType::kSwitchPermutation:
      break;
    default:
      return BernoulliProblem{
          "injection",
          fmt::format("{} is a collective (measured by its completion time); bernoulli injects "
                      "uniform, permutation, switch-permutation or bipartite",
                      gen::to_string(type))};
  }
  if (load_feasible) {
    return BernoulliProblem{"load",
                            "with injection: bernoulli the load is a probability per packet "
                            "slot; feasible is a paced rate: give a number"};
  }
  if (load < kBernoulliMinLoad) {
    return BernoulliProblem{
        "load", fmt::format("expected at least {} arrivals per packet slot with injection: "
                            "bernoulli, found {}",
                            kBernoulliMinLoad, load)};
  }
  return std::nullopt;
}

}  // namespace spraylab::conf
