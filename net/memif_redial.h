// Reconnects memif client ports whose server went away. DPDK 22.11's memif client dials its
// server only in rte_eth_dev_start (memif_connect_client); once the server dies the port stays
// down for good, even after the server is back. A client port that is down is restarted
// (stop + start: a new dial) at most every `retry`, on the interrupt thread's turn of an IntrGate,
// when no poller is inside a burst and no other memif callback runs; and, for a filesystem socket,
// only once a new socket file is there (a restarted server's): a start that fails leaves the port
// stopped, and ethdev then answers every burst on it with an error message and a stack dump. Server
// ports need nothing: their listening socket accepts the peer's next dial on its own.
// A restarted server's socket file appears when its process probes the port, but the server
// rejects a client ("ID mismatch", a disconnect) until it starts the port: a dial in between, which
// a loaded machine makes likely, leaves the client down with the socket file it dialled. So a dial
// that has not brought the link up within `settle` is repeated on the same file, until the link
// comes up once (after which only a new file is dialled again).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "net/ports.h"

namespace spraylab::net {

class MemifRedial {
 public:
  // Watches the memif client ports among `ports` (all of them started).
  explicit MemifRedial(const std::vector<PortState>& ports,
                       std::chrono::milliseconds retry = std::chrono::milliseconds(500),
                       std::chrono::milliseconds settle = std::chrono::milliseconds(2000));

  bool empty() const { return clients_.empty(); }
  // Restarts the client ports down for at least `retry` since their last dial. Interrupt thread
  // only (IntrGate's on_turn).
  void on_turn();
  // Whether on_turn() would dial now (IntrGate's wants_turn: a turn parks the pollers, so the
  // gate takes one only when this says so or an interrupt source is ready).
  bool wants_turn() const;

 private:
  struct Client;
  // Whether c's link is down; a link seen up ends c's awaiting.
  bool down(const Client& c) const;
  // Whether c, down and last dialled `retry` ago, is dialled now (`id`: its socket file's).
  bool due(const Client& c, std::chrono::steady_clock::time_point now, uint64_t id) const;

  struct Client {
    uint16_t port;
    std::string socket;
    uint64_t dialled = 0;  // identity of the socket file last dialled
    bool started = true;
    std::chrono::steady_clock::time_point last_dial{};
    // Dialled by on_turn() and not seen up since: the server may have rejected the dial (not
    // started yet), so the same file is dialled again after `settle`. Cleared when the link is
    // seen up (down(), which wants_turn() calls often), so that a killed server's leftover file is
    // not dialled.
    mutable bool awaiting = false;
  };
  std::vector<Client> clients_;
  std::chrono::milliseconds retry_;
  std::chrono::milliseconds settle_;
};

}  // namespace spraylab::net
