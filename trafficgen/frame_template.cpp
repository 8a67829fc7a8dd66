#include "trafficgen/frame_template.h"

namespace spraylab::gen {
namespace {

void put16(uint8_t* p, uint16_t v) {
  p[0] = static_cast<uint8_t>(v >> 8);
  p[1] = static_cast<uint8_t>(v);
}
void put32(uint8_t* p, uint32_t v) {
  put16(p, static_cast<uint16_t>(v >> 16));
  put16(p + 2, static_cast<uint16_t>(v));
}

// RFC 1071: the one's complement of the one's complement sum of the header's 16-bit words.
uint16_t ipv4_checksum(const uint8_t* ip) {
  uint32_t sum = 0;
  for (int i = 0; i < 20; i += 2) sum += static_cast<uint32_t>(ip[i] << 8 | ip[i + 1]);
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return static_cast<uint16_t>(~sum);
}

}  // namespace

FrameTemplate make_frame_template(const std::array<uint8_t, 6>& dst_mac,
                                  const std::array<uint8_t, 6>& src_mac, uint32_t src_ip,
                                  uint32_t dst_ip, uint16_t dst_port, uint8_t ecn) {
  FrameTemplate t;
  uint8_t* p = t.bytes.data();
  std::memcpy(p, dst_mac.data(), 6);
  std::memcpy(p + 6, src_mac.data(), 6);
  put16(p + 12, 0x0800);  // IPv4
  uint8_t* ip = p + 14;
  ip[0] = 0x45;
  ip[1] = ecn;
  put32(ip + 4, 0x00004000);  // id 0, don't fragment
  ip[8] = kSentTtl;
  ip[9] = 17;  // UDP
  put32(ip + 12, src_ip);
  put32(ip + 16, dst_ip);
  t.ip_check_zero_len = ipv4_checksum(ip);
  put16(ip + 22, dst_port);
  return t;
}

}  // namespace spraylab::gen
