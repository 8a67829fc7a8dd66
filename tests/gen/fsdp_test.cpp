#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "trafficgen/workloads/fsdp.h"

namespace spraylab::gen {
namespace {

// Parameter counts from the architecture (hidden, FFN, heads, KV heads, vocab), computed by hand:
// 405B: 126 layers × 3,187,703,808 + 2 × 128256 × 16384 + 16384.
constexpr uint64_t kLlama405bParams = 405'853'388'800;

TEST(FsdpPreset, Llama405bUnitsSumToTheModelsParameterBytes) {
  const TransformerModel m = model_preset("llama3-405b");
  EXPECT_EQ(layer_params(m), 3'187'703'808u);
  uint64_t bytes = 0;
  for (const ShardUnit& u : shard_units(m)) bytes += u.params * m.bytes_per_param;
  EXPECT_EQ(bytes, 2 * kLlama405bParams);
  EXPECT_EQ(parameter_count(m), kLlama405bParams);
  EXPECT_NEAR(static_cast<double>(kLlama405bParams) / 405e9, 1.0, 0.0025);  // the "405B"
  EXPECT_EQ(shard_units(m).size(), 126u + 2u);  // embedding, 126 layers, output
}

TEST(FsdpPreset, SmallerLlama3ModelsMatchTheirPublishedCounts) {
  EXPECT_EQ(parameter_count(model_preset("llama3-8b")), 8'030'261'248u);
  EXPECT_EQ(parameter_count(model_preset("llama3-70b")), 70'553'706'496u);
  EXPECT_THROW(model_preset("gpt-4"), WorkloadError);
}

TEST(FsdpStep, EveryUnitIsAllGatheredThenReduceScatteredCarryingItsBytes) {
  const TransformerModel m = model_preset("llama3-405b");
  const uint32_t n = 8;
  const Schedule s = fsdp_step(FsdpSpec{}, n);
  ASSERT_EQ(s.collectives.size(), 2u * 128u);
  EXPECT_EQ(s.collectives[0].name, "fsdp.all-gather.embedding");
  EXPECT_EQ(s.collectives[1].name, "fsdp.reduce-scatter.embedding");
  EXPECT_EQ(s.collectives[3].name, "fsdp.reduce-scatter.layer.0");
  // A ring phase moves each of the n chunks across n-1 links.
  EXPECT_EQ(total_bytes(s), 2 * (n - 1) * 2 * kLlama405bParams);
  EXPECT_EQ(collective_bytes(s, 2), (n - 1) * layer_params(m) * 2);
  EXPECT_NO_THROW(validate(s));
}

TEST(FsdpStep, EachCollectiveWaitsForTheRanksTrafficInThePreviousOne) {
  const Schedule s = fsdp_step({.model = "llama3-8b", .layers = 1}, 4);
  ASSERT_EQ(s.collectives.size(), 6u);  // embedding, layer.0, output × 2
  for (const Message& m : s.messages) {
    if (m.collective == 0 || m.step != 0) continue;
    ASSERT_FALSE(m.depends_on.empty());
    for (MessageId d : m.depends_on) {
      EXPECT_EQ(s.messages[d].collective, m.collective - 1);
      EXPECT_TRUE(s.messages[d].src == m.src || s.messages[d].dst == m.src);
    }
  }
  EXPECT_TRUE(dependencies_are_local(s));
}

TEST(FsdpStep, LayersTruncatesTheStackAndMoreThanTheModelHasIsAnError) {
  const TransformerModel m = model_preset("llama3-8b");
  EXPECT_EQ(shard_units(m, 2).size(), 4u);
  EXPECT_THROW(shard_units(m, 33), WorkloadError);
  EXPECT_EQ(shard_units(m, 2, false).size(), 2u);  // embeddings: false
}

// A model with small numbers, so that a step over a few ranks is a few messages.
FsdpSpec tiny() {
  return {.model = "custom",
          .model_layers = 2,
          .hidden = 64,
          .ffn = 128,
          .heads = 4,
          .kv_heads = 2,
          .vocab = 100};
}

// tiny()'s first transformer layer alone, no embedding or output unit.
FsdpSpec one_layer() {
  FsdpSpec spec = tiny();
  spec.embeddings = false;
  spec.layers = 1;
  return spec;
}

TEST(FsdpModel, ArchitectureKeysReplaceThePresetsNumbers) {
  FsdpSpec spec{.model = "llama3-405b", .kv_heads = 16};
  EXPECT_EQ(describe_model(spec).kv_heads, 16u);
  EXPECT_EQ(describe_model(spec).hidden, 16384u);
  const TransformerModel t = describe_model(tiny());
  // 2·64² + 2·64·(2·16) + 3·64·128 + 2·64
  EXPECT_EQ(layer_params(t), 8192u + 4096u + 24576u + 128u);
}

TEST(FsdpModel, ACustomModelNeedsEveryNumberAndTheyMustFit) {
  const auto error = [](FsdpSpec spec) {
    try {
      describe_model(spec);
    } catch (const WorkloadError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  FsdpSpec spec = tiny();
  spec.ffn = 0;
  EXPECT_EQ(error(spec),
            "fsdp: workload.ffn: model custom needs every architecture number; ffn is missing "
            "or 0");
  spec = tiny();
  spec.heads = 5;
  EXPECT_EQ(error(spec), "fsdp: workload.heads: 5 heads do not divide hidden 64");
  spec = tiny();
  spec.kv_heads = 3;
  EXPECT_EQ(error(spec), "fsdp: workload.kv_heads: 3 KV heads do not divide the 4 query heads");
  spec = tiny();
  spec.layers = 3;
  EXPECT_EQ(error(spec), "fsdp: workload.layers: custom has 2 layers, asked for 3");
}

TEST(FsdpGroups, ShardGroupsAreConsecutiveRanksAsFsdp2sMeshLaysThemOut) {
  const auto groups = shard_groups(8, 4);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0], (std::vector<Rank>{0, 1, 2, 3}));
  EXPECT_EQ(groups[1], (std::vector<Rank>{4, 5, 6, 7}));
  EXPECT_EQ(shard_groups(8, 0).size(), 1u);
  EXPECT_THROW(shard_groups(8, 3), WorkloadError);
  EXPECT_THROW(shard_groups(8, 1), WorkloadError);
}

TEST(FsdpGroups, HsdpAllReducesEachShardOverItsReplicas) {
  FsdpSpec spec = one_layer();
  spec.dp_group = 4;
  const Schedule s = fsdp_step(spec, 8);
  ASSERT_EQ(s.collectives.size(), 4u);
  EXPECT_EQ(s.collectives[2].name, "fsdp.all-reduce.layer.0.scatter");
  const uint64_t bytes = layer_params(describe_model(spec)) * 2;
  // Shard groups {0..3}, {4..7}: ring messages stay inside a group; 2 groups × 3 steps × 4 ranks.
  for (const Message& m : s.messages) {
    if (m.collective > 1) continue;
    EXPECT_EQ(m.src / 4, m.dst / 4);
  }
  EXPECT_EQ(collective_bytes(s, 0), 2 * 3 * bytes);
  // Replica groups {i, i + 4}: a 2-rank ring all-reduce of a shard (bytes / 4).
  for (const Message& m : s.messages) {
    if (m.collective < 2) continue;
    EXPECT_EQ(m.src % 4, m.dst % 4);
  }
  EXPECT_EQ(collective_bytes(s, 2), 4 * (bytes / 4));
  EXPECT_TRUE(dependencies_are_local(s));
  EXPECT_NO_THROW(validate(s));
}

TEST(FsdpSlice, RingStepsKeepEachMessagesSizeAndCutTheRepeats) {
  FsdpSpec spec = one_layer();
  const Schedule full = fsdp_step(spec, 8);
  spec.ring_steps = 2;
  const Schedule sliced = fsdp_step(spec, 8);
  EXPECT_EQ(full.messages.size(), 2u * 7u * 8u);
  EXPECT_EQ(sliced.messages.size(), 2u * 2u * 8u);
  for (const Message& m : sliced.messages) EXPECT_LT(m.step, 2u);
  EXPECT_EQ(sliced.messages[0].bytes, full.messages[0].bytes);
  EXPECT_EQ(collective_bytes(sliced, 0) * 7, collective_bytes(full, 0) * 2);
  EXPECT_NO_THROW(validate(sliced));
  EXPECT_EQ(shard_units(describe_model(spec), 1, false)[0].name, "layer.0");
}

TEST(FsdpSlice, ReduceBytesSizeTheReduceScatterAlone) {
  FsdpSpec spec = one_layer();
  spec.reduce_bytes = 4;
  const Schedule s = fsdp_step(spec, 4);
  EXPECT_EQ(collective_bytes(s, 1), 2 * collective_bytes(s, 0));
}

// docs/workloads.md's table of Llama 3 405B's per-layer bytes (between the fsdp-bytes markers):
// quantity → value, thousands separators dropped.
std::map<std::string, uint64_t> doc_table() {
  std::ifstream in(std::filesystem::path(SPRAYLAB_SOURCE_DIR) / "docs/workloads.md");
  std::map<std::string, uint64_t> rows;
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("<!-- fsdp-bytes")) inside = true;
    if (line.starts_with("<!-- end fsdp-bytes")) break;
    if (!inside || !line.starts_with("| `")) continue;
    const size_t name_end = line.find('`', 3);
    const size_t value_begin = line.find('|', name_end) + 1;
    const size_t value_end = line.find('|', value_begin);
    std::string digits;
    for (char c : line.substr(value_begin, value_end - value_begin)) {
      if (c >= '0' && c <= '9') digits += c;
    }
    rows[line.substr(3, name_end - 3)] = digits.empty() ? 0 : std::stoull(digits);
  }
  return rows;
}

TEST(FsdpDoc, Llama405bPerLayerBytesAreTheModelsBytes) {
  const std::map<std::string, uint64_t> doc = doc_table();
  ASSERT_EQ(doc.size(), 16u) << "docs/workloads.md: the fsdp-bytes table lost or gained rows";
  const FsdpSpec spec;  // llama3-405b, bf16, FSDP2's default reduce dtype
  const TransformerModel m = describe_model(spec);
  const uint32_t ranks = 432, payload = 4096;
  const uint64_t head_dim = m.hidden / m.heads;
  const RingBytes ag = ring_bytes(layer_params(m), spec.param_bytes, ranks);
  const Schedule s = fsdp_step({.layers = 1, .embeddings = false}, ranks);
  const uint32_t reduce = spec.reduce_bytes == 0 ? spec.param_bytes : spec.reduce_bytes;
  const std::map<std::string, uint64_t> code = {
      {"hidden", m.hidden},
      {"ffn", m.ffn},
      {"heads", m.heads},
      {"kv_heads", m.kv_heads},
      {"head_dim", head_dim},
      {"q_o_params", 2 * m.hidden * m.hidden},
      {"k_v_params", 2 * m.hidden * m.kv_heads * head_dim},
      {"ffn_params", 3 * m.hidden * m.ffn},
      {"norm_params", 2 * m.hidden},
      {"layer_params", layer_params(m)},
      {"all_gather_bytes", ag.buffer},
      {"reduce_scatter_bytes", layer_params(m) * reduce},
      {"chunk_bytes", ag.chunk},
      {"chunk_packets", (ag.chunk + payload - 1) / payload},
      {"rank_bytes_per_phase", ag.per_rank},
      {"group_bytes_per_phase", ag.group_total},
  };
  for (const auto& [name, value] : code) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(doc.contains(name)) << "docs/workloads.md has no row `" << name << "`";
    EXPECT_EQ(doc.at(name), value);
  }
  // The schedule the workload builds carries those bytes: one layer, 432 ranks.
  ASSERT_EQ(s.collectives.size(), 2u);
  EXPECT_EQ(collective_bytes(s, 0), doc.at("group_bytes_per_phase"));
  EXPECT_EQ(collective_bytes(s, 1), (ranks - 1) * doc.at("reduce_scatter_bytes"));
  EXPECT_EQ(s.messages[0].bytes, doc.at("chunk_bytes"));
}

}  // namespace
}  // namespace spraylab::gen
