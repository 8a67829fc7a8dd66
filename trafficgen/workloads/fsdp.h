// One FSDP training step (PyTorch FSDP2, as evaluated in Ofan §6.7): parameters are sharded over
// a data-parallel group of ranks per unit (the embedding, each transformer layer, the output head).
// For each unit in order the group all-gathers its parameters, then reduce-scatters its
// gradients, both as ring collectives; each collective waits, per rank, for that rank's traffic in
// the previous one. With groups smaller than the ranks (HSDP), each group is a replica and the
// reduce-scattered gradient shard is then all-reduced (ring) over the replicas holding it.
// Compute time is not modelled: the step is the network's share of a training step.
// docs/workloads.md, "FSDP2", derives Llama 3 405B's bytes per unit from this description.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "trafficgen/schedule.h"
#include "trafficgen/workloads/fsdp_spec.h"

namespace spraylab::gen {

// A decoder-only transformer with grouped-query attention and a SwiGLU feed-forward network (the
// Llama 3 architecture, "The Llama 3 Herd of Models", Table 3), untied input/output embeddings.
// Its architecture numbers are fsdp_spec.h's ModelNumbers, declared once.
struct TransformerModel : ModelNumbers {
  std::string name;
  uint32_t bytes_per_param = 2;  // bf16
};

// An incomplete or inconsistent model description: the key at fault and what is wrong with it
// (the loader reports it at that key's line and column).
class FsdpModelError : public WorkloadError {
 public:
  FsdpModelError(std::string key, const std::string& detail)
      : WorkloadError("fsdp: workload." + key + ": " + detail),
        key_(std::move(key)),
        detail_(detail) {}
  const std::string& key() const { return key_; }
  const std::string& detail() const { return detail_; }

 private:
  std::string key_;
  std::string detail_;
};

// Presets: "llama3-405b" (126 layers, hidden 16384, FFN 53248, 128/8 heads, vocab 128256:
// 405,853,388,800 parameters, the "405B" model), "llama3-70b", "llama3-8b". Throws FsdpModelError
// for other names.
TransformerModel model_preset(const std::string& name);
// The preset with the spec's non-zero architecture numbers in place of its own ("custom": all of
// them, none may be 0). Throws FsdpModelError naming the key for an incomplete or inconsistent
// description (heads not dividing hidden, kv_heads not dividing heads, layers beyond the model's).
TransformerModel describe_model(const FsdpSpec& spec);

// A unit FSDP shards and gathers as one: its name and its parameter count.
struct ShardUnit {
  std::string name;
  uint64_t params = 0;
};

// embedding (vocab·hidden), layer.0 … layer.L-1, output (final norm + head, hidden + vocab·hidden).
// layers = 0 keeps the model's; fewer truncates the stack (a smaller run of the same shape).
std::vector<ShardUnit> shard_units(const TransformerModel& m, uint32_t layers = 0,
                                   bool embeddings = true);
// Parameters of one transformer layer: attention (Q, O: hidden²; K, V: hidden·kv_heads·head_dim),
// SwiGLU FFN (3·hidden·ffn), two RMSNorm weight vectors.
uint64_t layer_params(const TransformerModel& m);
uint64_t parameter_count(const TransformerModel& m);

// The bytes of one unit's collectives over a shard group of g ranks (ring algorithm): the buffer
// each phase gathers or reduces, a rank's shard of it (a ring chunk), what each rank sends in the
// phase ((g − 1) chunks) and the group's total on the wire ((g − 1)·buffer).
struct RingBytes {
  uint64_t buffer = 0;
  uint64_t chunk = 0;  // the largest chunk (chunks differ by at most a byte)
  uint64_t per_rank = 0;
  uint64_t group_total = 0;
};
RingBytes ring_bytes(uint64_t params, uint32_t bytes_per_param, uint32_t group);

// The shard groups: FSDP2's DeviceMesh lays the ranks out row-major, the shard dimension
// innermost, so group j holds ranks j·g … j·g + g − 1. Throws WorkloadError when g does not divide
// the ranks or is 1 (0 = one group of every rank).
std::vector<std::vector<Rank>> shard_groups(uint32_t ranks, uint32_t group);

// The step: per unit, an all-gather of the parameter bytes and a reduce-scatter of the gradient
// bytes in every shard group, then (HSDP) the ring all-reduce of each shard over the replicas.
Schedule fsdp_step(const FsdpSpec& spec, uint32_t ranks);

}  // namespace spraylab::gen
