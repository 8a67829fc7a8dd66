// The `fsdp` workload's description as the experiment file gives it (conf/schema.cpp declares its
// keys): the model, by preset or architecture numbers, its dtypes, the data-parallel group and the
// slice simulated, with the presets' one table and the checks a description must pass. Header
// only, like the other name lists conf/ parses into; trafficgen/workloads/fsdp.h builds the step.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <utility>

namespace spraylab::gen {

// Architecture numbers of a decoder-only transformer with grouped-query attention and a SwiGLU
// feed-forward network (the Llama 3 architecture).
struct ModelNumbers {
  uint32_t layers = 0;
  uint64_t hidden = 0;
  uint64_t ffn = 0;
  uint32_t heads = 0;
  uint32_t kv_heads = 0;
  uint64_t vocab = 0;
};

// "The Llama 3 Herd of Models", Table 3 (layers, model and FFN dimensions, heads, KV heads); the
// vocabulary is the released models' vocab_size, 128,256 (Table 3 rounds it to 128,000).
struct ModelPreset {
  std::string_view name;
  ModelNumbers numbers;
};
inline constexpr std::array<ModelPreset, 3> kModelPresets{{
    {"llama3-405b", {126, 16384, 53248, 128, 8, 128256}},
    {"llama3-70b", {80, 8192, 28672, 64, 8, 128256}},
    {"llama3-8b", {32, 4096, 14336, 32, 8, 128256}},
}};
// `model: custom`: every architecture number from the file.
inline constexpr std::string_view kCustomModel = "custom";
inline constexpr std::array<std::string_view, kModelPresets.size() + 1> kModelNames = [] {
  std::array<std::string_view, kModelPresets.size() + 1> names{};
  for (size_t i = 0; i < kModelPresets.size(); ++i) names[i] = kModelPresets[i].name;
  names[kModelPresets.size()] = kCustomModel;
  return names;
}();

struct FsdpSpec {
  std::string model = "llama3-405b";
  // Replace the preset's numbers when not 0 ("custom": all required).
  uint32_t model_layers = 0;
  uint64_t hidden = 0;
  uint64_t ffn = 0;
  uint32_t heads = 0;
  uint32_t kv_heads = 0;
  uint64_t vocab = 0;
  uint32_t param_bytes = 2;   // the all-gathered parameters' dtype (bf16)
  uint32_t reduce_bytes = 0;  // the reduce-scattered gradients' dtype; 0 = param_bytes
  uint32_t dp_group = 0;      // ranks a shard group holds; 0 = every rank (FSDP2's 1-D mesh)
  // The slice simulated: the first `layers` layers (0 = all), the embedding and output units or
  // not, the first `ring_steps` steps of each ring phase (0 = all g − 1).
  uint32_t layers = 0;
  bool embeddings = true;
  uint32_t ring_steps = 0;
};

// What is wrong with a description: the key at fault and why.
struct FsdpProblem {
  std::string key;
  std::string detail;
};

// The model's numbers: the preset's with the spec's non-zero ones in their place, or the
// problem (an unknown preset, a custom model missing a number, heads not dividing hidden, KV
// heads not dividing heads, more layers simulated than the model has).
struct ResolvedNumbers {
  ModelNumbers numbers;
  std::optional<FsdpProblem> problem;
};

inline ResolvedNumbers resolve_numbers(const FsdpSpec& spec) {
  ResolvedNumbers out;
  ModelNumbers& m = out.numbers;
  const bool custom = spec.model == kCustomModel;
  bool known = custom;
  for (const ModelPreset& p : kModelPresets) {
    if (p.name == spec.model) {
      m = p.numbers;
      known = true;
    }
  }
  const auto fail = [&out](std::string key, std::string detail) {
    out.problem = FsdpProblem{std::move(key), std::move(detail)};
    return out;
  };
  if (!known) {
    return fail("model", "unknown model '" + spec.model +
                             "' (expected llama3-405b, llama3-70b, llama3-8b or custom)");
  }
  const std::pair<const char*, uint64_t> given[] = {{"model_layers", spec.model_layers},
                                                    {"hidden", spec.hidden},
                                                    {"ffn", spec.ffn},
                                                    {"heads", spec.heads},
                                                    {"kv_heads", spec.kv_heads},
                                                    {"vocab", spec.vocab}};
  for (const auto& [key, value] : given) {
    if (custom && value == 0) {
      return fail(key, "model custom needs every architecture number; " + std::string(key) +
                           " is missing or 0");
    }
  }
  if (spec.model_layers != 0) m.layers = spec.model_layers;
  if (spec.hidden != 0) m.hidden = spec.hidden;
  if (spec.ffn != 0) m.ffn = spec.ffn;
  if (spec.heads != 0) m.heads = spec.heads;
  if (spec.kv_heads != 0) m.kv_heads = spec.kv_heads;
  if (spec.vocab != 0) m.vocab = spec.vocab;
  if (m.hidden % m.heads != 0) {
    return fail("heads", std::to_string(m.heads) + " heads do not divide hidden " +
                             std::to_string(m.hidden));
  }
  if (m.kv_heads > m.heads || m.heads % m.kv_heads != 0) {
    return fail("kv_heads", std::to_string(m.kv_heads) + " KV heads do not divide the " +
                                std::to_string(m.heads) + " query heads");
  }
  if (spec.layers > m.layers) {
    return fail("layers", spec.model + " has " + std::to_string(m.layers) + " layers, asked for " +
                              std::to_string(spec.layers));
  }
  return out;
}

}  // namespace spraylab::gen
