// The per-burst pipeline of DESIGN.md, "How a packet flows": parse → route → balance → egress
// queue, and the drain of an egress queue through its shaper into the device. One Forwarder per
// worker; the standalone switch and the in-process fabric both drive it.
#pragma once

#include <rte_mbuf.h>

#include <array>

#include "switch/dataplane/frame.h"
#include "switch/dataplane/switch_runtime.h"
#include "switch/lb/rng.h"

namespace spraylab::dataplane {

class Forwarder {
 public:
  Forwarder(SwitchRuntime& rt, uint32_t worker);

  // Takes ownership of pkts[0..n): each is enqueued on an egress port or freed and counted.
  void process(rte_mbuf** pkts, uint16_t n, uint16_t rx_port, uint16_t rx_queue, uint64_t now_ns);
  // Sends what port `p`'s shaper allows through `tx`: a function (port, mbufs, count) → sent,
  // e.g. rte_eth_tx_burst on queue 0. Returns packets sent. Only the port's owner calls it.
  template <typename Tx>
  uint16_t drain(uint16_t p, uint64_t now_ns, Tx&& tx);

  uint32_t worker() const { return worker_; }

 private:
  void drop(rte_mbuf* m, uint16_t port, DropReason r);
  void stage(rte_mbuf* m, uint16_t port) {
    if (staged_count_[port] == 0) touched_[touched_count_++] = port;
    staged_[port][staged_count_[port]++] = m;
  }
  void flush(uint16_t port);
  uint16_t refill(EgressPort& e);
  // Drops and counts everything queued on a down port.
  void discard(uint16_t p, EgressPort& e);

  SwitchRuntime& rt_;
  uint32_t worker_;
  WorkerCounters& c_;
  lb::Rng rng_;
  // The burst's balancing inputs and outputs: members, not locals, because lb::Packet's default
  // member initialisers would clear 1.3 KB on every burst.
  std::array<lb::Packet, kBurst> choice_;
  std::array<uint16_t, kBurst> choice_of_;  // index into the burst of each choice_ packet
  // Per-port staging for the current burst: enqueued with one ring operation per port.
  std::array<std::array<rte_mbuf*, kBurst>, kMaxPorts> staged_{};
  std::array<uint16_t, kMaxPorts> staged_count_{};
  // Balancing decisions of the current burst per port, added to the port's counter by flush():
  // a plain array, because an atomic counter's load-add-store per packet was a hot spot.
  std::array<uint16_t, kMaxPorts> decided_{};
  std::array<uint16_t, kBurst> touched_{};
  uint16_t touched_count_ = 0;
};

template <typename Tx>
uint16_t Forwarder::drain(uint16_t p, uint64_t now_ns, Tx&& tx) {
  EgressPort& e = rt_.egress(p);
  if (!rt_.port_up(p)) {
    discard(p, e);
    return 0;
  }
  if (e.held_count == 0 && refill(e) == 0) return 0;
  // How many held frames the shaper lets start now.
  Shaper trial = e.shaper;
  uint16_t allowed = 0;
  while (allowed < e.held_count && trial.may_send(now_ns)) {
    trial.sent(rte_pktmbuf_pkt_len(e.held[allowed]), now_ns);
    ++allowed;
  }
  if (allowed == 0) return 0;
  const uint16_t sent = tx(p, e.held.data(), allowed);
  uint32_t bytes = 0;
  for (uint16_t i = 0; i < sent; ++i) {
    const uint32_t len = rte_pktmbuf_pkt_len(e.held[i]);
    bytes += len;
    e.shaper.sent(len, now_ns);
  }
  // What the device did not take stays at the head of the queue, in order.
  for (uint16_t i = sent; i < e.held_count; ++i) e.held[i - sent] = e.held[i];
  e.held_count = static_cast<uint16_t>(e.held_count - sent);
  rt_.depth_packets(p).fetch_sub(sent, std::memory_order_relaxed);
  rt_.depth_bytes(p).fetch_sub(bytes, std::memory_order_relaxed);
  c_.port[p].tx_packets.add(sent);
  c_.port[p].tx_bytes.add(bytes);
  return sent;
}

}  // namespace spraylab::dataplane
