#include <gtest/gtest.h>

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
  const Schedule s = fsdp_step(m, n);
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
  const Schedule s = fsdp_step(model_preset("llama3-8b"), 4, 1);
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
}

}  // namespace
}  // namespace spraylab::gen
