#include "switch/dataplane/frame.h"

namespace spraylab::dataplane {
namespace {

inline uint16_t be16(const uint8_t* p) { return static_cast<uint16_t>(p[0] << 8 | p[1]); }
inline uint32_t be32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) << 24 | static_cast<uint32_t>(p[1]) << 16 |
         static_cast<uint32_t>(p[2]) << 8 | p[3];
}
inline uint32_t mix(uint32_t h) {  // murmur3 finaliser
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}

}  // namespace

uint32_t flow_hash(uint32_t src_ip, uint32_t dst_ip, uint16_t src_port, uint16_t dst_port,
                   uint8_t proto) {
  uint32_t h = mix(src_ip ^ 0x9e3779b9u);
  h = mix(h ^ dst_ip);
  h = mix(h ^ (static_cast<uint32_t>(src_port) << 16 | dst_port));
  return mix(h ^ proto);
}

DropReason parse_frame(const uint8_t* data, uint32_t len, FrameInfo& out) {
  if (len < kEthHeaderLen) return DropReason::kTruncated;
  uint32_t off = 12;
  uint16_t ethertype = be16(data + off);
  if (ethertype == 0x8100) {  // one VLAN tag
    if (len < kEthHeaderLen + 4) return DropReason::kTruncated;
    off += 4;
    ethertype = be16(data + off);
  }
  off += 2;
  if (ethertype != kEtherTypeIpv4) return DropReason::kNotIpv4;
  if (len < off + 20) return DropReason::kTruncated;
  const uint8_t* ip = data + off;
  const uint32_t ihl = (ip[0] & 0x0f) * 4u;
  if ((ip[0] >> 4) != 4 || ihl < 20) return DropReason::kBadIpHeader;
  const uint32_t total = be16(ip + 2);
  if (total < ihl) return DropReason::kBadIpHeader;
  if (len < off + total) return DropReason::kTruncated;
  out.ip_offset = static_cast<uint16_t>(off);
  out.l4_offset = static_cast<uint16_t>(off + ihl);
  out.ttl = ip[8];
  out.proto = ip[9];
  out.src_ip = be32(ip + 12);
  out.dst_ip = be32(ip + 16);
  out.frame_len = len;
  out.src_port = out.dst_port = 0;
  if (out.proto == kIpProtoUdp) {
    if (total < ihl + 8) return DropReason::kTruncated;
    out.src_port = be16(ip + ihl);
    out.dst_port = be16(ip + ihl + 2);
  }
  out.flow_hash = flow_hash(out.src_ip, out.dst_ip, out.src_port, out.dst_port, out.proto);
  return DropReason::kNone;
}

bool decrement_ttl(uint8_t* ip) {
  if (ip[8] <= 1) return false;
  // RFC 1624 eqn. 3: HC' = ~(~HC + ~m + m'), m the 16-bit word holding TTL and protocol.
  const uint16_t old_word = static_cast<uint16_t>(ip[8] << 8 | ip[9]);
  ip[8]--;
  const uint16_t new_word = static_cast<uint16_t>(ip[8] << 8 | ip[9]);
  uint32_t sum =
      static_cast<uint16_t>(~be16(ip + 10)) + static_cast<uint16_t>(~old_word) + new_word;
  sum = (sum & 0xffff) + (sum >> 16);
  sum = (sum & 0xffff) + (sum >> 16);
  const uint16_t check = static_cast<uint16_t>(~sum);
  ip[10] = static_cast<uint8_t>(check >> 8);
  ip[11] = static_cast<uint8_t>(check);
  return true;
}

}  // namespace spraylab::dataplane
