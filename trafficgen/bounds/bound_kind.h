// The one list of CCT lower bounds a collective can be judged against (docs/workloads.md, "The
// CCT lower bound"). The results JSON, the summary, the table and the docs test read these names;
// no bound's name is spelled anywhere else.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "conf/name_list.h"

namespace spraylab::gen {

enum class BoundKind : uint8_t {
  kPermutationAppendixA,  // Ofan appendix A: one host link carries data and ACKs (cct_bound.h)
  kPerHost,               // every host's uplink and downlink at line rate (per_host_bound.h)
  kSteps,                 // the per-host bound or the critical path through the dependencies
};

struct BoundKindInfo {
  BoundKind id;
  std::string_view name;
};
inline constexpr std::array<BoundKindInfo, 3> kBoundKindTable{
    {{BoundKind::kPermutationAppendixA, "permutation-appendix-a"},
     {BoundKind::kPerHost, "per-host"},
     {BoundKind::kSteps, "steps"}}};
static_assert(names::in_enum_order(kBoundKindTable));
inline constexpr std::array<std::string_view, 3> kBoundKindNames = names::names_of(kBoundKindTable);

constexpr std::string_view to_string(BoundKind k) {
  return kBoundKindNames[static_cast<size_t>(k)];
}

// Whether the bound's capacity is the fabric's: every link runs at the rate and delay the bound
// uses (the slowest host link's) for the whole run, or not (links of other rates or delays, link
// events), and the bound does not model the difference. Named in the results, never silent.
enum class BoundCapacity : uint8_t { kOffered, kNotModelled };
struct BoundCapacityInfo {
  BoundCapacity id;
  std::string_view name;
};
inline constexpr std::array<BoundCapacityInfo, 2> kBoundCapacityTable{
    {{BoundCapacity::kOffered, "offered"}, {BoundCapacity::kNotModelled, "not-modelled"}}};
static_assert(names::in_enum_order(kBoundCapacityTable));
inline constexpr std::array<std::string_view, 2> kBoundCapacityNames =
    names::names_of(kBoundCapacityTable);
constexpr std::string_view to_string(BoundCapacity c) {
  return kBoundCapacityNames[static_cast<size_t>(c)];
}

}  // namespace spraylab::gen
