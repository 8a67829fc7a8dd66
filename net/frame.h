// Parsing of Ethernet / IPv4 / UDP frames on raw bytes (inline: it runs on every packet), so it
// runs the same on an mbuf, a test vector or a fuzzer's input. Malformed frames come back as a
// FrameError (frame_error.h), never as a crash.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <span>

#include "net/frame_error.h"
#include "net/mix32.h"

namespace spraylab::net {

inline constexpr uint16_t kEtherTypeIpv4 = 0x0800;
inline constexpr uint8_t kIpProtoUdp = 17;
inline constexpr uint32_t kEthHeaderLen = 14;

// What routing and balancing need from a frame. Addresses and ports in host byte order.
struct FrameInfo {
  uint32_t src_ip;
  uint32_t dst_ip;
  uint16_t src_port;  // UDP; 0 when not UDP
  uint16_t dst_port;
  uint8_t proto;
  uint8_t ttl;
  uint16_t ip_offset;  // bytes from the frame start to the IPv4 header
  uint16_t l4_offset;  // to the UDP header (or other L4)
  uint16_t ip_len;     // IPv4 total length: the datagram ends at ip_offset + ip_len, not at the
                       // frame's end (Ethernet padding or trailing bytes may follow)
  uint32_t frame_len;  // bytes on the wire without FCS
  uint32_t flow_hash;  // 5-tuple hash; the UDP source port carries the path entropy
};

namespace detail {

inline uint16_t be16(const uint8_t* p) { return static_cast<uint16_t>(p[0] << 8 | p[1]); }
inline uint32_t be32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) << 24 | static_cast<uint32_t>(p[1]) << 16 |
         static_cast<uint32_t>(p[2]) << 8 | p[3];
}

}  // namespace detail

// The 5-tuple hash ECMP uses; the UDP source port carries the path entropy. Stable across runs
// and machines of one instruction set; computed only for packets that are balanced.
inline uint32_t flow_hash(uint32_t src_ip, uint32_t dst_ip, uint16_t src_port, uint16_t dst_port,
                          uint8_t proto) {
  const uint64_t addrs = static_cast<uint64_t>(src_ip) << 32 | dst_ip;
  const uint64_t rest =
      static_cast<uint64_t>(src_port) << 24 | static_cast<uint64_t>(dst_port) << 8 | proto;
#if defined(__SSE4_2__)
  // Two CRC32C steps (3 cycles each) instead of a multiply chain: the hash is on every packet.
  const uint64_t h = __builtin_ia32_crc32di(0x9e3779b9u, addrs);
  return static_cast<uint32_t>(__builtin_ia32_crc32di(h, rest));
#else
  return mix32(static_cast<uint32_t>(addrs ^ (addrs >> 29)) ^ mix32(static_cast<uint32_t>(rest)));
#endif
}

// Checks Ethernet (one optional 802.1Q tag), IPv4 (version 4, IHL ≥ 5, total length within the
// frame) and, when proto is UDP, that the UDP header fits. TTL is not checked here: the forwarding
// step decrements it on every frame it routes, a frame for a directly attached host too (an IP
// router's rule, RFC 1812 §5.3.1; the hosts count the switches crossed by what is left), and drops
// the frame instead when it is 1 or 0 (decrement_ttl).
inline FrameError parse_frame(const uint8_t* data, uint32_t len, FrameInfo& out) {
  if (len < kEthHeaderLen) return FrameError::kTruncated;
  uint32_t off = 12;
  uint16_t ethertype = detail::be16(data + off);
  if (ethertype == 0x8100) {  // one VLAN tag
    if (len < kEthHeaderLen + 4) return FrameError::kTruncated;
    off += 4;
    ethertype = detail::be16(data + off);
  }
  off += 2;
  if (ethertype != kEtherTypeIpv4) return FrameError::kNotIpv4;
  if (len < off + 20) return FrameError::kTruncated;
  const uint8_t* ip = data + off;
  const uint32_t ihl = (ip[0] & 0x0f) * 4u;
  if ((ip[0] >> 4) != 4 || ihl < 20) return FrameError::kBadIpHeader;
  const uint32_t total = detail::be16(ip + 2);
  if (total < ihl) return FrameError::kBadIpHeader;
  if (len < off + total) return FrameError::kTruncated;
  out.ip_offset = static_cast<uint16_t>(off);
  out.l4_offset = static_cast<uint16_t>(off + ihl);
  out.ip_len = static_cast<uint16_t>(total);
  out.ttl = ip[8];
  out.proto = ip[9];
  out.src_ip = detail::be32(ip + 12);
  out.dst_ip = detail::be32(ip + 16);
  out.frame_len = len;
  out.src_port = out.dst_port = 0;
  if (out.proto == kIpProtoUdp) {
    if (total < ihl + 8) return FrameError::kTruncated;
    out.src_port = detail::be16(ip + ihl);
    out.dst_port = detail::be16(ip + ihl + 2);
  }
  return FrameError::kNone;
}

// The UDP payload of a frame parse_frame accepted with proto UDP: from the end of the UDP header
// to the end of the IPv4 datagram. Bytes past the datagram (Ethernet padding) are not payload;
// reading the testbed header up to the frame's end would take them for one (tests/fuzz).
inline std::span<const uint8_t> udp_payload(const uint8_t* frame, const FrameInfo& fi) {
  const uint32_t start = fi.l4_offset + 8u;
  return {frame + start, fi.ip_offset + fi.ip_len - start};
}

// Patches the IPv4 header checksum after one 16-bit header word changed from `old_word` to
// `new_word` (RFC 1624 eqn. 3: HC' = ~(~HC + ~m + m')).
inline void update_ip_checksum(uint8_t* ip, uint16_t old_word, uint16_t new_word) {
  uint32_t sum =
      static_cast<uint16_t>(~detail::be16(ip + 10)) + static_cast<uint16_t>(~old_word) + new_word;
  sum = (sum & 0xffff) + (sum >> 16);
  sum = (sum & 0xffff) + (sum >> 16);
  const uint16_t check = static_cast<uint16_t>(~sum);
  ip[10] = static_cast<uint8_t>(check >> 8);
  ip[11] = static_cast<uint8_t>(check);
}

// Decrements the TTL and patches the header checksum incrementally (RFC 1624).
// Returns false, changing nothing, when the TTL is already ≤ 1: the packet must be dropped.
inline bool decrement_ttl(uint8_t* ip) {
  if (ip[8] <= 1) return false;
  ip[8]--;
  // update_ip_checksum() for the TTL/protocol word falling by 0x0100, folded by hand (on every
  // forwarded packet): HC + 0x0100 with the end-around carry, and RFC 1624's 0x0000 where that
  // gives 0xFFFF (HC = 0xFEFF), so the bytes are exactly eqn. 3's (tests/net: every HC).
  // The sum in the checksum's own byte order: a ones' complement sum does not depend on it (RFC
  // 1071), so the host-order word `c` of the two bytes takes the byte-swapped 0x0100 and the
  // same fold, and no byte swaps are needed. (Host order is little-endian here: 0x0001.)
  uint16_t c;
  std::memcpy(&c, ip + 10, 2);
  constexpr uint32_t kTtlStep = std::endian::native == std::endian::little ? 0x0001u : 0x0100u;
  uint32_t sum = c + kTtlStep;
  if (sum >= 0xffff) sum -= 0xffff;
  c = static_cast<uint16_t>(sum);
  std::memcpy(ip + 10, &c, 2);
  return true;
}

// The IPv4 identification, and its rewrite with the checksum patched (RFC 1624). KSP routing
// (lb/ksp.h) keeps its path label there: a datagram with DF set is never fragmented, so its
// identification means nothing to the hosts (RFC 6864 §4.1), and the label adds no wire bytes.
inline uint16_t ip_id(const uint8_t* ip) { return detail::be16(ip + 4); }
inline void set_ip_id(uint8_t* ip, uint16_t id) {
  const uint16_t old_word = detail::be16(ip + 4);
  ip[4] = static_cast<uint8_t>(id >> 8);
  ip[5] = static_cast<uint8_t>(id);
  update_ip_checksum(ip, old_word, id);
}

// Sets ECN to CE on an ECN-capable packet (ECT(0) or ECT(1)), checksum patched. Returns whether
// it marked.
inline bool mark_ce(uint8_t* ip) {
  const uint8_t ecn = ip[1] & 0x03;
  if (ecn == 0 || ecn == 0x03) return false;
  const uint16_t old_word = detail::be16(ip);  // version/IHL and DSCP/ECN
  ip[1] |= 0x03;
  update_ip_checksum(ip, old_word, detail::be16(ip));
  return true;
}

}  // namespace spraylab::net
