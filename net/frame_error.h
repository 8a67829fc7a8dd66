// Why net::parse_frame rejects a frame, declared once. The switch counts a rejected frame as a drop
// under the same name: its drop reasons (switch/dataplane/counters.h) begin with this list, so the
// numbers agree too and a FrameError converts to a DropReason for free.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "conf/name_list.h"

namespace spraylab::net {

enum class FrameError : uint8_t {
  kTruncated,
  kNotIpv4,
  kBadIpHeader,
  kNone = 0xff,  // the frame is well formed
};

struct FrameErrorInfo {
  FrameError id;
  std::string_view name;
  std::string_view doc;
};

inline constexpr std::array<FrameErrorInfo, 3> kFrameErrors{{
    {FrameError::kTruncated, "truncated", "frame shorter than its headers claim"},
    {FrameError::kNotIpv4, "not_ipv4", "ethertype is not IPv4"},
    {FrameError::kBadIpHeader, "bad_ip_header", "IPv4 version, IHL or length invalid"},
}};
static_assert(names::in_enum_order(kFrameErrors));

}  // namespace spraylab::net
