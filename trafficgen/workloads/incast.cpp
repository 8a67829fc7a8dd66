#include "trafficgen/workloads/incast.h"

#include <numeric>
#include <string>
#include <utility>

#include "trafficgen/rng.h"
#include "trafficgen/workloads/workload_type.h"

namespace spraylab::gen {

Schedule incast(uint32_t ranks, uint32_t fan_in, uint64_t bytes, uint64_t seed) {
  if (fan_in == 0 || fan_in >= ranks) {
    throw WorkloadError("incast: fan_in must be in 1.." + std::to_string(ranks - 1) + " for " +
                        std::to_string(ranks) + " ranks, got " + std::to_string(fan_in));
  }
  if (bytes == 0) throw WorkloadError("incast: message_bytes must be > 0");
  // A partial Fisher-Yates shuffle: position 0 is the receiver, 1..fan_in the senders.
  Rng rng(seed);
  std::vector<Rank> order(ranks);
  std::iota(order.begin(), order.end(), 0);
  for (uint32_t i = 0; i <= fan_in; ++i) std::swap(order[i], order[i + rng.below(ranks - i)]);
  Schedule s;
  s.ranks = ranks;
  const uint32_t c = s.add_collective(std::string(to_string(WorkloadType::kIncast)));
  for (uint32_t i = 1; i <= fan_in; ++i) {
    s.add_message(order[i], order[0], bytes, c);
  }
  return s;
}

}  // namespace spraylab::gen
