#include "trafficgen/bounds/collective_bound.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <stdexcept>

namespace spraylab::gen {
namespace {

// A bound from a wire that cannot carry a frame, or from messages the schedule does not have,
// would be a number that means nothing: refuse it, saying what is wrong.
void check(const CollectiveBoundInput& in) {
  const BoundWire& w = in.wire;
  if (!(w.rate_bps > 0)) throw std::invalid_argument("collective bound: the link rate must be > 0");
  if (!(w.link_delay_ns >= 0)) {
    throw std::invalid_argument("collective bound: the link delay must be >= 0");
  }
  if (w.payload_bytes == 0 || w.ack_every == 0) {
    throw std::invalid_argument("collective bound: payload_bytes and ack_every must be >= 1");
  }
  if (in.schedule == nullptr || in.hops == nullptr) {
    throw std::invalid_argument("collective bound: no schedule or no hops per message");
  }
  for (MessageId id : in.messages) {
    if (id >= in.schedule->messages.size() || id >= in.hops->size()) {
      throw std::invalid_argument(fmt::format(
          "collective bound: message {} is not in the schedule ({} messages, {} with hops)", id,
          in.schedule->messages.size(), in.hops->size()));
    }
    if ((*in.hops)[id] == 0) {
      throw std::invalid_argument(
          fmt::format("collective bound: message {} has a path of 0 links", id));
    }
  }
}

}  // namespace

CctBound appendix_a_bound(const CollectiveBoundInput& in) {
  std::map<Rank, uint64_t> bytes_per_sender;
  uint32_t hops = 1;
  for (MessageId id : in.messages) {
    const Message& m = in.schedule->messages[id];
    bytes_per_sender[m.src] += m.bytes;
    hops = std::max(hops, (*in.hops)[id]);
  }
  uint64_t busiest = 0;
  for (const auto& [src, bytes] : bytes_per_sender) busiest = std::max(busiest, bytes);
  if (busiest == 0) return {};
  PathModel p = in.permutation_path;
  p.hops = hops;
  return permutation_cct_bound(p, busiest, in.wire.payload_bytes);
}

CollectiveBound collective_bound(const CollectiveBoundInput& in) {
  CollectiveBound b;
  if (in.messages.empty()) return b;
  check(in);
  // Appendix A follows one host link that carries one message out and one in: a permutation's,
  // by symmetry. It stays the permutation's bound, to the ns, as the paper computes it.
  if (in.workload == WorkloadType::kPermutation) {
    b.kind = BoundKind::kPermutationAppendixA;
    b.appendix_a = appendix_a_bound(in);
    b.total_ns = b.appendix_a.total_ns;
    return b;
  }
  b.per_host = per_host_bound(*in.schedule, in.messages, *in.hops, in.wire);
  b.total_ns = b.per_host.total_ns;
  if (has_dependencies_within(*in.schedule, in.messages)) {
    b.kind = BoundKind::kSteps;
    b.steps = critical_path_bound(*in.schedule, in.messages, *in.hops, in.wire);
    b.total_ns = std::max(b.total_ns, b.steps.total_ns);
  }
  return b;
}

}  // namespace spraylab::gen
