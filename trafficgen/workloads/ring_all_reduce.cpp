#include "trafficgen/workloads/ring_all_reduce.h"
#include "trafficgen/workloads/workload_type.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace spraylab::gen {

Frontier append_ring_phase(Schedule& s, RingPhase phase, uint64_t buffer_bytes, uint32_t collective,
                           uint32_t first_step, const Frontier& after) {
  std::vector<Rank> all(s.ranks);
  for (Rank r = 0; r < s.ranks; ++r) all[r] = r;
  return append_ring_phase(s, phase, buffer_bytes, collective, first_step, after, all);
}

Frontier append_ring_phase(Schedule& s, RingPhase phase, uint64_t buffer_bytes, uint32_t collective,
                           uint32_t first_step, const Frontier& after,
                           const std::vector<Rank>& members, uint32_t steps) {
  const auto n = static_cast<uint32_t>(members.size());
  if (n < 2) throw WorkloadError("ring collective: needs at least 2 ranks");
  if (buffer_bytes < n) {
    throw WorkloadError("ring collective: buffer of " + std::to_string(buffer_bytes) +
                        " bytes is smaller than one byte per rank");
  }
  const uint32_t last = steps == 0 ? n - 1 : std::min(steps, n - 1);
  // received[i]: the message members[i] received in the previous step (none before the first).
  std::vector<MessageId> received(n);
  const uint32_t shift = phase == RingPhase::kReduceScatter ? 1 : 0;
  for (uint32_t k = 0; k < last; ++k) {
    std::vector<MessageId> sent(n);
    for (uint32_t i = 0; i < n; ++i) {
      const Rank r = members[i];
      const uint32_t chunk = (i + 2 * n - k - shift) % n;  // (i - k - shift) mod n
      std::vector<MessageId> deps;
      if (k > 0) {
        deps = {received[i]};
      } else if (r < after.size()) {
        deps = after[r];
      }
      sent[i] = s.add_message(r, members[(i + 1) % n], chunk_bytes(buffer_bytes, n, chunk),
                              collective, std::move(deps), first_step + k);
    }
    for (uint32_t i = 0; i < n; ++i) received[(i + 1) % n] = sent[i];
  }
  Frontier out(s.ranks);
  for (uint32_t i = 0; i < n; ++i) out[members[i]] = {received[i]};
  return out;
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
