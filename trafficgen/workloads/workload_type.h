// The one list of workload types (`workload.type`), one per file in this folder, with the
// experiment-file keys each takes. The YAML schema, workload.cpp's dispatch, the collectives'
// names and the docs test all read it; no workload name is spelled anywhere else.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "conf/name_list.h"

namespace spraylab::gen {

enum class WorkloadType : uint8_t {
  kPermutation,
  kAllToAll,
  kAllToAllV,
  kAllReduce,
  kIncast,
  kFsdp,
  kTrace,
  kUniform,
  kSwitchPermutation,
  kBipartite,
};

struct WorkloadTypeInfo {
  WorkloadType id;
  std::string_view name;      // as written in the experiment YAML, and its collective's name
  std::string_view keys;      // its own keys of `workload`, space-separated
  std::string_view required;  // of those, the ones a file must give
  std::string_view summary;
};

inline constexpr std::array<WorkloadTypeInfo, 10> kWorkloadTypes{{
    {WorkloadType::kPermutation, "permutation", "", "", "every host sends to one other host"},
    {WorkloadType::kAllToAll, "all-to-all", "order", "", "every host sends to every other host"},
    {WorkloadType::kAllToAllV, "all-to-all-v", "skew zipf_s matrix", "",
     "all-to-all with skewed message sizes (MoE)"},
    {WorkloadType::kAllReduce, "all-reduce", "", "", "ring all-reduce"},
    {WorkloadType::kIncast, "incast", "fan_in", "", "fan_in senders to each receiver"},
    {WorkloadType::kFsdp, "fsdp",
     "model model_layers hidden ffn heads kv_heads vocab param_bytes reduce_bytes dp_group layers "
     "embeddings ring_steps",
     "", "one FSDP2 training step of a model"},
    {WorkloadType::kTrace, "trace", "trace_file", "trace_file", "a message trace replayed"},
    {WorkloadType::kUniform, "uniform", "messages", "",
     "each message to a uniformly random other host"},
    {WorkloadType::kSwitchPermutation, "switch-permutation", "messages", "",
     "the hosts of leaf i send to the hosts of leaf π(i), π a random permutation of the leaves"},
    {WorkloadType::kBipartite, "bipartite", "messages", "",
     "each message to a uniformly random host of the other half of the leaves"},
}};

constexpr bool table_in_enum_order() {
  for (size_t i = 0; i < kWorkloadTypes.size(); ++i) {
    if (static_cast<size_t>(kWorkloadTypes[i].id) != i) return false;
  }
  return true;
}
static_assert(table_in_enum_order(), "kWorkloadTypes is indexed by WorkloadType");

inline constexpr std::array<std::string_view, kWorkloadTypes.size()> kWorkloadTypeNames = [] {
  std::array<std::string_view, kWorkloadTypes.size()> names{};
  for (size_t i = 0; i < kWorkloadTypes.size(); ++i) names[i] = kWorkloadTypes[i].name;
  return names;
}();

constexpr std::string_view to_string(WorkloadType t) {
  return kWorkloadTypes[static_cast<size_t>(t)].name;
}

// all-to-all-v's message sizes: drawn from a Zipf law, or given as a matrix (`workload.skew`).
enum class Skew : uint8_t { kZipf, kMatrix };
struct SkewInfo {
  Skew id;
  std::string_view name;
};
inline constexpr std::array<SkewInfo, 2> kSkewTable{
    {{Skew::kZipf, "zipf"}, {Skew::kMatrix, "matrix"}}};
static_assert(names::in_enum_order(kSkewTable));
inline constexpr std::array<std::string_view, 2> kSkewNames = names::names_of(kSkewTable);
constexpr std::string_view to_string(Skew s) { return kSkewNames[static_cast<size_t>(s)]; }

// all-to-all's send order (`workload.order`): every host to ranks 0, 1, ..., n-1 in rank order,
// or htsim's shifted order (ranks on a ring in a random order, each sending to the next one,
// the one after, ...: every round a permutation).
enum class AllToAllOrder : uint8_t { kRank, kShifted };
struct AllToAllOrderInfo {
  AllToAllOrder id;
  std::string_view name;
};
inline constexpr std::array<AllToAllOrderInfo, 2> kAllToAllOrderTable{
    {{AllToAllOrder::kRank, "rank"}, {AllToAllOrder::kShifted, "shifted"}}};
static_assert(names::in_enum_order(kAllToAllOrderTable));
inline constexpr std::array<std::string_view, 2> kAllToAllOrderNames =
    names::names_of(kAllToAllOrderTable);
constexpr std::string_view to_string(AllToAllOrder o) {
  return kAllToAllOrderNames[static_cast<size_t>(o)];
}

// Which host runs which rank (`workload.placement`): rank r on host r, the hosts' order in the
// topology (leaf by leaf), or the ranks on the hosts in a random order drawn from the seed, as a
// job scheduler that takes whichever hosts are free would place them (htsim's ring all-reduce
// generator, connection_matrices/gen_allreduce.py with locality 0). Only collectives whose
// traffic follows the rank order (all-reduce, fsdp, all-to-all with order rank, traces) change.
enum class Placement : uint8_t { kRank, kRandom };
struct PlacementInfo {
  Placement id;
  std::string_view name;
};
inline constexpr std::array<PlacementInfo, 2> kPlacementTable{
    {{Placement::kRank, "rank"}, {Placement::kRandom, "random"}}};
static_assert(names::in_enum_order(kPlacementTable));
inline constexpr std::array<std::string_view, 2> kPlacementNames =
    names::names_of(kPlacementTable);
constexpr std::string_view to_string(Placement p) {
  return kPlacementNames[static_cast<size_t>(p)];
}

}  // namespace spraylab::gen
