// Every drop reason and per-port counter of the data path, declared once (STYLE.md: the counters,
// the CLI, the metrics and the docs all read these lists).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "net/frame_error.h"

namespace spraylab::dataplane {

// The frame parser's reasons come first (net/frame_error.h), with their numbers: drop_reason().
#define SPRAYLAB_DROP_REASONS(X)                                             \
  SPRAYLAB_FRAME_ERRORS(X)                                                   \
  X(kTtlExpired, "ttl_expired", "TTL reached zero")                          \
  X(kNoRoute, "no_route", "no route to the destination address")             \
  X(kQueueFull, "queue_full", "egress queue over its buffer (tail drop)")    \
  X(kPortDown, "port_down", "egress port down, or queued when it went down") \
  X(kUnknownSource, "unknown_source",                                        \
    "polarized at a non-leaf switch: the source address is in no leaf's prefix")

enum class DropReason : uint8_t {
#define SPRAYLAB_ENUM(id, name, doc) id,
  SPRAYLAB_DROP_REASONS(SPRAYLAB_ENUM)
#undef SPRAYLAB_ENUM
      kCount,
  kNone = 0xff,
};

inline constexpr size_t kDropReasons = static_cast<size_t>(DropReason::kCount);

inline constexpr std::array<std::string_view, kDropReasons> kDropReasonNames = {
#define SPRAYLAB_NAME(id, name, doc) name,
    SPRAYLAB_DROP_REASONS(SPRAYLAB_NAME)
#undef SPRAYLAB_NAME
};

inline constexpr std::array<std::string_view, kDropReasons> kDropReasonDocs = {
#define SPRAYLAB_DOC(id, name, doc) doc,
    SPRAYLAB_DROP_REASONS(SPRAYLAB_DOC)
#undef SPRAYLAB_DOC
};

// The drop reason of a frame net::parse_frame rejected: the same name and number (kNone stays
// kNone).
inline constexpr DropReason drop_reason(net::FrameError e) { return static_cast<DropReason>(e); }
#define SPRAYLAB_SAME_NUMBER(id, name, doc) \
  static_assert(static_cast<uint8_t>(net::FrameError::id) == static_cast<uint8_t>(DropReason::id));
SPRAYLAB_FRAME_ERRORS(SPRAYLAB_SAME_NUMBER)
#undef SPRAYLAB_SAME_NUMBER
static_assert(static_cast<uint8_t>(net::FrameError::kNone) ==
              static_cast<uint8_t>(DropReason::kNone));

inline std::string_view to_string(DropReason r) {
  return r < DropReason::kCount ? kDropReasonNames[static_cast<size_t>(r)] : "none";
}

}  // namespace spraylab::dataplane
