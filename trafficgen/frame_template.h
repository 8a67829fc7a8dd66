// A generator frame from a template: Ethernet + IPv4 + UDP built once per (local host,
// destination), so a frame costs a 42-byte copy, four small stores and the testbed header
// (testpmd's txonly copies a template too).
//
// The sender writes frames and never reads them back: the IPv4 checksum of a frame is computed in
// registers from the template's checksum for a total length of 0, not patched in the packet. A
// load from bytes just written by a wider store stalls on store-to-load forwarding, and that one
// read-back once cost the generator about a tenth of its cycles per packet.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>

#include "net/virtual_channel.h"
#include "trafficgen/packet.h"

namespace spraylab::gen {

// The IPv4 TTL of every frame a host sends; the receiver reads the path's length in switches off
// what is left of it (HostEngine::path_switches), the switches a frame's virtual channel
// (net/virtual_channel.h).
inline constexpr uint8_t kSentTtl = net::kSentTtl;

struct FrameTemplate {
  static constexpr uint32_t kBytes = 14 + 20 + 8;  // Ethernet, IPv4, UDP
  // The headers with IPv4 total length, UDP length and UDP source port 0 (filled per frame). No
  // UDP checksum: allowed over IPv4.
  std::array<uint8_t, kBytes> bytes{};
  uint16_t ip_check_zero_len = 0;  // host order: the IPv4 checksum for a total length of 0
};

// The template for frames from (src_mac, src_ip) to (dst_mac, dst_ip) on UDP port `dst_port`,
// IPv4 ECN field `ecn`, TTL kSentTtl, don't fragment.
FrameTemplate make_frame_template(const std::array<uint8_t, 6>& dst_mac,
                                  const std::array<uint8_t, 6>& src_mac, uint32_t src_ip,
                                  uint32_t dst_ip, uint16_t dst_port, uint8_t ecn);

// Writes a frame of `frame_len` bytes (headers, testbed header, payload left as it is) at `p`:
// the template, its lengths and checksum, UDP source port `sport` and header `h`.
inline void write_frame(uint8_t* p, const FrameTemplate& t, uint32_t frame_len, uint16_t sport,
                        const TestbedHeader& h) {
  std::memcpy(p, t.bytes.data(), FrameTemplate::kBytes);
  const auto ip_len = static_cast<uint16_t>(frame_len - 14);
  uint32_t sum = static_cast<uint16_t>(~t.ip_check_zero_len) + uint32_t{ip_len};
  sum = (sum & 0xffff) + (sum >> 16);
  const uint16_t check = static_cast<uint16_t>(~sum);
  const uint16_t be_ip_len = to_big_endian(ip_len);
  const uint16_t be_check = to_big_endian(check);
  const uint16_t be_sport = to_big_endian(sport);
  const uint16_t be_udp_len = to_big_endian(static_cast<uint16_t>(ip_len - 20));
  std::memcpy(p + 16, &be_ip_len, 2);
  std::memcpy(p + 24, &be_check, 2);
  std::memcpy(p + 34, &be_sport, 2);
  std::memcpy(p + 38, &be_udp_len, 2);
  encode(h, p + FrameTemplate::kBytes);
}

}  // namespace spraylab::gen
