#include "trafficgen/workloads/uniform.h"

#include <string>

#include "trafficgen/rng.h"
#include "trafficgen/workloads/workload_type.h"

namespace spraylab::gen {

Schedule uniform(uint32_t ranks, uint32_t messages, uint64_t bytes, uint64_t seed) {
  if (ranks < 2) throw WorkloadError("uniform: needs at least 2 ranks");
  if (bytes == 0) throw WorkloadError("uniform: message_bytes must be > 0");
  if (messages == 0) throw WorkloadError("uniform: messages must be > 0");
  Rng rng(seed);
  Schedule s;
  s.ranks = ranks;
  const uint32_t c = s.add_collective(std::string(to_string(WorkloadType::kUniform)));
  // Room for them all at once: growing by doubling moved every message (72 B and a vector) about
  // twice, 6 % of a 1296-host run's samples at 420 messages a host.
  s.messages.reserve(size_t{ranks} * messages);
  for (Rank r = 0; r < ranks; ++r) {
    for (uint32_t i = 0; i < messages; ++i) {
      // A draw among the ranks - 1 others: skip r itself.
      auto dst = static_cast<Rank>(rng.below(ranks - 1));
      if (dst >= r) ++dst;
      s.add_message(r, dst, bytes, c);
    }
  }
  return s;
}

}  // namespace spraylab::gen
