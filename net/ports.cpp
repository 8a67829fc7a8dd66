#include "net/ports.h"

#include <fmt/format.h>
#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mbuf_pool_ops.h>
#include <rte_mempool.h>

#include <algorithm>
#include <string_view>

namespace spraylab::net {
namespace {

std::string err(int rc) { return fmt::format("{} ({})", rte_strerror(-rc), rc); }

// The value of `key` in a device's arguments ("role=client,id=0,socket=..."), or "".
std::string devarg(const rte_eth_dev_info& info, std::string_view key) {
  const rte_devargs* da = info.device ? rte_dev_devargs(info.device) : nullptr;
  if (da == nullptr || da->args == nullptr) return {};
  std::string_view args = da->args;
  while (!args.empty()) {
    const size_t comma = args.find(',');
    const std::string_view kv = args.substr(0, comma);
    if (kv.size() > key.size() && kv.starts_with(key) && kv[key.size()] == '=') {
      return std::string(kv.substr(key.size() + 1));
    }
    if (comma == std::string_view::npos) break;
    args.remove_prefix(comma + 1);
  }
  return {};
}

// The pool of an af_xdp port, with its objects packed end to end. DPDK 22.11's net_af_xdp
// registers as its umem the pool's first memory chunk, populated_size x object size bytes long
// (get_base_addr; fixed upstream in 24.07, "net/af_xdp: parse UMEM map info from mempool"). A
// default pool in 4 KB pages (--no-huge) keeps each 2.4 KB mbuf within a page, one per page, and
// spans 1.7 times that: measured, 50.3 MB against 29.1 MB for a switch's 12288 mbufs. The mbufs
// past the umem's end are invalid to the kernel: as fill-ring buffers they are dropped one by
// one until the ring runs dry (imissed: the last port set up took most of them), as transmit
// buffers their frames vanish. Packed (RTE_MEMPOOL_F_NO_IOVA_CONTIG: an object may cross a page,
// which copy-mode AF_XDP, all a veth has, does not mind) the chunk is exactly what is registered.
rte_mempool* packed_pktmbuf_pool(const char* name, uint32_t n, uint16_t data_room, int socket) {
  rte_mempool* mp = rte_mempool_create_empty(name, n, sizeof(rte_mbuf) + data_room, 256,
                                             sizeof(rte_pktmbuf_pool_private), socket,
                                             RTE_MEMPOOL_F_NO_IOVA_CONTIG);
  if (mp == nullptr) return nullptr;
  if (rte_mempool_set_ops_byname(mp, rte_mbuf_best_mempool_ops(), nullptr) != 0) {
    rte_mempool_free(mp);
    return nullptr;
  }
  rte_pktmbuf_pool_private priv{};
  priv.mbuf_data_room_size = data_room;
  rte_pktmbuf_pool_init(mp, &priv);
  if (rte_mempool_populate_default(mp) < 0 || mp->nb_mem_chunks != 1) {
    rte_mempool_free(mp);
    return nullptr;
  }
  rte_mempool_obj_iter(mp, rte_pktmbuf_init, nullptr);
  return mp;
}

}  // namespace

bool any_af_xdp(uint16_t count) {
  // Only devices that exist: rte_eth_dev_info_get logs an error for any other port id.
  for (uint16_t p = 0; p < count && p < rte_eth_dev_count_avail(); ++p) {
    rte_eth_dev_info info{};
    if (rte_eth_dev_info_get(p, &info) == 0 && info.driver_name != nullptr &&
        std::string_view(info.driver_name) == "net_af_xdp") {
      return true;
    }
  }
  return false;
}

namespace {

// The pool every port receives into: descriptors on every ring plus what sits in egress queues
// and lcore caches, unless the caller says how many. af_xdp needs its mbufs packed (one umem
// chunk each).
rte_mempool* make_pool(uint16_t count, const PortSetup& setup) {
  uint32_t mbufs = setup.mbufs;
  if (mbufs == 0) {
    mbufs = count * (setup.rx_queues * setup.rx_desc + setup.tx_queues * setup.tx_desc + 4096) +
            rte_lcore_count() * 512 + 4096;
  }
  rte_mempool* pool =
      any_af_xdp(count) ? packed_pktmbuf_pool("spraylab_mbufs", mbufs, setup.data_room,
                                              static_cast<int>(rte_socket_id()))
                        : rte_pktmbuf_pool_create("spraylab_mbufs", mbufs, 256, 0, setup.data_room,
                                                  static_cast<int>(rte_socket_id()));
  if (pool == nullptr) {
    throw PortError(
        fmt::format("cannot allocate {} mbufs of {} B: {} (are hugepages reserved? "
                    "scripts/setup.sh does it)",
                    mbufs, setup.data_room, rte_strerror(rte_errno)));
  }
  return pool;
}

// What port `p` is: its name, driver, queues (as many as asked, at most what it has) and, for
// memif and veth drivers, what the peer-death and carrier checks need.
PortState describe_port(uint16_t p, const PortSetup& setup, rte_eth_dev_info* info) {
  const int rc = rte_eth_dev_info_get(p, info);
  if (rc != 0) throw PortError(fmt::format("port {}: cannot read device info: {}", p, err(rc)));
  char name[RTE_ETH_NAME_MAX_LEN] = {};
  rte_eth_dev_get_name_by_port(p, name);
  PortState s{p,
              name,
              info->driver_name ? info->driver_name : "?",
              std::min<uint16_t>(setup.rx_queues, info->max_rx_queues),
              std::min<uint16_t>(setup.tx_queues, info->max_tx_queues),
              info->max_rx_queues,
              false,
              {},
              {}};
  s.memif_client = s.driver == "net_memif" && devarg(*info, "role") == "client";
  if (s.driver == "net_af_xdp" || s.driver == "net_af_packet") s.iface = devarg(*info, "iface");
  if (s.driver == "net_memif") {
    // memif's defaults in 22.11: /run/memif.sock, abstract.
    s.memif_socket = devarg(*info, "socket");
    if (s.memif_socket.empty()) s.memif_socket = "/run/memif.sock";
    if (devarg(*info, "socket-abstract") != "no") s.memif_socket.insert(0, 1, '\0');
  }
  if (s.rx_queues == 0 || s.tx_queues == 0) {
    throw PortError(fmt::format("port {} ({}): the device has no queues", p, name));
  }
  return s;
}

// Configures, sets up the queues of and starts port `s` (RSS over IP and UDP when it has
// several rx queues and the device hashes).
void configure_and_start(const PortState& s, const rte_eth_dev_info& info, const PortSetup& setup,
                         rte_mempool* pool) {
  const uint16_t p = s.port_id;
  const std::string& name = s.name;
  rte_eth_conf conf{};
  if (s.rx_queues > 1 && info.flow_type_rss_offloads != 0) {
    conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
    conf.rx_adv_conf.rss_conf.rss_hf =
        (RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP) & info.flow_type_rss_offloads;
  }
  int rc = rte_eth_dev_configure(p, s.rx_queues, s.tx_queues, &conf);
  if (rc != 0) {
    throw PortError(fmt::format("port {} ({}): configure with {} rx / {} tx queues: {}", p, name,
                                s.rx_queues, s.tx_queues, err(rc)));
  }
  uint16_t rxd = setup.rx_desc, txd = setup.tx_desc;
  rte_eth_dev_adjust_nb_rx_tx_desc(p, &rxd, &txd);
  const int socket = rte_eth_dev_socket_id(p);
  for (uint16_t q = 0; q < s.rx_queues; ++q) {
    rc = rte_eth_rx_queue_setup(p, q, rxd, socket, nullptr, pool);
    if (rc != 0) throw PortError(fmt::format("port {} ({}): rx queue {}: {}", p, name, q, err(rc)));
  }
  for (uint16_t q = 0; q < s.tx_queues; ++q) {
    rc = rte_eth_tx_queue_setup(p, q, txd, socket, nullptr);
    if (rc != 0) throw PortError(fmt::format("port {} ({}): tx queue {}: {}", p, name, q, err(rc)));
  }
  rc = rte_eth_dev_start(p);
  if (rc != 0) throw PortError(fmt::format("port {} ({}): start: {}", p, name, err(rc)));
  if (setup.promiscuous) rte_eth_promiscuous_enable(p);
}

}  // namespace

std::vector<PortState> start_ports(uint16_t count, const PortSetup& setup, rte_mempool** pool) {
  const uint16_t available = rte_eth_dev_count_avail();
  if (available < count) {
    throw PortError(fmt::format(
        "the switch has {} ports but DPDK found {} devices; give one --vdev (or -a PCI address) "
        "per port, in port order",
        count, available));
  }
  *pool = make_pool(count, setup);
  std::vector<PortState> out;
  for (uint16_t p = 0; p < count; ++p) {
    rte_eth_dev_info info{};
    const PortState s = describe_port(p, setup, &info);
    configure_and_start(s, info, setup, *pool);
    out.push_back(s);
  }
  return out;
}

bool pci_probing_limited(int argc, char** argv) {
  for (int i = 1; i < argc && std::string_view(argv[i]) != "--"; ++i) {
    const std::string_view a = argv[i];
    if (a == "--no-pci" || a == "-a" || a.starts_with("--allow")) return true;
  }
  return false;
}

bool link_up(uint16_t port_id) {
  rte_eth_link link{};
  if (rte_eth_link_get_nowait(port_id, &link) != 0) return false;
  return link.link_status == RTE_ETH_LINK_UP;
}

void stop_ports(const std::vector<PortState>& ports) {
  for (const auto& p : ports) {
    rte_eth_dev_stop(p.port_id);
    rte_eth_dev_close(p.port_id);
  }
}

}  // namespace spraylab::net
