// The one list of topology kinds: how an experiment's `topology.generator` makes the fabric, and
// the `spraylab topo gen` subcommands. The schema, the builder, the CLI and the topology itself
// read it; no kind is spelled anywhere else.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "conf/name_list.h"

namespace spraylab::topo {

enum class Kind : uint8_t {
  kFatTree,
  kLeafSpine,
  kMrls,
  kExplicit,
  kDragonfly,
  kDragonflyPlus,
  kOft,
};

struct KindInfo {
  Kind id;
  std::string_view name;
};
inline constexpr std::array<KindInfo, 7> kKindTable{{{Kind::kFatTree, "fat-tree"},
                                                     {Kind::kLeafSpine, "leaf-spine"},
                                                     {Kind::kMrls, "mrls"},
                                                     {Kind::kExplicit, "explicit"},
                                                     {Kind::kDragonfly, "dragonfly"},
                                                     {Kind::kDragonflyPlus, "dragonfly-plus"},
                                                     {Kind::kOft, "oft"}}};
static_assert(names::in_enum_order(kKindTable));
inline constexpr std::array<std::string_view, 7> kKindNames = names::names_of(kKindTable);

constexpr std::string_view to_string(Kind k) { return kKindNames[static_cast<size_t>(k)]; }

constexpr std::optional<Kind> kind_from_name(std::string_view name) {
  for (size_t i = 0; i < kKindNames.size(); ++i) {
    if (kKindNames[i] == name) return static_cast<Kind>(i);
  }
  return std::nullopt;
}

}  // namespace spraylab::topo
