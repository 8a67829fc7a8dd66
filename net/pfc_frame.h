// IEEE 802.1Qbb priority-based flow control (PFC) frames: the MAC control frame a switch sends
// its upstream neighbour to stop (and restart) one or more priority classes on their link.
//
//   bytes  0..5   destination 01:80:C2:00:00:01 (MAC control, never forwarded by a bridge)
//          6..11  source: the sender's port address
//         12..13  EtherType 0x8808 (MAC control)
//         14..15  opcode 0x0101 (PFC; 0x0001 is 802.3x PAUSE, which has no class vector)
//         16..17  class-enable vector: bit c set = quanta[c] applies (bits 8..15 reserved, 0)
//         18..33  quanta[0..7], 16 bits each: pause time in quanta of 512 bit times; 0 = resume
//         34..59  zero padding to the minimum frame (60 B; the FCS makes 64 on the wire)
//
// Big-endian on the wire. Header-only and allocation-free: the data path builds and parses these.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>

#include "net/wire.h"

namespace spraylab::net {

inline constexpr uint16_t kMacControlEtherType = 0x8808;
inline constexpr uint16_t kPfcOpcode = 0x0101;
inline constexpr uint32_t kPfcFrameBytes = 60;  // without the FCS, as mbuf lengths count
inline constexpr uint32_t kPfcClasses = 8;
inline constexpr uint16_t kPfcMaxQuanta = 0xffff;
inline constexpr uint32_t kPfcQuantumBits = 512;  // one quantum: 512 bit times at the link's rate

// The priority class spraylab's data travels in with one virtual channel; with V
// (buffer.virtual_channels), VC v travels in class v and this is VC 0's (switch/dataplane/pfc.h).
inline constexpr uint8_t kPfcDataClass = 0;

struct PfcFrame {
  uint16_t class_enable = 0;  // bit c: quanta[c] is meant
  std::array<uint16_t, kPfcClasses> quanta{};
  // A pause of `quanta` (0: resume) for class c alone.
  static PfcFrame for_class(uint8_t c, uint16_t q) {
    PfcFrame f;
    f.class_enable = static_cast<uint16_t>(1u << c);
    f.quanta[c] = q;
    return f;
  }
};

// A MAC control frame's reading.
enum class PfcParse : uint8_t {
  kNotControl,  // another EtherType (or too short to have one): not a MAC control frame
  kPfc,         // a well-formed PFC frame, in `out`
  kMalformed,   // MAC control, but not PFC as 802.1Qbb writes it: counted, dropped
};

// The pause time of `quanta` at `rate_bps`, in ns (rounded up: a pause is not over early).
inline uint64_t pfc_quanta_ns(uint16_t quanta, double rate_bps) {
  const double ns = static_cast<double>(quanta) * kPfcQuantumBits * 1e9 / rate_bps;
  const auto whole = static_cast<uint64_t>(ns);
  return static_cast<double>(whole) < ns ? whole + 1 : whole;
}

// Writes the 60-byte frame from port address `src` into `out` (at least kPfcFrameBytes).
inline void build_pfc(uint8_t* out, const std::array<uint8_t, 6>& src, const PfcFrame& f) {
  std::memset(out, 0, kPfcFrameBytes);
  std::memcpy(out, kMacControlDestination.data(), 6);
  std::memcpy(out + 6, src.data(), 6);
  auto be16 = [out](uint32_t at, uint16_t v) {
    out[at] = static_cast<uint8_t>(v >> 8);
    out[at + 1] = static_cast<uint8_t>(v);
  };
  be16(12, kMacControlEtherType);
  be16(14, kPfcOpcode);
  be16(16, f.class_enable);
  for (uint32_t c = 0; c < kPfcClasses; ++c) be16(18 + 2 * c, f.quanta[c]);
}

// Reads `len` bytes at `data`. A MAC control frame is malformed when it is shorter than the
// minimum frame, is not addressed to 01:80:C2:00:00:01, has another opcode, or sets reserved
// class-enable bits.
inline PfcParse parse_pfc(const uint8_t* data, uint32_t len, PfcFrame& out) {
  if (len < 14) return PfcParse::kNotControl;
  auto be16 = [data](uint32_t at) { return static_cast<uint16_t>(data[at] << 8 | data[at + 1]); };
  if (be16(12) != kMacControlEtherType) return PfcParse::kNotControl;
  if (len < kPfcFrameBytes) return PfcParse::kMalformed;
  if (std::memcmp(data, kMacControlDestination.data(), 6) != 0) return PfcParse::kMalformed;
  if (be16(14) != kPfcOpcode) return PfcParse::kMalformed;
  out.class_enable = be16(16);
  if (out.class_enable > 0xff) return PfcParse::kMalformed;
  for (uint32_t c = 0; c < kPfcClasses; ++c) out.quanta[c] = be16(18 + 2 * c);
  return PfcParse::kPfc;
}

// True if the frame at `data` (`len` bytes) is a MAC control frame: one load and compare, for the
// receive paths that must take these out of the data before anything else reads it.
inline bool is_mac_control(const uint8_t* data, uint32_t len) {
  return len >= 14 && data[12] == (kMacControlEtherType >> 8) &&
         data[13] == (kMacControlEtherType & 0xff);
}

}  // namespace spraylab::net
