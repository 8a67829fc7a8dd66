// Every drop reason and per-port counter of the data path, declared once (STYLE.md: the counters,
// the CLI, the metrics and the docs all read these lists).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "conf/name_list.h"
#include "net/frame_error.h"

namespace spraylab::dataplane {

// The frame parser's reasons come first (net/frame_error.h), with their numbers: drop_reason().
enum class DropReason : uint8_t {
  kTruncated,
  kNotIpv4,
  kBadIpHeader,
  kTtlExpired,
  kNoRoute,
  kQueueFull,
  kPortDown,
  kUnknownSource,
  kTrimQueueFull,
  kPfcHeadroom,
  kBadMacControl,
  kCreditOverrun,
  kBadCreditFrame,
  kCount,
  kNone = 0xff,
};

inline constexpr size_t kDropReasons = static_cast<size_t>(DropReason::kCount);

struct DropReasonInfo {
  DropReason id;
  std::string_view name;
  std::string_view doc;
};

// The switch's own reasons, after the parser's.
inline constexpr std::array<DropReasonInfo, kDropReasons - net::kFrameErrors.size()>
    kSwitchDropReasons{{
        {DropReason::kTtlExpired, "ttl_expired", "TTL reached zero"},
        {DropReason::kNoRoute, "no_route", "no route to the destination address"},
        {DropReason::kQueueFull, "queue_full", "egress queue over its buffer (tail drop)"},
        {DropReason::kPortDown, "port_down", "egress port down, or queued when it went down"},
        {DropReason::kUnknownSource, "unknown_source",
         "polarized at a non-leaf switch: the source address is in no leaf's prefix"},
        {DropReason::kTrimQueueFull, "trim_queue_full",
         "a trimmed header found the port's priority queue full (buffer.trim)"},
        {DropReason::kPfcHeadroom, "pfc_headroom",
         "PFC: the frame's ingress port was over XOFF + headroom (buffer.pfc; the headroom was "
         "too small for the link's round trip)"},
        {DropReason::kBadMacControl, "bad_mac_control",
         "a MAC control frame (EtherType 0x8808) that is not 802.1Qbb PFC, or PFC at a switch "
         "without buffer.flow_control: pfc; consumed, never forwarded"},
        {DropReason::kCreditOverrun, "credit_overrun",
         "credits: the frame's ingress port's buffer was full (buffer.credit): its sender "
         "started it without the credits"},
        {DropReason::kBadCreditFrame, "bad_credit_frame",
         "a credit frame (EtherType 0x88B5) that is malformed, or at a switch without "
         "buffer.flow_control: credit; consumed, never forwarded"},
    }};

inline constexpr std::array<DropReasonInfo, kDropReasons> kDropReasonTable = [] {
  std::array<DropReasonInfo, kDropReasons> out{};
  size_t i = 0;
  for (const net::FrameErrorInfo& e : net::kFrameErrors) {
    out[i++] = {static_cast<DropReason>(e.id), e.name, e.doc};
  }
  for (const DropReasonInfo& r : kSwitchDropReasons) out[i++] = r;
  return out;
}();
static_assert(names::in_enum_order(kDropReasonTable));

inline constexpr std::array<std::string_view, kDropReasons> kDropReasonNames =
    names::names_of(kDropReasonTable);
inline constexpr std::array<std::string_view, kDropReasons> kDropReasonDocs =
    names::docs_of(kDropReasonTable);

// The drop reason of a frame net::parse_frame rejected: the same name and number (kNone stays
// kNone).
inline constexpr DropReason drop_reason(net::FrameError e) { return static_cast<DropReason>(e); }
static_assert(static_cast<uint8_t>(net::FrameError::kTruncated) ==
              static_cast<uint8_t>(DropReason::kTruncated));
static_assert(static_cast<uint8_t>(net::FrameError::kNotIpv4) ==
              static_cast<uint8_t>(DropReason::kNotIpv4));
static_assert(static_cast<uint8_t>(net::FrameError::kBadIpHeader) ==
              static_cast<uint8_t>(DropReason::kBadIpHeader));
static_assert(static_cast<uint8_t>(net::FrameError::kNone) ==
              static_cast<uint8_t>(DropReason::kNone));

inline std::string_view to_string(DropReason r) {
  return r < DropReason::kCount ? kDropReasonNames[static_cast<size_t>(r)] : "none";
}

}  // namespace spraylab::dataplane
