// The frame a switch sees nearly always, parsed without parse_frame's branches: the forwarder's
// fast path (switch/dataplane/forwarder.cpp checks four frames with it, then takes one branch for
// all four, as DPDK's l3fwd does). parse_frame stays the reference and judges every other frame.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

#include "net/frame.h"

namespace spraylab::net {

// parse_frame for the frame a switch sees nearly always: untagged Ethernet, an IPv4 header of 20
// bytes, a total length within the frame and, for UDP, room for the UDP header; in a frame of at
// least 42 bytes (Ethernet, IPv4 and UDP headers: every read below is inside it). True, with `out`
// filled exactly as parse_frame fills it; false, `out` unspecified, for any other frame, which
// parse_frame then judges (a VLAN tag, IPv4 options, or a malformed frame and its reason). One
// 4-byte compare stands for the ethertype, version and IHL tests, and the rest is branch-free, so
// that the forwarder can check four frames and take one branch for all four
// (switch/dataplane/forwarder.cpp). kAllFields false: the same verdict, but `out` gets only
// what routing and the header rewrite read (ip_offset, ttl, dst_ip, frame_len), for a balancer
// that reads no more of the frame: the rest is stores and byte swaps for nobody.
template <bool kAllFields = true>
inline bool parse_plain_ipv4(const uint8_t* data, uint32_t len, FrameInfo& out) {
  constexpr uint32_t kMinLen = kEthHeaderLen + 20 + 8;
  if (len < kMinLen) return false;
  // Bytes 12..14: ethertype 0x0800, then version 4 and IHL 5 (0x45), in the host's byte order.
  uint32_t head;
  std::memcpy(&head, data + 12, 4);
  constexpr uint32_t kPlain =
      std::endian::native == std::endian::little ? 0x00450008u : 0x08004500u;
  constexpr uint32_t kMask = std::endian::native == std::endian::little ? 0x00ffffffu : 0xffffff00u;
  const uint8_t* ip = data + kEthHeaderLen;
  const uint32_t total = detail::be16(ip + 2);
  const uint8_t proto = ip[9];
  const bool udp = proto == kIpProtoUdp;
  const uint32_t least = udp ? 28u : 20u;  // the header, and UDP's 8 bytes when UDP
  const bool ok = ((head & kMask) == kPlain) & (total >= least) & (kEthHeaderLen + total <= len);
  out.ip_offset = kEthHeaderLen;
  out.ttl = ip[8];
  out.dst_ip = detail::be32(ip + 16);
  out.frame_len = len;
  if constexpr (kAllFields) {
    out.l4_offset = kEthHeaderLen + 20;
    out.ip_len = static_cast<uint16_t>(total);
    out.proto = proto;
    out.src_ip = detail::be32(ip + 12);
    out.src_port = udp ? detail::be16(ip + 20) : 0;
    out.dst_port = udp ? detail::be16(ip + 22) : 0;
  }
  return ok;
}

}  // namespace spraylab::net
