// The one list of host congestion controls (`workload.cc`): the schema, the generator, the
// results and the docs test read it (dctcp_window.h, nscc_window.h and mswift_window.h implement
// them; flow_window.h holds whichever a flow runs).
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
  kMswift,
  kNsccRccc,  // NSCC's window and RCCC's receiver credits (rccc_credits.h), the lesser
  kRccc,      // receiver credits alone (the reference's -receiver_cc_only)
};

// cc mswift: the most sub-windows (entropy values mod this) a flow keeps.
inline constexpr uint32_t kMaxMswiftSubflows = 64;

struct CongestionControlInfo {
  CongestionControl id;
  std::string_view name;
  std::string_view doc;
};

inline constexpr std::array<CongestionControlInfo, 6> kCongestionControls{{
    {CongestionControl::kNone, "none",
     "no window: send at the pacer's rate until a retransmission timeout"},
    {CongestionControl::kDctcp, "dctcp",
     "DCTCP: a window cut in proportion to the ECN-marked fraction"},
    {CongestionControl::kNscc, "nscc",
     "NSCC (Ultra Ethernet 1.0): a window steered by ECN echoes and queueing delay"},
    {CongestionControl::kMswift, "mswift",
     "MSwift: Swift's delay-target window, one per entropy value (the Ofan paper's)"},
    {CongestionControl::kNsccRccc, "nscc+rccc",
     "NSCC's window and UEC receiver credits (RCCC): a sender sends within both"},
    {CongestionControl::kRccc, "rccc",
     "UEC receiver credits (RCCC) alone: receivers pull data at their link rate"},
}};
static_assert(names::in_enum_order(kCongestionControls));

inline constexpr std::array<std::string_view, 6> kCongestionControlNames =
    names::names_of(kCongestionControls);
inline constexpr std::array<std::string_view, 6> kCongestionControlDocs =
    names::docs_of(kCongestionControls);

// The sender's window a cc runs (kNone for rccc alone: credits only).
constexpr CongestionControl sender_cc(CongestionControl c) {
  if (c == CongestionControl::kNsccRccc) return CongestionControl::kNscc;
  if (c == CongestionControl::kRccc) return CongestionControl::kNone;
  return c;
}
// Whether a cc runs receiver credits (rccc_credits.h).
constexpr bool receiver_credits(CongestionControl c) {
  return c == CongestionControl::kNsccRccc || c == CongestionControl::kRccc;
}

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
