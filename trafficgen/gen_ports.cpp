#include "trafficgen/gen_ports.h"

#include <rte_cycles.h>
#include <rte_pause.h>

#include <algorithm>
#include <cstring>
#include <string_view>

#include <fmt/format.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "net/wire.h"

namespace spraylab::gen {
namespace {

constexpr uint16_t kRxDesc = 1024;
constexpr uint16_t kTxDesc = 1024;

}  // namespace

std::vector<net::PortState> start_gen_ports(uint16_t count, uint32_t max_frame,
                                            rte_mempool** pool) {
  const uint16_t available = rte_eth_dev_count_avail();
  if (available < count) {
    throw net::PortError(fmt::format(
        "the hosts use {} ports (--port-map, or host i on port i) but DPDK found {} devices; "
        "give one --vdev (or -a PCI address) per port, in port order",
        count, available));
  }
  net::PortSetup setup;  // one rx and one tx queue per port
  setup.rx_desc = kRxDesc;
  setup.tx_desc = kTxDesc;
  setup.mbufs = count * (kRxDesc + kTxDesc + 2048) + rte_lcore_count() * 512 + 4096;
  setup.data_room = static_cast<uint16_t>(RTE_PKTMBUF_HEADROOM + ((max_frame + 63) / 64) * 64);
  // af_xdp (22.11) makes the pool its umem, one chunk per mbuf, and the kernel takes chunks of
  // 2 KiB to a page: a pool sized to small frames fails with "Failed to create umem".
  if (net::any_af_xdp(count)) {
    setup.data_room = std::max<uint16_t>(setup.data_room, RTE_MBUF_DEFAULT_BUF_SIZE);
  }
  std::vector<net::PortState> ports = net::start_ports(count, setup, pool);
  for (const auto& p : ports) {
    rte_eth_dev_info info{};
    if (rte_eth_dev_info_get(p.port_id, &info) == 0 && info.max_rx_pktlen != 0 &&
        info.max_rx_pktlen < max_frame) {
      // memif reports 1518 B but carries larger frames over several descriptors; a NIC would
      // drop them, so say so rather than refuse.
      fmt::print(stderr,
                 "spraylab-gen: warning: port {} ({}) reports frames up to {} B; the "
                 "workload sends {} B frames\n",
                 p.port_id, p.name, info.max_rx_pktlen, max_frame);
    }
  }
  return ports;
}

uint32_t warm_up_port(uint16_t port_id, rte_mempool* pool, uint32_t frames, uint32_t frame_bytes,
                      double seconds) {
  const uint64_t end = rte_rdtsc() + static_cast<uint64_t>(seconds * rte_get_tsc_hz());
  uint32_t sent = 0;
  rte_mbuf* burst[net::kBurst];
  while (rte_rdtsc() < end) {
    const uint16_t n = rte_eth_rx_burst(port_id, 0, burst, net::kBurst);
    if (n) rte_pktmbuf_free_bulk(burst, n);
    if (sent >= frames) {
      if (n == 0) rte_pause();
      continue;
    }
    const uint16_t want = static_cast<uint16_t>(std::min<uint32_t>(net::kBurst, frames - sent));
    if (rte_pktmbuf_alloc_bulk(pool, burst, want) != 0) continue;
    for (uint16_t i = 0; i < want; ++i) {
      auto* d = reinterpret_cast<uint8_t*>(
          rte_pktmbuf_append(burst[i], static_cast<uint16_t>(frame_bytes)));
      std::memset(d, 0, frame_bytes);
      std::memset(d, 0xff, 6);  // broadcast; source MAC 0
      d[12] = 0x08;             // IPv4, 255.255.255.255 (never routed), UDP to port 9 (discard)
      d[14] = 0x45;
      const uint32_t ip_len = frame_bytes - 14;
      d[16] = static_cast<uint8_t>(ip_len >> 8);
      d[17] = static_cast<uint8_t>(ip_len);
      d[22] = 1;  // TTL 1
      d[23] = 17;
      std::memset(d + 30, 0xff, 4);
      d[37] = 9;
      d[38] = static_cast<uint8_t>((ip_len - 20) >> 8);
      d[39] = static_cast<uint8_t>(ip_len - 20);
    }
    const uint16_t ok = rte_eth_tx_burst(port_id, 0, burst, want);
    if (ok < want) rte_pktmbuf_free_bulk(burst + ok, want - ok);
    sent += ok;
  }
  return sent;
}

}  // namespace spraylab::gen
