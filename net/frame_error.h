// Why net::parse_frame rejects a frame, declared once. The switch counts a rejected frame as a drop
// under the same name: its drop reasons (switch/dataplane/counters.h) begin with this list, so the
// numbers agree too and a FrameError converts to a DropReason for free.
#pragma once

#include <cstdint>

namespace spraylab::net {

// X(id, name, doc).
#define SPRAYLAB_FRAME_ERRORS(X)                                     \
  X(kTruncated, "truncated", "frame shorter than its headers claim") \
  X(kNotIpv4, "not_ipv4", "ethertype is not IPv4")                   \
  X(kBadIpHeader, "bad_ip_header", "IPv4 version, IHL or length invalid")

enum class FrameError : uint8_t {
#define SPRAYLAB_ENUM(id, name, doc) id,
  SPRAYLAB_FRAME_ERRORS(SPRAYLAB_ENUM)
#undef SPRAYLAB_ENUM
      kNone = 0xff,  // the frame is well formed
};

}  // namespace spraylab::net
