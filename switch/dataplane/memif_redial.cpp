#include "switch/dataplane/memif_redial.h"

#include <rte_ethdev.h>

namespace spraylab::dataplane {

MemifRedial::MemifRedial(const std::vector<PortState>& ports, std::chrono::milliseconds retry)
    : retry_(retry) {
  const auto now = std::chrono::steady_clock::now();
  for (const auto& p : ports) {
    if (p.memif_client) clients_.push_back({p.port_id, true, now});
  }
}

void MemifRedial::on_turn() {
  const auto now = std::chrono::steady_clock::now();
  for (Client& c : clients_) {
    // A dial's handshake takes a few interrupt-thread turns: leave it `retry` to complete.
    if (link_up(c.port) || now - c.last_dial < retry_) continue;
    c.last_dial = now;
    if (c.started) rte_eth_dev_stop(c.port);
    // Fails while the server is away (its socket refuses the dial): the next turn tries again.
    c.started = rte_eth_dev_start(c.port) == 0;
  }
}

}  // namespace spraylab::dataplane
