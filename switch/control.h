// The switch's control plane: link-state monitoring, run-time commands over DPDK's telemetry
// socket, and the counters as JSON (for --stats-json, the telemetry commands and tests).
#pragma once

#include <rte_mempool.h>

#include <nlohmann/json.hpp>

#include <atomic>
#include <memory>
#include <vector>

#include "net/carrier_watch.h"
#include "net/ports.h"
#include "switch/dataplane/switch_runtime.h"

namespace spraylab::control {

class SwitchControl {
 public:
  // `pool`: the mbuf pool the ports receive into, reported by stats() (null: not reported).
  // carrier_period: how often the kernel interfaces' carriers are read (net::carrier_period).
  SwitchControl(dataplane::SwitchRuntime& rt, std::vector<net::PortState> ports,
                rte_mempool* pool = nullptr,
                std::chrono::microseconds carrier_period = net::CarrierWatch::kDefaultPeriod,
                std::chrono::microseconds carrier_max_period = std::chrono::microseconds(0));

  // Polls link status; a port is up when its link is up and no command took it down.
  // Cheap enough to call every 100 µs, so a failure leaves the candidate sets within 1 ms. The
  // link of an af_xdp / af_packet port is also its interface's carrier (the PMD never reports a
  // link down), as a CarrierWatch thread last read it (every 1 ms). Every change of a link is
  // logged on stderr, e.g. "spraylab-switch leaf0: port 5 (net_memif5, to spine3): link down", and
  // counted
  // (`link_downs` in the port's telemetry).
  void poll_links();
  // Once, some seconds after start-up: names every port whose link never came up, with the likely
  // cause for its driver (memif pairs one ring per queue: a peer with other queue counts never
  // connects, and sends to it would fail silently).
  // Safe to call repeatedly: each port is reported once.
  void report_dead_links();

  // Administrative state (telemetry /spraylab/port_down and /spraylab/port_up).
  void set_admin(uint16_t port, bool up);

  // Counters, queue depths and state of every port (the maxima: /spraylab/queue_max).
  nlohmann::ordered_json stats();

  // Registers /spraylab/* telemetry commands bound to this object (one switch per process).
  void register_telemetry();

  dataplane::SwitchRuntime& runtime() { return rt_; }

 private:
  void add_worker_stats(nlohmann::ordered_json& j, double* busy_period) const;
  nlohmann::ordered_json port_stats(uint16_t p, std::vector<uint64_t>& drops);
  nlohmann::ordered_json drops_json(uint16_t p, std::vector<uint64_t>& drops) const;
  dataplane::SwitchRuntime& rt_;
  std::vector<net::PortState> ports_;
  rte_mempool* pool_;
  std::unique_ptr<std::atomic<bool>[]> admin_up_;
  std::vector<bool> link_up_;
  std::vector<std::atomic<uint64_t>> link_downs_;  // written here, read by telemetry
  // The kernel interfaces of af_xdp / af_packet ports (null if none), and each port's index in
  // it (-1: a port whose PMD's link status is the whole truth).
  std::unique_ptr<net::CarrierWatch> carrier_;
  std::vector<int> carrier_index_;
  std::vector<bool> ever_up_;
  std::vector<bool> warned_;
};

}  // namespace spraylab::control
