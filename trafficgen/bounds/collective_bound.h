// One lower bound per collective, chosen by its workload (docs/workloads.md, "The CCT lower
// bound"): a permutation keeps the Ofan paper's appendix A model (cct_bound.h); any other
// collective gets the per-host bound (per_host_bound.h), and one whose messages wait for each
// other the larger of that and the critical path through them (steps_bound.h).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "trafficgen/bounds/bound_kind.h"
#include "trafficgen/bounds/bound_wire.h"
#include "trafficgen/bounds/per_host_bound.h"
#include "trafficgen/bounds/steps_bound.h"
#include "trafficgen/cct_bound.h"
#include "trafficgen/schedule.h"
#include "trafficgen/workloads/workload_type.h"

namespace spraylab::gen {

struct CollectiveBound {
  BoundKind kind = BoundKind::kPerHost;
  double total_ns = 0;    // 0: no message counted
  CctBound appendix_a;    // kPermutationAppendixA
  PerHostBound per_host;  // kPerHost and kSteps
  StepsBound steps;       // kSteps
};

// What a collective's bound reads. `messages`: the collective's messages that count (those sent
// by the hosts whose results these are: in one fabric, all of them).
struct CollectiveBoundInput {
  WorkloadType workload = WorkloadType::kPermutation;
  const Schedule* schedule = nullptr;
  std::span<const MessageId> messages;
  const std::vector<uint32_t>* hops = nullptr;  // links per message, by id
  // Appendix A's path model as the run plan has it (the pacing rate, or the link rate); its hops
  // are set to the collective's longest path.
  PathModel permutation_path;
  BoundWire wire;  // the per-host and critical-path bounds' (the host link rate)
};

CollectiveBound collective_bound(const CollectiveBoundInput& in);

// The permutation's bound as it always was: appendix A for the busiest sender's bytes over the
// collective's longest path.
CctBound appendix_a_bound(const CollectiveBoundInput& in);

}  // namespace spraylab::gen
