// Packet trimming (buffer.trim; UEC 1.0, the reference simulator's CompositeQueue): a switch
// that would queue a generator data frame beyond its trim threshold cuts it to its headers and
// forwards those in a priority class, so the receiver learns of the loss at once and NACKs it.
//
// The switch knows of the testbed header (trafficgen/packet.h) only what trimming needs: its
// magic, version and flags byte, and where the fields a NACK echoes end. packet.h declares the
// header; its static_asserts keep these constants in step with it.
//
// A trimmed frame is 60 B, 64 B on the wire with its FCS, the reference's trim size: Ethernet,
// IPv4 and UDP headers and the first 16 B of the testbed header (magic, version, flags,
// entropy, acked_packets, message_id, sequence: everything a NACK needs), padded to Ethernet's
// minimum. Raw bytes, no DPDK: the same on an mbuf, a test vector or a fuzzer's input.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "net/frame.h"

namespace spraylab::net {

inline constexpr uint16_t kTestbedMagic = 0x5350;
inline constexpr uint8_t kTestbedVersion = 1;
inline constexpr uint32_t kTestbedFlagsOffset = 3;
// Flag bits of the testbed header (trafficgen/packet.h HeaderFlag).
inline constexpr uint8_t kTestbedData = 1 << 0;
inline constexpr uint8_t kTestbedTrimmed = 1 << 4;
inline constexpr uint8_t kTestbedNack = 1 << 5;
// The testbed header bytes a trimmed frame keeps: up to and including the sequence number.
inline constexpr uint32_t kTrimmedTestbedBytes = 16;
// A trimmed frame without FCS: Ethernet's minimum frame (64 B on the wire with the FCS).
inline constexpr uint32_t kTrimmedFrameBytes = 60;

// The testbed header's flags of a frame parse_frame accepted, or 0 when it is no generator frame
// (not UDP, too short for the header's first 16 B, wrong magic or version).
inline uint8_t testbed_flags(const uint8_t* frame, const FrameInfo& fi) {
  if (fi.proto != kIpProtoUdp) return 0;
  const uint32_t start = fi.l4_offset + 8u;
  if (fi.ip_offset + uint32_t{fi.ip_len} < start + kTrimmedTestbedBytes) return 0;
  const uint8_t* h = frame + start;
  if (detail::be16(h) != kTestbedMagic || h[2] != kTestbedVersion) return 0;
  return h[kTestbedFlagsOffset];
}

// A data frame the switch may trim: a generator data frame not trimmed already.
inline bool trimmable(uint8_t flags) {
  return (flags & kTestbedData) != 0 && (flags & kTestbedTrimmed) == 0;
}

// The length of `fi`'s frame once trimmed: its headers and the testbed header's first 16 B,
// padded to kTrimmedFrameBytes.
inline uint32_t trimmed_length(const FrameInfo& fi) {
  return std::max<uint32_t>(kTrimmedFrameBytes, fi.l4_offset + 8u + kTrimmedTestbedBytes);
}

// Cuts a frame testbed_flags() found trimmable to trimmed_length(fi) bytes (the caller shortens
// the buffer): sets kTestbedTrimmed, and IPv4 total length and UDP length to what is kept, with
// the IPv4 checksum patched (RFC 1624) and no UDP checksum (0: allowed over IPv4; generator
// frames carry none). The padding up to Ethernet's minimum is zeroed. Returns the new length.
inline uint32_t trim_frame(uint8_t* frame, const FrameInfo& fi) {
  uint8_t* ip = frame + fi.ip_offset;
  uint8_t* udp = frame + fi.l4_offset;
  const uint32_t ihl = fi.l4_offset - fi.ip_offset;
  const auto ip_len = static_cast<uint16_t>(ihl + 8 + kTrimmedTestbedBytes);
  const uint16_t old_len = detail::be16(ip + 2);
  ip[2] = static_cast<uint8_t>(ip_len >> 8);
  ip[3] = static_cast<uint8_t>(ip_len);
  update_ip_checksum(ip, old_len, ip_len);
  const auto udp_len = static_cast<uint16_t>(8 + kTrimmedTestbedBytes);
  udp[4] = static_cast<uint8_t>(udp_len >> 8);
  udp[5] = static_cast<uint8_t>(udp_len);
  udp[6] = udp[7] = 0;
  udp[8 + kTestbedFlagsOffset] |= kTestbedTrimmed;
  const uint32_t kept = fi.l4_offset + 8u + kTrimmedTestbedBytes;
  const uint32_t len = trimmed_length(fi);
  std::memset(frame + kept, 0, len - kept);
  return len;
}

}  // namespace spraylab::net
