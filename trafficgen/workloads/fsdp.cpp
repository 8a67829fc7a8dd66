#include "trafficgen/workloads/fsdp.h"

#include "trafficgen/workloads/ring_all_reduce.h"
#include "trafficgen/workloads/workload_type.h"

namespace spraylab::gen {

TransformerModel model_preset(const std::string& name) {
  // Llama 3 Herd of Models, Table 3; all three share the 128256-token vocabulary and 8 KV heads.
  if (name == "llama3-405b") return {name, 126, 16384, 53248, 128, 8, 128256, 2};
  if (name == "llama3-70b") return {name, 80, 8192, 28672, 64, 8, 128256, 2};
  if (name == "llama3-8b") return {name, 32, 4096, 14336, 32, 8, 128256, 2};
  throw WorkloadError("fsdp: unknown model '" + name +
                      "' (expected llama3-405b, llama3-70b or llama3-8b)");
}

uint64_t layer_params(const TransformerModel& m) {
  const uint64_t head_dim = m.hidden / m.heads;
  const uint64_t kv_dim = m.kv_heads * head_dim;
  const uint64_t attention = 2 * m.hidden * m.hidden + 2 * m.hidden * kv_dim;
  const uint64_t ffn = 3 * m.hidden * m.ffn;  // gate, up, down projections
  const uint64_t norms = 2 * m.hidden;
  return attention + ffn + norms;
}

std::vector<ShardUnit> shard_units(const TransformerModel& m, uint32_t layers) {
  if (layers > m.layers) {
    throw WorkloadError("fsdp: " + m.name + " has " + std::to_string(m.layers) +
                        " layers, asked for " + std::to_string(layers));
  }
  const uint32_t count = layers == 0 ? m.layers : layers;
  std::vector<ShardUnit> units;
  units.push_back({"embedding", m.vocab * m.hidden});
  for (uint32_t l = 0; l < count; ++l)
    units.push_back({"layer." + std::to_string(l), layer_params(m)});
  units.push_back({"output", m.hidden + m.vocab * m.hidden});
  return units;
}

uint64_t parameter_count(const TransformerModel& m) {
  uint64_t sum = 0;
  for (const ShardUnit& u : shard_units(m)) sum += u.params;
  return sum;
}

Schedule fsdp_step(const TransformerModel& m, uint32_t ranks, uint32_t layers) {
  Schedule s;
  s.ranks = ranks;
  Frontier after;  // nothing before the first collective
  for (const ShardUnit& u : shard_units(m, layers)) {
    const uint64_t bytes = u.params * m.bytes_per_param;
    for (RingPhase phase : {RingPhase::kAllGather, RingPhase::kReduceScatter}) {
      const char* kind = phase == RingPhase::kAllGather ? "all-gather" : "reduce-scatter";
      const uint32_t c =
          s.add_collective(std::string(to_string(WorkloadType::kFsdp)) + "." + kind + "." + u.name);
      const auto first = static_cast<MessageId>(s.messages.size());
      append_ring_phase(s, phase, bytes, c, 0, after);
      after = terminal_messages(s, first, static_cast<MessageId>(s.messages.size()));
    }
  }
  return s;
}

}  // namespace spraylab::gen
