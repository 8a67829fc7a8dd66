// spraylab-gen's view of its ports' links (trafficgen/spraylab_gen.cpp): the PMD's link status
// and, for af_xdp / af_packet ports, the carrier of their kernel interface; a transmit that holds
// frames while a carrier is down, and the log of every link change.
#pragma once

#include <rte_ethdev.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "net/carrier_watch.h"
#include "net/ports.h"
#include "trafficgen/host_engine.h"

namespace spraylab::gen {

// Each port's link as the generator sees it: the PMD's link status and, for an af_xdp / af_packet
// port, its kernel interface's carrier (those PMDs report their link up whatever the interface
// does: net/carrier_watch.h), read on a control thread of its own, never on an engine's lcore.
class PortLinks {
 public:
  PortLinks(const std::vector<net::PortState>& ports, std::chrono::microseconds carrier_period,
            std::chrono::microseconds carrier_max_period)
      : ports_(ports), carrier_index_(RTE_MAX_ETHPORTS, -1) {
    std::vector<std::string> ifaces;
    for (const auto& p : ports_) {
      if (p.iface.empty()) continue;
      carrier_index_[p.port_id] = static_cast<int>(ifaces.size());
      ifaces.push_back(p.iface);
    }
    if (!ifaces.empty()) {
      carrier_ = std::make_unique<net::CarrierWatch>(std::move(ifaces), carrier_period,
                                                     carrier_max_period);
    }
  }
  const std::vector<net::PortState>& ports() const { return ports_; }
  bool watches_carrier() const { return carrier_ != nullptr; }
  // The carrier of `port_id`'s interface at the watch's last read; true for a port without one.
  // An inline relaxed load: cheap enough for an engine's tx burst.
  bool carrier(uint16_t port_id) const {
    const int i = carrier_index_[port_id];
    return i < 0 || carrier_->up(static_cast<size_t>(i));
  }
  bool up(uint16_t port_id) const { return net::link_up(port_id) && carrier(port_id); }

 private:
  const std::vector<net::PortState>& ports_;
  std::vector<int> carrier_index_;  // by port id; -1: the PMD's link status is the whole truth
  std::unique_ptr<net::CarrierWatch> carrier_;
};

// The engines' transmit for ports with a carrier watch (empty: rte_eth_tx_burst as it is). While
// an af_xdp / af_packet port's carrier is down the device takes nothing: its frames wait in the
// engine's tx slots, as they do on a memif or vhost-user port whose peer is gone, instead of being
// handed to a kernel that would drop them. Nothing is lost: a run that ends so counts them as
// `tx_pending` (--stats-json), and what the outage lost on the way is sent again.
BurstIo carrier_gated_tx(const PortLinks& links);

// Logs every change of a port's link ("spraylab-gen: port 0 (net_memif0): link down"). While a
// link is down its frames wait in the engine's tx slots (the device takes none, or for af_xdp /
// af_packet the engine offers none: carrier_gated_tx) and messages stay outstanding; when it is
// back they go out, and what the outage lost is sent again by the retransmission timeout.
class LinkLog {
 public:
  explicit LinkLog(const PortLinks& links);
  // Logs the links that changed since the last poll.
  void poll();

 private:
  const PortLinks& links_;
  std::vector<bool> up_;
};

}  // namespace spraylab::gen
