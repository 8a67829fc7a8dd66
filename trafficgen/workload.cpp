#include "trafficgen/workload.h"

#include <stdexcept>
#include <string>

#include "trafficgen/workloads/all_to_all.h"
#include "trafficgen/workloads/all_to_all_v.h"
#include "trafficgen/workloads/bipartite.h"
#include "trafficgen/workloads/fsdp.h"
#include "trafficgen/workloads/incast.h"
#include "trafficgen/workloads/iterations.h"
#include "trafficgen/workloads/permutation.h"
#include "trafficgen/workloads/placement.h"
#include "trafficgen/workloads/ring_all_reduce.h"
#include "trafficgen/workloads/switch_permutation.h"
#include "trafficgen/workloads/trace.h"
#include "trafficgen/workloads/uniform.h"

namespace spraylab::gen {
namespace {

Schedule all_to_all_v_of(const conf::WorkloadSpec& w, uint32_t ranks, uint64_t seed) {
  switch (w.skew) {
    case Skew::kZipf:
      return all_to_all_v(zipf_matrix(ranks, w.message_bytes, w.zipf_s, seed));
    case Skew::kMatrix:
      if (w.matrix.size() != ranks) {
        throw WorkloadError("all-to-all-v: matrix has " + std::to_string(w.matrix.size()) +
                            " rows for " + std::to_string(ranks) + " ranks");
      }
      return all_to_all_v(scaled_matrix(w.matrix, w.message_bytes));
  }
  throw std::logic_error("all-to-all-v: a skew without a case");
}

Schedule make_one(const conf::WorkloadSpec& w, uint32_t ranks, uint64_t seed,
                  const std::vector<uint32_t>& leaf_of_rank) {
  switch (w.type) {
    case WorkloadType::kPermutation:
      return permutation(ranks, w.message_bytes, seed);
    case WorkloadType::kAllToAll:
      return all_to_all(ranks, w.message_bytes, w.order, seed);
    case WorkloadType::kAllToAllV:
      return all_to_all_v_of(w, ranks, seed);
    case WorkloadType::kAllReduce:
      return ring_all_reduce(ranks, w.message_bytes);
    case WorkloadType::kIncast:
      return incast(ranks, w.fan_in, w.message_bytes, seed);
    case WorkloadType::kFsdp:
      return fsdp_step(w.fsdp, ranks);
    case WorkloadType::kTrace:
      return load_trace(w.trace_file, ranks);
    case WorkloadType::kUniform:
      return uniform(ranks, w.messages, w.message_bytes, seed);
    case WorkloadType::kSwitchPermutation:
      if (leaf_of_rank.size() != ranks) {
        throw WorkloadError("switch-permutation: needs the topology's leaves");
      }
      return switch_permutation(leaf_of_rank, w.messages, w.message_bytes, seed);
    case WorkloadType::kBipartite:
      if (leaf_of_rank.size() != ranks)
        throw WorkloadError("bipartite: needs the topology's leaves");
      return bipartite(leaf_of_rank, w.messages, w.message_bytes, seed);
  }
  throw std::logic_error("a workload type without a case");  // the enum is exhaustive
}

}  // namespace

Schedule make_workload(const conf::WorkloadSpec& spec, uint32_t ranks, uint64_t seed,
                       const std::vector<uint32_t>& leaf_of_rank) {
  Schedule one = make_one(spec, ranks, seed, leaf_of_rank);
  if (spec.placement == Placement::kRandom) {
    // These two already place their traffic by leaf; a random relabelling would undo it.
    if (spec.type == WorkloadType::kSwitchPermutation || spec.type == WorkloadType::kBipartite) {
      throw WorkloadError(std::string(to_string(spec.type)) +
                          ": placement random would mix the leaves it pairs; use placement rank");
    }
    place(one, random_placement(ranks, seed));
  }
  Schedule s = repeat(one, spec.iterations);
  validate(s);
  return s;
}

}  // namespace spraylab::gen
