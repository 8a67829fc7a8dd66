// What the switch tests on net_ring ports share: their leaf-spine, EAL without hugepages, and
// 60-byte IPv4/UDP frames (18 B of zero payload) with a valid header checksum
// (spraylab::testing::ip_checksum, tests/integration/test_frames.h, checks them too).
#pragma once

#include <rte_mbuf.h>

#include <cstdint>
#include <cstring>

#include "net/frame.h"
#include "tests/integration/test_eal.h"
#include "tests/integration/test_frames.h"

namespace spraylab::dataplane::test {

// leaf0: ports 0-1 face hosts h0 and h1, ports 2-5 the four spines; h2 and h3 are on leaf1.
inline constexpr char kLeafSpine[] = R"(
seed: 7
topology: {generator: leaf-spine, leaves: 2, spines: 4, hosts_per_leaf: 2}
links: {rate: 100Gbps, delay: 500ns}
buffer: {bytes: 800KB}
load_balancer: {algorithm: ofan}
)";
inline constexpr uint16_t kLeafPorts = 6;

// EAL for one test process (tests/integration/test_eal.h: its own prefix, its folder removed at
// exit); true if it started.
inline bool init_eal(const char* program) { return spraylab::testing::init_test_eal(program, 512); }

// From `src` to `dst` (host-order addresses), UDP source port `sport`, destination port 4792.
inline rte_mbuf* udp_frame(rte_mempool* pool, uint32_t src, uint32_t dst, uint16_t sport,
                           uint8_t ttl = 64) {
  rte_mbuf* m = rte_pktmbuf_alloc(pool);
  if (m == nullptr) return nullptr;
  uint8_t* f = reinterpret_cast<uint8_t*>(rte_pktmbuf_append(m, 14 + 20 + 8 + 18));
  std::memset(f, 0, 60);
  f[12] = 0x08;
  uint8_t* ip = f + 14;
  ip[0] = 0x45;
  ip[3] = 46;
  ip[8] = ttl;
  ip[9] = net::kIpProtoUdp;
  for (int i = 0; i < 4; ++i) {
    ip[12 + i] = static_cast<uint8_t>(src >> (24 - 8 * i));
    ip[16 + i] = static_cast<uint8_t>(dst >> (24 - 8 * i));
  }
  const uint16_t c = spraylab::testing::ip_checksum(ip, 20);
  ip[10] = static_cast<uint8_t>(c >> 8);
  ip[11] = static_cast<uint8_t>(c);
  ip[20] = static_cast<uint8_t>(sport >> 8);
  ip[21] = static_cast<uint8_t>(sport);
  ip[22] = 0x12;  // 4792
  ip[23] = 0xb8;
  return m;
}

}  // namespace spraylab::dataplane::test
