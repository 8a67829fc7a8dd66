#include "trafficgen/workloads/all_to_all.h"
#include "trafficgen/workloads/workload_type.h"

namespace spraylab::gen {

Schedule all_to_all(uint32_t ranks, uint64_t bytes) {
  if (ranks < 2) throw WorkloadError("all-to-all: needs at least 2 ranks");
  if (bytes == 0) throw WorkloadError("all-to-all: message_bytes must be > 0");
  Schedule s;
  s.ranks = ranks;
  const uint32_t c = s.add_collective(std::string(to_string(WorkloadType::kAllToAll)));
  for (Rank src = 0; src < ranks; ++src) {
    for (Rank dst = 0; dst < ranks; ++dst) {
      if (src != dst) s.add_message(src, dst, bytes, c);
    }
  }
  return s;
}

}  // namespace spraylab::gen
