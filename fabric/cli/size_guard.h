// A size guard before a fabric is built (issue 43): what an experiment will take of this machine,
// estimated from its topology and workload, and a refusal, with the estimate, when it would not
// fit. `run` (every mode, -n included) and `fabric up` check it before anything starts;
// docs/runner.md, "Size and time guard".
#pragma once

#include <cstdint>
#include <string>

#include "conf/experiment.h"
#include "fabric/run/mode.h"

namespace spraylab::fabric {

struct FabricSize {
  uint64_t hosts = 0;
  uint64_t switches = 0;
  uint64_t ports = 0;             // switch ports
  uint64_t leaves = 0;            // switches with hosts
  uint64_t pairs = 0;             // (switch, leaf): every switch has a route to every leaf
  uint64_t group_pairs = 0;       // of them, where the balancer keeps minimal next-hop groups
  uint64_t order_leaf_ports = 0;  // (leaf, switch port) where it keeps orders of ports
  uint64_t path_leaf_ports = 0;   // (leaf, switch port) where it keeps k paths
  uint64_t frames = 0;       // the fabric's mempool: the mbufs it may hold (fabric/emu/mbuf_pool.h)
  uint64_t frame_bytes = 0;  // one of them in the pool with its store's entry
  uint64_t processes = 0;    // namespaced: a spraylab-switch per switch, a spraylab-gen per leaf
  uint64_t memory_bytes = 0;
};

// The model's terms (virtual time and in-process), fitted to the peak RSS of virtual-time runs:
// fat trees k = 8 to 24 and a 2-level k = 48 (the bench's 1 MiB Ofan permutation; k = 16 with
// ECMP too) and the MRLS u = 24, d = 12 shape at 486, 1458 and 8748 leaves (uniform at load 0.5;
// Polarized, and Ofan and ECMP at 486 and 1458); docs/runner.md, "Size and time guard", has the
// runs and the fit. The frames are counted as the pool is sized, not fitted: every packet of the
// workload once and a quarter, or what the fabric's queues hold (fabric/emu/mbuf_pool.h).
struct MemoryModel {
  static constexpr uint64_t kBase = 35ull << 20;  // the process, EAL, the binaries
  // An egress queue, its link direction, the forwarder's staging, counters, the balancer's
  // per-port state.
  static constexpr uint64_t kPerPort = 6656;
  // In-process, more a port: its rings fill when the CPU rather than the links sets the pace
  // (a 128-host fat tree on 2 CPUs), and the pool is filled whole.
  static constexpr uint64_t kPerPortInProcess = 16ull << 10;
  static constexpr uint64_t kPerHost = 8192;  // its engine's share, ACK ring, flows, plan
  // A route entry, its remap and Polarized's labels (per switch, per destination leaf).
  static constexpr uint64_t kPerPair = 45;
  // A balancer that chooses among a route's minimal next hops (all but Polarized, whose groups
  // hold every fabric port): a next-hop group per (switch, leaf) where next hops differ.
  static constexpr uint64_t kPerPairGroups = 64;
  // Ofan's and Pofan's orders (lb::Traits::destination_orders) and KSP's paths
  // (lb::Traits::path_label): O(leaves x ports) a switch, per (destination leaf, switch port).
  static constexpr uint64_t kPerLeafPortOrders = 12;
  static constexpr uint64_t kPerLeafPortPaths = 42;
  // Namespaced: a process per switch and per leaf (k = 8, 112 processes: 8.6 GB).
  static constexpr uint64_t kPerProcess = 77ull << 20;
};

// Builds the topology and the workload's schedule (its packets size the frame pool). `lcores`:
// EAL's, each with a mempool cache of frames.
FabricSize estimate_size(const conf::Experiment& exp, Mode mode, uint32_t lcores = 1);

// The model on counts already known: kBase, ports x kPerPort, hosts x kPerHost, the pairs' and
// (leaf, port)s' terms and frames x frame_bytes (namespaced: processes x kPerProcess).
uint64_t model_bytes(const FabricSize& size, Mode mode);

// "12 hosts, 20 switches (80 ports), 28 processes, about 1.2 GB" (processes: namespaced only).
std::string describe(const FabricSize& size, Mode mode);

// The terms of the estimate, for -n: "37 MB base, 80 ports x 6656 B, ... ".
std::string itemize(const FabricSize& size, Mode mode);

// The machine's memory (MemTotal).
uint64_t machine_memory_bytes();

// Throws std::invalid_argument naming `what` (a variant), the estimate and the machine's memory
// when the estimate is above `memory_bytes` (0: unknown, anything fits).
void check_fits(const FabricSize& size, Mode mode, const std::string& what, uint64_t memory_bytes);
inline void check_fits(const FabricSize& size, Mode mode, const std::string& what) {
  check_fits(size, mode, what, machine_memory_bytes());
}

}  // namespace spraylab::fabric
