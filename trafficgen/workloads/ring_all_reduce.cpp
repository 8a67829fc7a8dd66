#include "trafficgen/workloads/ring_all_reduce.h"
#include "trafficgen/workloads/workload_type.h"

#include <string>
#include <utility>
#include <vector>

namespace spraylab::gen {

Frontier append_ring_phase(Schedule& s, RingPhase phase, uint64_t buffer_bytes, uint32_t collective,
                           uint32_t first_step, const Frontier& after) {
  const uint32_t n = s.ranks;
  if (n < 2) throw WorkloadError("ring collective: needs at least 2 ranks");
  if (buffer_bytes < n) {
    throw WorkloadError("ring collective: buffer of " + std::to_string(buffer_bytes) +
                        " bytes is smaller than one byte per rank");
  }
  // received[r]: the message rank r received in the previous step (none before the first).
  std::vector<MessageId> received(n);
  const uint32_t shift = phase == RingPhase::kReduceScatter ? 1 : 0;
  for (uint32_t k = 0; k + 1 < n; ++k) {
    std::vector<MessageId> sent(n);
    for (Rank r = 0; r < n; ++r) {
      const uint32_t chunk = (r + 2 * n - k - shift) % n;  // (r - k - shift) mod n
      std::vector<MessageId> deps;
      if (k > 0) {
        deps = {received[r]};
      } else if (r < after.size()) {
        deps = after[r];
      }
      sent[r] = s.add_message(r, (r + 1) % n, chunk_bytes(buffer_bytes, n, chunk), collective,
                              std::move(deps), first_step + k);
    }
    for (Rank r = 0; r < n; ++r) received[(r + 1) % n] = sent[r];
  }
  Frontier last(n);
  for (Rank r = 0; r < n; ++r) last[r] = {received[r]};
  return last;
}

Schedule ring_all_reduce(uint32_t ranks, uint64_t buffer_bytes) {
  Schedule s;
  s.ranks = ranks;
  const uint32_t c = s.add_collective(std::string(to_string(WorkloadType::kAllReduce)));
  const Frontier scattered =
      append_ring_phase(s, RingPhase::kReduceScatter, buffer_bytes, c, 0, {});
  append_ring_phase(s, RingPhase::kAllGather, buffer_bytes, c, ranks - 1, scattered);
  return s;
}

}  // namespace spraylab::gen
