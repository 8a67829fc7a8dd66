// Ethernet device set-up for the switch and the generator: one mempool, every port started with
// the queues its lcores need, and checks that turn DPDK's silent failure modes into start-up
// errors.
#pragma once

#include <rte_mbuf.h>
#include <rte_mempool.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace spraylab::net {

class PortError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct PortSetup {
  uint16_t rx_queues = 1;  // per port; the workers poll them
  uint16_t tx_queues = 1;
  uint16_t rx_desc = 1024;
  uint16_t tx_desc = 1024;
  uint32_t mbufs = 0;  // 0: computed from ports and queues
  // Bytes of an mbuf's data room, headroom included (the generator's hold a whole frame).
  uint16_t data_room = RTE_MBUF_DEFAULT_BUF_SIZE;
  bool promiscuous = true;  // frames come addressed to the peer's MAC idea of us
};

struct PortState {
  uint16_t port_id;
  std::string name;  // the device name (e.g. net_memif0)
  std::string driver;
  uint16_t rx_queues;
  uint16_t tx_queues;
  uint32_t max_rx_queues;
  // From the device's arguments: a memif client (it connects only when started, so it must be
  // restarted to reach a server that came back: memif_redial.h), and the kernel interface of an
  // af_xdp / af_packet port (whose PMD reports its link up whatever the interface's carrier:
  // carrier_watch.h).
  bool memif_client = false;
  std::string iface;
  std::string memif_socket;  // a memif port's socket path; abstract: starts with '\0'
};

// Configures and starts ports 0..count-1 (DPDK port ids in probe order: the order of --vdev or
// -a arguments). Throws PortError naming the port and what failed.
std::vector<PortState> start_ports(uint16_t count, const PortSetup& setup, rte_mempool** pool);

// True if one of devices 0..count-1 is an af_xdp port (its pool is its umem: sizes and layout
// follow, start_ports and the programs' mbuf sizing).
bool any_af_xdp(uint16_t count);

// True if the EAL arguments (those before "--") pass --no-pci or an -a/--allow list, so EAL
// probes no PCI device it was not given (a machine's own NIC). Test and bench programs refuse to
// start without it.
bool pci_probing_limited(int argc, char** argv);

// Link status now (non-blocking), as the PMD reports it.
bool link_up(uint16_t port_id);

void stop_ports(const std::vector<PortState>& ports);

}  // namespace spraylab::net
