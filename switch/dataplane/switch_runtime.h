// The state of one running switch, shared by its worker lcores and its control plane: route
// tables, egress queues with their depths, live candidate sets, the balancers, and the counters.
// Built once at start-up from SwitchTables; the data path (forwarder.h) only reads it, except for
// what each worker owns (its counters, the egress ports it drains).
#pragma once

#include <rte_mbuf.h>
#include <rte_ring.h>

#include <array>
#include <atomic>
#include <bit>
#include <memory>
#include <mutex>
#include <vector>

#include "switch/dataplane/counter.h"
#include "switch/dataplane/counters.h"
#include "switch/dataplane/credit.h"
#include "switch/dataplane/egress_queue.h"
#include "switch/dataplane/pfc.h"
#include "switch/dataplane/route_lookup.h"
#include "switch/dataplane/switch_tables.h"
#include "switch/lb/factory.h"
#include "switch/lb/rcu.h"

namespace spraylab::dataplane {

inline constexpr uint16_t kMaxPorts = 128;
// A trimming port's priority ring: 1023 trimmed headers (61 KB) at most; a header that finds it
// full is a trim_queue_full drop. (The reference bounds its header queue at twice the buffer in
// bytes; a fixed ring keeps a fabric's memory per port small.)
inline constexpr uint32_t kTrimQueueSlots = 1024;

// Throws the error SwitchRuntime would if a switch of t has more than kMaxPorts ports: fabrics
// call it before EAL, whose memory for a fabric that large can fail first with a vaguer error.
void check_switch_ports(const topo::Topology& t);

// Per-port counters of one worker (only that worker writes them).
struct alignas(64) PortCounters {
  Counter rx_packets, rx_bytes, tx_packets, tx_bytes, lb_decisions, ecn_marks;
  // Data frames cut to their headers and queued in the port's priority class (buffer.trim).
  Counter trims;
  // Packets routed to this port's egress queue. Each then leaves as tx, a queue_full or port_down
  // drop of this port, or is still queued: the per-port balance bench/soak checks.
  Counter egress_packets;
  std::array<Counter, kDropReasons> drops;
};

struct alignas(64) WorkerCounters {
  std::array<PortCounters, kMaxPorts> port;
  Counter busy_cycles;  // TSC cycles spent in loop iterations that moved packets
  Counter loops;
  // The busy period: TSC at the start of the first loop iteration that moved packets (0: none
  // yet) and at the end of the latest one. A rate over it leaves out the seconds before traffic
  // arrives and after it stops, which a rate over the process's run counts.
  Counter first_busy_tsc, last_busy_tsc;
};

// The candidate sets with down ports and withdrawn next hops removed; replaced as a whole (RCU)
// when a port changes state or a route's next hops are withdrawn.
struct LiveGroups {
  std::vector<std::vector<topo::PortId>> ports;
  // Route r's candidates are ports[route_group[r]]: its table group, or a group of its own while
  // some of its next hops are withdrawn. Empty while nothing is withdrawn: then they are
  // ports[routes[r].group] (4 B a route less on every switch; issue 40).
  std::vector<uint32_t> route_group;
  const RouteEntry* routes = nullptr;  // the switch's SwitchTables::routes
  const std::vector<topo::PortId>& of_route(uint32_t r) const {
    return ports[route_group.empty() ? routes[r].group : route_group[r]];
  }
};

// The balancers of one algorithm: the shared factory state and one balancer per worker. Replaced
// as a whole (RCU) when the algorithm changes at run time.
struct BalancerSet {
  std::unique_ptr<lb::BalancerFactory> factory;
  bool queue_bytes = false;  // the algorithm reads depths in bytes (else packets)
  std::vector<std::unique_ptr<lb::Balancer>> per_worker;
};

struct RuntimeOptions {
  uint32_t workers = 1;
  uint16_t rx_queues = 1;  // per port, as configured on the devices
  // Device tx queues the owner of a port spreads its bursts over, one burst each in turn. One keeps
  // every link FIFO; more raise a memif link's throughput (one ring per queue) but may reorder
  // packets between bursts, as a multi-queue NIC would.
  uint16_t tx_queues = 1;
  // With several workers: each worker sends on its own device tx queue(s) of every port and
  // drains its own egress queues (per_worker_tx() below), instead of one owner per port draining
  // every worker's queue of the port. Only for unshaped ports (shaping off) and tx_queues ≥
  // workers; a port's rate cannot then be set at run time.
  bool per_worker_tx = true;
  uint32_t queue_packets = 0;  // egress ring size; 0 = from the buffer size
  // With trimming (SwitchTables::trim): the slots of each port's priority ring (trimmed headers),
  // rounded up to a power of two; 0 = kTrimQueueSlots.
  uint32_t trim_queue_packets = 0;
  // Memory for the egress rings (egress_queue.h); empty: a memzone each (rte_ring_create).
  RingMemory ring_memory;
  bool shaping = true;  // drain at the link rate; false = the device's own rate
  // How far a port may send ahead of its link rate, in wire bytes (0: a burst of MTU frames,
  // kBurst x 1538 B). A switch that sleeps between polls (a namespaced fabric) sends that much at
  // once on waking, and the next switch's queue sees the burst: there, two frames' worth keeps the
  // queues the balancers make apart from the ones the sleeping makes (docs/fabric.md).
  uint64_t shaper_slack_bytes = 0;
  int socket = 0;
  const topo::Routing* routing = nullptr;  // Polarized needs it at build time
  // Look routes up in this table, shared with other switches of the process (an in-process
  // fabric), instead of two tables of the switch's own (route_lookup.h says why).
  std::shared_ptr<const SharedRoutes> shared_routes;
};

class SwitchRuntime {
 public:
  SwitchRuntime(SwitchTables tables, const RuntimeOptions& opts);
  ~SwitchRuntime();
  SwitchRuntime(const SwitchRuntime&) = delete;
  SwitchRuntime& operator=(const SwitchRuntime&) = delete;

  const SwitchTables& tables() const { return tables_; }
  uint16_t ports() const { return static_cast<uint16_t>(tables_.ports.size()); }
  uint32_t workers() const { return opts_.workers; }
  const RuntimeOptions& options() const { return opts_; }

  // --- data path (workers) ---
  const RouteLookup& dst_routes() const { return *dst_routes_; }
  const RouteLookup* src_leaves() const { return src_leaves_.get(); }
  const LiveGroups* groups() const { return groups_.read(); }
  const BalancerSet* balancers() const { return balancers_.read(); }
  // Port p's queue that its drainer paces it with (one worker: the port's queue).
  EgressQueue& egress(uint16_t p) { return egress_.port_queue(p); }
  EgressQueues& egress_queues() { return egress_; }
  // Each worker drains its own egress queues into a device tx queue of its own (RuntimeOptions).
  bool per_worker_tx() const { return egress_.per_worker_tx(); }
  // The depths a balancer reads: one worker, the live words; several, `snapshot` (kMaxPorts
  // words of the calling worker's) filled with the ports' totals now.
  lb::QueueView queue_view(const BalancerSet& set, std::atomic<uint32_t>* snapshot) const {
    return egress_.view(set.queue_bytes, snapshot);
  }
  bool port_up(uint16_t p) const { return port_up_[p].load(std::memory_order_acquire); }
  WorkerCounters& counters(uint32_t worker) { return *counters_[worker]; }
  // buffer.flow_control: pfc: the switch's PFC state (its one worker's); nullptr without.
  Pfc* pfc() { return pfc_.get(); }
  const Pfc* pfc() const { return pfc_.get(); }
  // buffer.flow_control: credit: the switch's credits (its one worker's); nullptr without.
  Credits* credits() { return credits_.get(); }
  const Credits* credits() const { return credits_.get(); }
  // The port's owner: a rate set_port_rate() asked for, once (0: none).
  double take_rate_request(uint16_t p) {
    if (rate_request_[p].load(std::memory_order_relaxed) == 0) return 0;
    return std::bit_cast<double>(rate_request_[p].exchange(0, std::memory_order_acquire));
  }
  // A rate set_port_rate() asked for is waiting for the port's owner to take it.
  bool rate_requested(uint16_t p) const {
    return rate_request_[p].load(std::memory_order_relaxed) != 0;
  }
  // A worker passed a point where it holds no pointer into RCU-managed tables.
  void quiescent(uint32_t worker);

  // --- control plane (any thread) ---
  // Removes the port from (or returns it to) every candidate set; the workers see the change at
  // their next burst. What is queued on a down port is dropped by its owner and counted.
  void set_port_state(uint16_t port, bool up);
  // Drains the port at `rate_bps` from its owner's next drain on (a slowed link; 0 = the
  // device's own rate). The port's balancer weight keeps the link's nominal rate.
  void set_port_rate(uint16_t port, double rate_bps);
  // Route `route` (an index into tables().routes) no longer offers `ports` (a routing protocol's
  // withdrawal after a failure further on, topo/minimal_reach.h; empty: offers them all again).
  // Ports it does not have are ignored. The workers see the change at their next burst. Returns
  // false if the route already offered exactly that (nothing changed).
  bool set_withdrawn(uint32_t route, std::vector<topo::PortId> ports);
  // Switches every worker to another algorithm. Throws std::invalid_argument for a bad spec.
  void set_balancer(const conf::BalancerSpec& spec);
  std::string algorithm() const;
  const WorkerCounters& counters(uint32_t worker) const { return *counters_[worker]; }
  const EgressQueue& egress(uint16_t p) const { return egress_.port_queue(p); }
  const EgressQueues& egress_queues() const { return egress_; }
  // Port p's depth, its total over workers.
  uint32_t depth_packets_now(uint16_t p) const { return egress_.depth_packets(p); }
  uint32_t depth_bytes_now(uint16_t p) const { return egress_.depth_bytes(p); }
  // Port p's deepest queue since reader r's last take (EgressQueues::take_max).
  using MaxReader = EgressQueues::MaxReader;
  std::pair<uint32_t, uint32_t> take_max_depth(uint16_t p, MaxReader r) {
    return egress_.take_max(p, r);
  }
  // Sum over workers of one port's counter.
  uint64_t sum(uint16_t port, Counter PortCounters::*field) const;
  uint64_t sum_drops(uint16_t port, DropReason r) const;

 private:
  std::unique_ptr<LiveGroups> live_groups() const;
  std::unique_ptr<BalancerSet> make_balancers(const conf::BalancerSpec& spec) const;
  bool orders_route(uint32_t route) const;

  SwitchTables tables_;
  RuntimeOptions opts_;
  std::unique_ptr<RouteLookup> dst_routes_;
  std::unique_ptr<RouteLookup> src_leaves_;
  EgressQueues egress_;
  std::unique_ptr<std::atomic<bool>[]> port_up_;
  std::unique_ptr<std::atomic<uint64_t>[]> rate_request_;  // a double's bits; 0: none
  std::vector<std::vector<topo::PortId>> withdrawn_;       // per route, sorted; under control_
  std::vector<std::unique_ptr<WorkerCounters>> counters_;
  std::unique_ptr<Pfc> pfc_;
  std::unique_ptr<Credits> credits_;
  lb::RcuCell<LiveGroups> groups_;
  lb::RcuCell<BalancerSet> balancers_;
  std::mutex control_;
  BalancerSet* current_set_ = nullptr;  // what balancers_ holds; mutated only under control_
};

}  // namespace spraylab::dataplane
