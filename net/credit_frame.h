// Credit frames of credit-based flow control (buffer.flow_control: credit): what a link's
// receiver sends its sender, on the reverse link, as frames leave its buffer. UEC's CBFC and
// CAMINOS return credits too; this is spraylab's own frame, not UEC's wire format:
//
//   bytes  0..5   destination 01:80:C2:00:00:01 (link-local: never forwarded by a bridge)
//          6..11  source: the receiver's port address
//         12..13  EtherType 0x88B5 (IEEE 802 local experimental EtherType 1)
//         14..15  tag 0x4352 ("CR")
//         16..23  the receiver's freed credits on this link since the run began, 64 bits
//         24      the virtual channel they are of (buffer.virtual_channels; 0 with one)
//         25..59  zero padding to the minimum frame (60 B; the FCS makes 64 on the wire)
//
// The count is cumulative, as CBFC's counters are: a sender's credits are its buffer less what it
// sent and the receiver has not yet freed, so a credit frame overtaken by a later one loses
// nothing, and at the end of a run sent = freed on every link says every credit came back. With
// virtual channels each VC of a link has its own buffer, credits and count; a frame carries one.
// Big-endian on the wire. Header-only and allocation-free: the data path builds and parses these.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>

#include "net/wire.h"

namespace spraylab::net {

inline constexpr uint16_t kCreditEtherType = 0x88b5;
inline constexpr uint16_t kCreditTag = 0x4352;
inline constexpr uint32_t kCreditFrameBytes = 60;  // without the FCS, as mbuf lengths count

enum class CreditParse : uint8_t { kNotCredit, kMalformed, kCredit };

// Writes the 60-byte frame from port address `src` carrying VC `vc`'s `freed` into `out`.
inline void build_credit(uint8_t* out, const std::array<uint8_t, 6>& src, uint64_t freed,
                         uint8_t vc = 0) {
  std::memset(out, 0, kCreditFrameBytes);
  std::memcpy(out, kMacControlDestination.data(), 6);
  std::memcpy(out + 6, src.data(), 6);
  out[12] = static_cast<uint8_t>(kCreditEtherType >> 8);
  out[13] = static_cast<uint8_t>(kCreditEtherType);
  out[14] = static_cast<uint8_t>(kCreditTag >> 8);
  out[15] = static_cast<uint8_t>(kCreditTag);
  for (uint32_t i = 0; i < 8; ++i) out[16 + i] = static_cast<uint8_t>(freed >> (56 - 8 * i));
  out[24] = vc;
}

// True if the frame at `data` (`len` bytes) carries the credit EtherType: one load and compare.
inline bool is_credit_frame(const uint8_t* data, uint32_t len) {
  return len >= 14 && data[12] == (kCreditEtherType >> 8) && data[13] == (kCreditEtherType & 0xff);
}

// Reads `len` bytes at `data`. A credit-EtherType frame is malformed when it is shorter than the
// minimum frame, is not addressed to 01:80:C2:00:00:01, or has another tag. `vc`: the VC byte as
// written (the receiver checks it against its VCs).
inline CreditParse parse_credit(const uint8_t* data, uint32_t len, uint64_t& freed, uint8_t& vc) {
  if (!is_credit_frame(data, len)) return CreditParse::kNotCredit;
  if (len < kCreditFrameBytes) return CreditParse::kMalformed;
  if (std::memcmp(data, kMacControlDestination.data(), 6) != 0) return CreditParse::kMalformed;
  if ((data[14] << 8 | data[15]) != kCreditTag) return CreditParse::kMalformed;
  freed = 0;
  for (uint32_t i = 0; i < 8; ++i) freed = freed << 8 | data[16 + i];
  vc = data[24];
  return CreditParse::kCredit;
}

}  // namespace spraylab::net
