// One FSDP training step (PyTorch FSDP2, as evaluated in Ofan §6.7): parameters are sharded over
// all ranks per unit (the embedding, each transformer layer, the output head). For each unit in
// order the ranks all-gather its parameters, then reduce-scatter its gradients, both as ring
// collectives; each collective waits, per rank, for that rank's traffic in the previous one.
// Compute time is not modelled: the step is the network's share of a training step.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trafficgen/schedule.h"

namespace spraylab::gen {

// A decoder-only transformer with grouped-query attention and a SwiGLU feed-forward network (the
// Llama 3 architecture, "The Llama 3 Herd of Models", Table 3), untied input/output embeddings.
struct TransformerModel {
  std::string name;
  uint32_t layers = 0;
  uint64_t hidden = 0;
  uint64_t ffn = 0;
  uint32_t heads = 0;
  uint32_t kv_heads = 0;
  uint64_t vocab = 0;
  uint32_t bytes_per_param = 2;  // bf16
};

// Presets: "llama3-405b" (126 layers, hidden 16384, FFN 53248, 128/8 heads, vocab 128256:
// 405,853,388,800 parameters, the "405B" model), "llama3-70b", "llama3-8b". Throws WorkloadError
// for other names.
TransformerModel model_preset(const std::string& name);

// A unit FSDP shards and gathers as one: its name and its parameter count.
struct ShardUnit {
  std::string name;
  uint64_t params = 0;
};

// embedding (vocab·hidden), layer.0 … layer.L-1, output (final norm + head, hidden + vocab·hidden).
// layers = 0 keeps the model's; fewer truncates the stack (a smaller run of the same shape).
std::vector<ShardUnit> shard_units(const TransformerModel& m, uint32_t layers = 0);
// Parameters of one transformer layer: attention (Q, O: hidden²; K, V: hidden·kv_heads·head_dim),
// SwiGLU FFN (3·hidden·ffn), two RMSNorm weight vectors.
uint64_t layer_params(const TransformerModel& m);
uint64_t parameter_count(const TransformerModel& m);

// The step: per unit, an all-gather then a reduce-scatter over the unit's parameter bytes.
Schedule fsdp_step(const TransformerModel& m, uint32_t ranks, uint32_t layers = 0);

}  // namespace spraylab::gen
