// The one list of host congestion controls (`workload.cc`): the schema, the generator, the
// results and the docs test read it (dctcp_window.h implements DCTCP).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace spraylab::gen {

#define SPRAYLAB_CC_MODES(X)                                                             \
  X(kNone, "none", "no window: send at the pacer's rate until a retransmission timeout") \
  X(kDctcp, "dctcp", "DCTCP: a window cut in proportion to the ECN-marked fraction")

enum class CongestionControl : uint8_t {
#define SPRAYLAB_ENUM(id, name, doc) id,
  SPRAYLAB_CC_MODES(SPRAYLAB_ENUM)
#undef SPRAYLAB_ENUM
};

inline constexpr std::array<std::string_view, 2> kCongestionControlNames = {
#define SPRAYLAB_NAME(id, name, doc) name,
    SPRAYLAB_CC_MODES(SPRAYLAB_NAME)
#undef SPRAYLAB_NAME
};

inline constexpr std::array<std::string_view, 2> kCongestionControlDocs = {
#define SPRAYLAB_DOC(id, name, doc) doc,
    SPRAYLAB_CC_MODES(SPRAYLAB_DOC)
#undef SPRAYLAB_DOC
};

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
