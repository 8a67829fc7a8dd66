// From the experiment's BalancerSpec to running balancers. One BalancerFactory per switch holds
// what the switch's lcores share (Ofan's pointers and orders, pOfan's pipes, Polarized's tables)
// and makes one Balancer per lcore. Names come from algorithm.h only.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "conf/experiment.h"
#include "switch/lb/algorithm.h"
#include "switch/lb/balancer.h"
#include "switch/lb/band_thresholds.h"
#include "switch/lb/port_orders.h"
#include "topo/routing.h"

namespace spraylab::lb {

class OfanState;
class PofanState;
class PolarizedTable;
class KspTable;
class DragonflyTable;

// What a switch knows at start-up that its balancers need.
struct SwitchContext {
  // This switch's seed, switch_seed(experiment seed, switch index) (rng.h): it salts ECMP and seeds
  // the Ofan/pOfan orders and first pointers, so each switch has its own.
  uint64_t seed = 1;
  uint32_t lcores = 1;  // lcore ids passed to make() are below this
  size_t ports = 0;     // the switch's port count (queue arrays are indexed by PortId)
  // ofan, pofan: the candidate ports of every Packet::dest value, with link weights.
  std::vector<std::vector<WeightedPort>> dest_ports;
  uint32_t rx_queues = 1;  // pofan with `pipe: queue`: pipes = rx queues
  // polarized, ksp: the routing data and this switch's index in it.
  const topo::Routing* routing = nullptr;
  uint32_t switch_index = 0;
  // psp, banded jsq: each port's line rate, for the default band threshold (band_thresholds.h);
  // empty: the threshold's floor. psp, jsq, polarized: the nominal data frame (the experiment's
  // payload plus headers), which turns packets into bytes under `queue_unit: bytes`.
  std::vector<double> port_rate_bps;
  uint32_t level = 0;  // the switch's level (0 = leaf): ECMP's digit under `hash: digit`
  uint32_t frame_bytes = 1514;
  // ar: the port buffer (`buffer.bytes`) its bands are fractions of, as htsim's maxsize(); 0: the
  // queue view's capacities.
  uint64_t buffer_bytes = 0;
};

class BalancerFactory {
 public:
  // Builds the shared state of `spec` (typed and defaulted by the loader); std::invalid_argument
  // naming the key when the switch cannot run it.
  BalancerFactory(const conf::BalancerSpec& spec, SwitchContext ctx);
  ~BalancerFactory();

  Algorithm algorithm() const { return spec_.algorithm; }
  // The balancer lcore `lcore` runs (the forwarder's generator: Rng::for_lcore(seed, lcore)).
  std::unique_ptr<Balancer> make(uint32_t lcore) const;
  // Control plane: a port went down or came back. Ofan and pOfan rebuild their orders and swap them
  // in while the lcores keep choosing; the other algorithms read the routing table's candidate
  // sets, which the route stage updates.
  void set_port_state(PortId port, bool up);
  // Control plane: destination `dest`'s route no longer offers `ports` (withdrawn after a failure
  // further on; empty: none). Ofan and pOfan rebuild that destination's orders; the others read
  // the route's candidate set, which SwitchRuntime::set_withdrawn updates.
  void set_withdrawn(uint32_t dest, std::vector<PortId> ports);
  // Ofan/pOfan: blocks until replaced order tables are freed (tests, shutdown). Else a no-op.
  void synchronize();

 private:
  // Th per port for psp and banded jsq: `threshold`, else the default of band_thresholds.h.
  BandThresholds band_thresholds() const;
  // AR's buffer per port in the queue unit: buffer_bytes, or in packets that many nominal data
  // frames (at least one); uniform 0 (the queue view's capacities) without buffer_bytes.
  BandThresholds ar_buffers() const;
  // Polarized's deroute penalty (KSP's per extra hop) in the queue unit: `deroute_penalty`
  // packets, × the nominal frame under `queue_unit: bytes`.
  double deroute_penalty() const;
  // One packet in the queue unit: the nominal data frame under `queue_unit: bytes`.
  uint32_t one_packet() const;
  // The Dragonfly routings' table; std::invalid_argument naming the key when the switch's
  // topology cannot run `spec_.algorithm`.
  void make_dragonfly_table();

  conf::BalancerSpec spec_;
  SwitchContext ctx_;
  std::shared_ptr<OfanState> ofan_;
  std::shared_ptr<PofanState> pofan_;
  std::shared_ptr<const PolarizedTable> polarized_;
  std::shared_ptr<const KspTable> ksp_;
  std::shared_ptr<const DragonflyTable> dragonfly_;
};

}  // namespace spraylab::lb
