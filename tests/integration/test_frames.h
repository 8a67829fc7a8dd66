// Frames the switch tests send: Ethernet + IPv4 + UDP with a sequence number in the payload.
// Shared by the switch's driver (switch_driver.cpp) and the fabric's switch probe
// (tests/fabric/fabric_switch_probe.cpp), so both feed a switch the very same bytes.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "topo/addressing.h"

namespace spraylab::testing {

inline uint16_t ip_checksum(const uint8_t* ip, uint32_t len) {
  uint32_t sum = 0;
  for (uint32_t i = 0; i < len; i += 2) sum += static_cast<uint32_t>(ip[i] << 8 | ip[i + 1]);
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return static_cast<uint16_t>(~sum);
}

inline std::vector<uint8_t> udp_frame(const topo::Mac& dst_mac, const topo::Mac& src_mac,
                                      uint32_t src_ip, uint32_t dst_ip, uint16_t sport,
                                      uint32_t seq, uint32_t payload, uint8_t ttl) {
  const uint32_t ip_len = 20 + 8 + payload;
  std::vector<uint8_t> f(14 + ip_len, 0);
  std::memcpy(f.data(), dst_mac.data(), 6);
  std::memcpy(f.data() + 6, src_mac.data(), 6);
  f[12] = 0x08;
  uint8_t* ip = f.data() + 14;
  ip[0] = 0x45;
  ip[1] = 0x02;  // ECT(0): the switch may mark CE
  ip[2] = static_cast<uint8_t>(ip_len >> 8);
  ip[3] = static_cast<uint8_t>(ip_len);
  ip[8] = ttl;
  ip[9] = 17;
  for (int i = 0; i < 4; ++i) {
    ip[12 + i] = static_cast<uint8_t>(src_ip >> (24 - 8 * i));
    ip[16 + i] = static_cast<uint8_t>(dst_ip >> (24 - 8 * i));
  }
  const uint16_t c = ip_checksum(ip, 20);
  ip[10] = static_cast<uint8_t>(c >> 8);
  ip[11] = static_cast<uint8_t>(c);
  uint8_t* udp = ip + 20;
  udp[0] = static_cast<uint8_t>(sport >> 8);
  udp[1] = static_cast<uint8_t>(sport);
  udp[2] = 0x12;  // 4791
  udp[3] = 0xb7;
  udp[4] = static_cast<uint8_t>((8 + payload) >> 8);
  udp[5] = static_cast<uint8_t>(8 + payload);
  if (payload >= 4) std::memcpy(udp + 8, &seq, 4);
  return f;
}

}  // namespace spraylab::testing
