// A fabric assembled from an experiment: the topology, routing and address plan; one SwitchNode
// per switch with its tables built exactly as spraylab-switch builds them; one HostNode per leaf
// for the hosts under it, with spraylab-gen's RunPlan for every host; two Links per topology link;
// the mbuf pools. Both clocks run the same Fabric (virtual_run.h, inprocess_run.h).
#pragma once

#include <rte_mempool.h>

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "conf/experiment.h"
#include "fabric/emu/event_queue.h"
#include "fabric/emu/host_node.h"
#include "fabric/emu/link.h"
#include "fabric/emu/partition.h"
#include "fabric/emu/ring_arena.h"
#include "fabric/emu/switch_node.h"
#include "fabric/run/result.h"
#include "switch/dataplane/route_lookup.h"
#include "topo/addressing.h"
#include "topo/link_events.h"
#include "topo/routing.h"
#include "trafficgen/host_plan.h"

namespace spraylab::fabric {

// The virtual clock starts at 0 and the workload at 1 ns: the engine reads a time of 0 as
// "never" (first transmission, first arrival).
inline constexpr uint64_t kVirtualStartNs = 1;

// The wall-clock limit passed while a Fabric was being built.
struct BuildTimeout : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Fabric {
 public:
  // Throws std::runtime_error (or the config's errors) saying what cannot be built, and
  // BuildTimeout when `deadline` passes while it builds (a large fabric takes minutes: --timeout
  // covers it). In-process fabrics start their workload `start_delay_ns` after construction.
  // Virtual time: `partitions` event queues (partition.h; at most partition_units(), at least 1),
  // one per thread of the run.
  Fabric(
      const conf::Experiment& exp, Mode mode, uint64_t start_delay_ns = 20'000'000,
      std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max(),
      uint32_t partitions = 1);
  ~Fabric();
  Fabric(const Fabric&) = delete;
  Fabric& operator=(const Fabric&) = delete;

  Mode mode() const { return mode_; }
  const conf::Experiment& experiment() const { return exp_; }
  const topo::Topology& topology() const { return *topology_; }
  const gen::RunPlan& plan() const { return plan_; }
  // Virtual time: partition p's event queue (one per partition; partition 0's is the only one
  // of an unpartitioned fabric), the partition of every node (by event number), and the links
  // whose two ends are in different partitions (Link::set_crossing), in link order.
  EventQueue& events(uint32_t p = 0) { return *queues_[p]; }
  uint32_t partitions() const { return partitions_.count; }
  uint32_t partition_of(uint32_t node) const { return part_of_node_[node]; }
  const std::vector<Link*>& crossing_links() const { return crossing_; }
  // The window of the partitioned clock: no frame sent at t arrives before t + window_ns()
  // (the shortest link delay, at least 1 ns). A property of the fabric, not of the partitioning,
  // so every partitioning meets at the same barriers.
  uint64_t window_ns() const { return window_ns_; }
  // Every node by its event number: switches first (topology order), then host nodes (leaf order).
  const std::vector<Node*>& nodes() const { return nodes_; }
  const std::vector<std::unique_ptr<SwitchNode>>& switches() const { return switches_; }
  const std::vector<std::unique_ptr<HostNode>>& hosts() const { return hosts_; }
  // The most hosts one host node has (its leaf's).
  uint32_t most_hosts_per_node() const { return most_hosts_per_node_; }
  // The leaf (switch index) of each host node, to keep a leaf and its hosts on one lcore.
  const std::vector<uint32_t>& host_leaf() const { return host_leaf_; }
  std::vector<const gen::HostEngine*> engines() const;
  // The frames of partition p's hosts (virtual time: a pool per partition, mbuf_pool.h; p = 0
  // in-process).
  rte_mempool* pool(uint32_t p = 0) const { return pools_[p]; }
  // Bytes of a frame its mbuf holds: whole frames in-process, the headers only in virtual time
  // (the rest of a frame is its length, not memory: emu/fabric.cpp says why).
  uint32_t frame_room() const;
  // When the workload starts: ns on the fabric clock, and the engines' TSC.
  uint64_t start_ns() const { return start_ns_; }
  uint64_t start_tsc() const { return start_tsc_; }

  // The experiment's link events in the order they happen (topo/link_events.h), and applying
  // one at `now` (ns on the fabric clock) through the switches' control-plane calls: port down
  // or up, port rate; and the links' own failure and rate. Virtual time: the run's only thread;
  // in-process: the main lcore, while the workers poll.
  const std::vector<topo::PlannedLinkEvent>& link_events() const { return link_events_; }
  const std::vector<std::unique_ptr<Link>>& links() const { return links_; }
  void apply_link_event(size_t i, uint64_t now);
  // What happened: every event with the time it was applied (null if the run ended first), and
  // the frames each link direction an event touched lost in flight or was sent while down.
  // Empty without events.
  nlohmann::ordered_json link_events_json() const;

 private:
  // After a link goes down or up: every switch withdraws (or offers again) the next hops that no
  // longer reach (or reach again) a destination over minimal paths (topo/minimal_reach.h), as a
  // converged routing protocol would. Returns how many routes changed.
  uint32_t reroute();
  // Throws BuildTimeout once deadline_ has passed; `done` says how far the build got.
  void check_deadline(const std::string& done) const;
  void build_switches();
  void build_hosts();
  void build_links();

  Mode mode_;
  conf::Experiment exp_;
  std::unique_ptr<topo::Topology> topology_;
  std::unique_ptr<topo::Routing> routing_;
  std::unique_ptr<topo::AddressPlan> addresses_;
  gen::RunPlan plan_;
  Partitions partitions_;
  std::vector<std::unique_ptr<EventQueue>> queues_;  // virtual time: one per partition
  std::vector<uint32_t> part_of_node_;
  std::vector<Link*> crossing_;
  uint64_t window_ns_ = 1;
  std::shared_ptr<const dataplane::SharedRoutes> routes_;
  std::vector<rte_mempool*> pools_;  // per partition
  uint64_t start_ns_ = 0, start_tsc_ = 0, tsc_hz_ = 0;
  uint64_t start_delay_ns_;
  RingArena rings_;  // every egress queue's and link's ring: before them, so it outlives them
  std::vector<std::unique_ptr<SwitchNode>> switches_;
  gen::MessageSlots message_slots_;  // the engines' shared table (declared first: outlives them)
  std::vector<std::unique_ptr<HostNode>> hosts_;
  std::vector<uint32_t> host_leaf_;
  uint32_t most_hosts_per_node_ = 0;
  std::vector<Node*> nodes_;
  std::chrono::steady_clock::time_point deadline_;
  std::vector<std::unique_ptr<Link>> links_;
  std::vector<topo::PlannedLinkEvent> link_events_;
  std::vector<uint64_t> applied_at_;  // per event, ns after the start; UINT64_MAX: not applied
  std::vector<uint32_t> rerouted_;    // per event, routes whose next hops it changed
  // Per event, per end: the port's tx_packets when the event was applied (what it sent after is
  // the run's total less this).
  std::vector<std::vector<uint64_t>> tx_at_event_;
  std::vector<bool> edge_down_;  // per switch-graph edge (a link direction)
};

}  // namespace spraylab::fabric
