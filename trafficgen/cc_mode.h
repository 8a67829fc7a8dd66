// The one list of host congestion controls (`workload.cc`): the schema, the generator, the
// results and the docs test read it (dctcp_window.h implements DCTCP).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "conf/name_list.h"

namespace spraylab::gen {

enum class CongestionControl : uint8_t {
  kNone,
  kDctcp,
  kNscc,
};

struct CongestionControlInfo {
  CongestionControl id;
  std::string_view name;
  std::string_view doc;
};

inline constexpr std::array<CongestionControlInfo, 3> kCongestionControls{{
    {CongestionControl::kNone, "none",
     "no window: send at the pacer's rate until a retransmission timeout"},
    {CongestionControl::kDctcp, "dctcp",
     "DCTCP: a window cut in proportion to the ECN-marked fraction"},
    {CongestionControl::kNscc, "nscc",
     "UEC's NSCC: a window driven by ECN marks and queueing delay (switches mark between 20% "
     "and 80% of a BDP by default)"},
}};
static_assert(names::in_enum_order(kCongestionControls));

inline constexpr std::array<std::string_view, 3> kCongestionControlNames =
    names::names_of(kCongestionControls);
inline constexpr std::array<std::string_view, 3> kCongestionControlDocs =
    names::docs_of(kCongestionControls);

constexpr std::string_view to_string(CongestionControl c) {
  return kCongestionControlNames[static_cast<size_t>(c)];
}

constexpr std::optional<CongestionControl> congestion_control_from_name(std::string_view name) {
  for (size_t i = 0; i < kCongestionControlNames.size(); ++i) {
    if (kCongestionControlNames[i] == name) return static_cast<CongestionControl>(i);
  }
  return std::nullopt;
}

}  // namespace spraylab::gen
