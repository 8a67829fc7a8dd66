#include "trafficgen/workloads/fsdp.h"

#include <string>
#include <utility>

#include "trafficgen/workloads/ring_all_reduce.h"
#include "trafficgen/workloads/workload_type.h"

namespace spraylab::gen {
namespace {

// One ring phase in every group of `groups`, as one collective named fsdp.<kind>.<unit>.
Frontier ring_phase_in_groups(Schedule& s, RingPhase phase, const std::string& name,
                              uint64_t buffer, const std::vector<std::vector<Rank>>& groups,
                              uint32_t steps, const Frontier& after) {
  const uint32_t c = s.add_collective(std::string(to_string(WorkloadType::kFsdp)) + "." + name);
  const auto first = static_cast<MessageId>(s.messages.size());
  for (const std::vector<Rank>& g : groups) {
    append_ring_phase(s, phase, buffer, c, 0, after, g, steps);
  }
  return terminal_messages(s, first, static_cast<MessageId>(s.messages.size()));
}

// HSDP's replica groups: shard i of every shard group, ranks i, i + g, i + 2g, ...
std::vector<std::vector<Rank>> replica_groups(uint32_t ranks, uint32_t g) {
  std::vector<std::vector<Rank>> out(g);
  for (Rank r = 0; r < ranks; ++r) out[r % g].push_back(r);
  return out;
}

}  // namespace

TransformerModel model_preset(const std::string& name) { return describe_model({.model = name}); }

TransformerModel describe_model(const FsdpSpec& spec) {
  const ResolvedNumbers r = resolve_numbers(spec);
  if (r.problem) throw FsdpModelError(r.problem->key, r.problem->detail);
  return {r.numbers, spec.model, spec.param_bytes};
}

uint64_t layer_params(const TransformerModel& m) {
  const uint64_t head_dim = m.hidden / m.heads;
  const uint64_t kv_dim = m.kv_heads * head_dim;
  const uint64_t attention = 2 * m.hidden * m.hidden + 2 * m.hidden * kv_dim;
  const uint64_t ffn = 3 * m.hidden * m.ffn;  // gate, up, down projections
  const uint64_t norms = 2 * m.hidden;
  return attention + ffn + norms;
}

std::vector<ShardUnit> shard_units(const TransformerModel& m, uint32_t layers, bool embeddings) {
  if (layers > m.layers) {
    throw FsdpModelError("layers", m.name + " has " + std::to_string(m.layers) +
                                       " layers, asked for " + std::to_string(layers));
  }
  const uint32_t count = layers == 0 ? m.layers : layers;
  std::vector<ShardUnit> units;
  if (embeddings) units.push_back({"embedding", m.vocab * m.hidden});
  for (uint32_t l = 0; l < count; ++l)
    units.push_back({"layer." + std::to_string(l), layer_params(m)});
  if (embeddings) units.push_back({"output", m.hidden + m.vocab * m.hidden});
  return units;
}

uint64_t parameter_count(const TransformerModel& m) {
  uint64_t sum = 0;
  for (const ShardUnit& u : shard_units(m)) sum += u.params;
  return sum;
}

RingBytes ring_bytes(uint64_t params, uint32_t bytes_per_param, uint32_t group) {
  RingBytes b;
  b.buffer = params * bytes_per_param;
  b.chunk = chunk_bytes(b.buffer, group, 0);
  for (uint32_t i = 1; i < group; ++i) b.per_rank += chunk_bytes(b.buffer, group, i);
  b.group_total = (group - 1) * b.buffer;
  return b;
}

std::vector<std::vector<Rank>> shard_groups(uint32_t ranks, uint32_t group) {
  const uint32_t g = group == 0 ? ranks : group;
  if (g < 2 || g > ranks || ranks % g != 0) {
    throw FsdpModelError("dp_group", std::to_string(group) + " does not divide the " +
                                         std::to_string(ranks) +
                                         " ranks into groups of at least 2");
  }
  std::vector<std::vector<Rank>> out(ranks / g);
  for (Rank r = 0; r < ranks; ++r) out[r / g].push_back(r);
  return out;
}

Schedule fsdp_step(const FsdpSpec& spec, uint32_t ranks) {
  const TransformerModel m = describe_model(spec);
  const std::vector<std::vector<Rank>> groups = shard_groups(ranks, spec.dp_group);
  const auto g = static_cast<uint32_t>(groups[0].size());
  const uint32_t reduce_bytes = spec.reduce_bytes == 0 ? spec.param_bytes : spec.reduce_bytes;
  Schedule s;
  s.ranks = ranks;
  Frontier after;  // nothing before the first collective
  for (const ShardUnit& u : shard_units(m, spec.layers, spec.embeddings)) {
    after = ring_phase_in_groups(s, RingPhase::kAllGather, "all-gather." + u.name,
                                 u.params * spec.param_bytes, groups, spec.ring_steps, after);
    after = ring_phase_in_groups(s, RingPhase::kReduceScatter, "reduce-scatter." + u.name,
                                 u.params * reduce_bytes, groups, spec.ring_steps, after);
    if (groups.size() < 2) continue;
    // HSDP: each shard, reduced within its group, is all-reduced over its replicas.
    const std::vector<std::vector<Rank>> replicas = replica_groups(ranks, g);
    const uint64_t shard = chunk_bytes(u.params * reduce_bytes, g, 0);
    after = ring_phase_in_groups(s, RingPhase::kReduceScatter, "all-reduce." + u.name + ".scatter",
                                 shard, replicas, spec.ring_steps, after);
    after = ring_phase_in_groups(s, RingPhase::kAllGather, "all-reduce." + u.name + ".gather",
                                 shard, replicas, spec.ring_steps, after);
  }
  return s;
}

}  // namespace spraylab::gen
