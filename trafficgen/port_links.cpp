#include "trafficgen/port_links.h"

#include <fmt/format.h>

namespace spraylab::gen {

BurstIo carrier_gated_tx(const PortLinks& links) {
  if (!links.watches_carrier()) return {};
  return [&links](uint16_t port, rte_mbuf** pkts, uint16_t n) -> uint16_t {
    return links.carrier(port) ? rte_eth_tx_burst(port, 0, pkts, n) : 0;
  };
}

LinkLog::LinkLog(const PortLinks& links) : links_(links) {
  for (const auto& p : links_.ports()) up_.push_back(links_.up(p.port_id));
}
void LinkLog::poll() {
  const auto& ports = links_.ports();
  for (size_t i = 0; i < ports.size(); ++i) {
    const bool up = links_.up(ports[i].port_id);
    if (up == up_[i]) continue;
    up_[i] = up;
    fmt::print(stderr, "spraylab-gen: port {} ({}): link {}\n", ports[i].port_id, ports[i].name,
               up ? "up" : "down");
  }
}

}  // namespace spraylab::gen
