#include "trafficgen/workload.h"

#include <string>

#include "trafficgen/workloads/all_to_all.h"
#include "trafficgen/workloads/all_to_all_v.h"
#include "trafficgen/workloads/fsdp.h"
#include "trafficgen/workloads/incast.h"
#include "trafficgen/workloads/iterations.h"
#include "trafficgen/workloads/permutation.h"
#include "trafficgen/workloads/ring_all_reduce.h"
#include "trafficgen/workloads/trace.h"

namespace spraylab::gen {
namespace {

Schedule make_one(const conf::WorkloadSpec& w, uint32_t ranks, uint64_t seed) {
  if (w.type == "permutation") return permutation(ranks, w.message_bytes, seed);
  if (w.type == "all-to-all") return all_to_all(ranks, w.message_bytes);
  if (w.type == "all-to-all-v") {
    if (w.skew == "zipf") return all_to_all_v(zipf_matrix(ranks, w.message_bytes, w.zipf_s, seed));
    if (w.skew == "matrix") {
      if (w.matrix.size() != ranks) {
        throw WorkloadError("all-to-all-v: matrix has " + std::to_string(w.matrix.size()) +
                            " rows for " + std::to_string(ranks) + " ranks");
      }
      return all_to_all_v(scaled_matrix(w.matrix, w.message_bytes));
    }
    throw WorkloadError("all-to-all-v: unknown skew '" + w.skew + "' (expected zipf or matrix)");
  }
  if (w.type == "all-reduce") return ring_all_reduce(ranks, w.message_bytes);
  if (w.type == "incast") return incast(ranks, w.fan_in, w.message_bytes, seed);
  if (w.type == "fsdp") return fsdp_step(model_preset(w.model), ranks, w.layers);
  if (w.type == "trace") return load_trace(w.trace_file, ranks);
  throw WorkloadError("unknown workload type '" + w.type +
                      "' (expected permutation, all-to-all, all-to-all-v, all-reduce, incast, "
                      "fsdp or trace)");
}

}  // namespace

Schedule make_workload(const conf::WorkloadSpec& spec, uint32_t ranks, uint64_t seed) {
  Schedule s = repeat(make_one(spec, ranks, seed), spec.iterations);
  validate(s);
  return s;
}

}  // namespace spraylab::gen
