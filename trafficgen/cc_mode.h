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

// The spraying congestion controls' tunables, as `workload:` keys (conf/schema.cpp reads them
// into conf::WorkloadSpec::tuning; docs/generator.md, "Congestion control") and as the generator
// hands them to each flow's window (trafficgen/host_engine.cpp, make_window): declared once.
struct CcTuning {
  // The file sets workload.initial_window: cc nscc starts there instead of at its maximum
  // window (1.5 BDP).
  bool initial_window_given = false;
  // cc nscc (trafficgen/nscc_window.h; the reference's defaults). The target queueing delay:
  // 0 = the fabric's unloaded RTT (0.75 of it when the switches trim).
  uint64_t nscc_target_delay_ns = 0;
  uint32_t nscc_qa_gate = 3;
  bool nscc_quick_adapt = true;
  // The flow's first base RTT is its own path's unloaded RTT, not the fabric's largest (the
  // reference's -enable_accurate_base_rtt).
  bool nscc_accurate_base_rtt = false;
  // cc mswift (trafficgen/mswift_window.h). 0 for a time: derived from the path model.
  uint32_t mswift_subflows = 8;
  double mswift_ai = 1.0;
  double mswift_beta = 0.8;
  double mswift_max_mdf = 0.5;
  uint64_t mswift_base_target_ns = 0;
  uint64_t mswift_hop_scale_ns = 0;
  uint64_t mswift_fs_range_ns = 0;
};

}  // namespace spraylab::gen
