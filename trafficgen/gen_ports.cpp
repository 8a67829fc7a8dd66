#include "trafficgen/gen_ports.h"

#include <rte_cycles.h>
#include <rte_pause.h>

#include <algorithm>
#include <cstring>

#include <fmt/format.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

namespace spraylab::gen {
namespace {

constexpr uint16_t kRxDesc = 1024;
constexpr uint16_t kTxDesc = 1024;

std::string err(int rc) { return fmt::format("{} ({})", rte_strerror(-rc), rc); }

}  // namespace

std::vector<GenPort> start_gen_ports(uint16_t count, uint32_t max_frame, rte_mempool** pool) {
  const uint16_t available = rte_eth_dev_count_avail();
  if (available < count) {
    throw GenPortError(fmt::format(
        "the hosts use {} ports (--port-map, or host i on port i) but DPDK found {} devices; "
        "give one --vdev (or -a PCI address) per port, in port order",
        count, available));
  }
  const uint32_t mbufs = count * (kRxDesc + kTxDesc + 2048) + rte_lcore_count() * 512 + 4096;
  const auto room = static_cast<uint16_t>(RTE_PKTMBUF_HEADROOM + ((max_frame + 63) / 64) * 64);
  *pool = rte_pktmbuf_pool_create("spraylab_gen", mbufs, 256, 0, room,
                                  static_cast<int>(rte_socket_id()));
  if (*pool == nullptr) {
    throw GenPortError(fmt::format(
        "cannot allocate {} mbufs of {} B: {} (are hugepages reserved? scripts/setup.sh does it)",
        mbufs, room, rte_strerror(rte_errno)));
  }
  std::vector<GenPort> out;
  for (uint16_t p = 0; p < count; ++p) {
    rte_eth_dev_info info{};
    int rc = rte_eth_dev_info_get(p, &info);
    if (rc != 0)
      throw GenPortError(fmt::format("port {}: cannot read device info: {}", p, err(rc)));
    char name[RTE_ETH_NAME_MAX_LEN] = {};
    rte_eth_dev_get_name_by_port(p, name);
    if (info.max_rx_pktlen != 0 && info.max_rx_pktlen < max_frame) {
      // memif reports 1518 B but carries larger frames over several descriptors; a NIC would
      // drop them, so say so rather than refuse.
      fmt::print(stderr,
                 "spraylab-gen: warning: port {} ({}) reports frames up to {} B; the "
                 "workload sends {} B frames\n",
                 p, name, info.max_rx_pktlen, max_frame);
    }
    rte_eth_conf conf{};
    rc = rte_eth_dev_configure(p, 1, 1, &conf);
    if (rc != 0) throw GenPortError(fmt::format("port {} ({}): configure: {}", p, name, err(rc)));
    uint16_t rxd = kRxDesc, txd = kTxDesc;
    rte_eth_dev_adjust_nb_rx_tx_desc(p, &rxd, &txd);
    const int socket = rte_eth_dev_socket_id(p);
    rc = rte_eth_rx_queue_setup(p, 0, rxd, socket, nullptr, *pool);
    if (rc != 0) throw GenPortError(fmt::format("port {} ({}): rx queue: {}", p, name, err(rc)));
    rc = rte_eth_tx_queue_setup(p, 0, txd, socket, nullptr);
    if (rc != 0) throw GenPortError(fmt::format("port {} ({}): tx queue: {}", p, name, err(rc)));
    rc = rte_eth_dev_start(p);
    if (rc != 0) throw GenPortError(fmt::format("port {} ({}): start: {}", p, name, err(rc)));
    rte_eth_promiscuous_enable(p);
    out.push_back({p, name, info.driver_name ? info.driver_name : "?"});
  }
  return out;
}

bool gen_link_up(uint16_t port_id) {
  rte_eth_link link{};
  if (rte_eth_link_get_nowait(port_id, &link) != 0) return false;
  return link.link_status == RTE_ETH_LINK_UP;
}

void stop_gen_ports(const std::vector<GenPort>& ports) {
  for (const auto& p : ports) {
    rte_eth_dev_stop(p.port_id);
    rte_eth_dev_close(p.port_id);
  }
}

uint32_t warm_up_port(uint16_t port_id, rte_mempool* pool, uint32_t frames, uint32_t frame_bytes,
                      double seconds) {
  constexpr uint16_t kBurst = 32;
  const uint64_t end = rte_rdtsc() + static_cast<uint64_t>(seconds * rte_get_tsc_hz());
  uint32_t sent = 0;
  rte_mbuf* burst[kBurst];
  while (rte_rdtsc() < end) {
    const uint16_t n = rte_eth_rx_burst(port_id, 0, burst, kBurst);
    if (n) rte_pktmbuf_free_bulk(burst, n);
    if (sent >= frames) {
      if (n == 0) rte_pause();
      continue;
    }
    const uint16_t want = static_cast<uint16_t>(std::min<uint32_t>(kBurst, frames - sent));
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
