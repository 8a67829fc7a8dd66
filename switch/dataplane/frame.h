// Parsing of Ethernet / IPv4 / UDP frames on raw bytes, so it runs the same on an mbuf, a test
// vector or a fuzzer's input. Malformed frames come back as a drop reason, never as a crash.
#pragma once

#include <cstdint>

#include "switch/dataplane/counters.h"

namespace spraylab::dataplane {

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
  uint32_t frame_len;  // bytes on the wire without FCS
  uint32_t flow_hash;  // 5-tuple hash; the UDP source port carries the path entropy
};

// Checks Ethernet (one optional 802.1Q tag), IPv4 (version 4, IHL ≥ 5, total length within the
// frame) and, when proto is UDP, that the UDP header fits. TTL is not checked here: a packet for
// a local host never has its TTL decremented, so that is the forwarding step's decision.
DropReason parse_frame(const uint8_t* data, uint32_t len, FrameInfo& out);

// Decrements the TTL and patches the header checksum incrementally (RFC 1624).
// Returns false, changing nothing, when the TTL is already ≤ 1: the packet must be dropped.
bool decrement_ttl(uint8_t* ip_header);

// The 5-tuple hash ECMP uses (a 32-bit mix; stable across runs and machines).
uint32_t flow_hash(uint32_t src_ip, uint32_t dst_ip, uint16_t src_port, uint16_t dst_port,
                   uint8_t proto);

}  // namespace spraylab::dataplane
