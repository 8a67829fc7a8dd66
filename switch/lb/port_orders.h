// Ofan's per-key cyclic port orders (Ofan §4.1, appendix F.2) and the shared state Ofan and pOfan
// build on. A key is (destination, size class): destination leaf at an edge switch and on MRLS,
// destination pod at an aggregation switch (Ofan §4.1); ACK-sized packets have their own pointers
// (Ofan §4.1: "distinct data and ACK groups").
//
// Orders: the live ports of a destination, weighted round robin when link weights differ (divide by
// the GCD, then round r lists the ports whose weight exceeds r), taken in a per-switch random base
// order; each key then visits that sequence's positions in its own order, built as appendix F.2
// describes: from one global permutation π of [0, B), B = 2^⌈log2 L⌉, with XOR and addition,
// v_i = (π[i XOR x_K] + a_K) mod B, positions >= L skipped (port_orders.cpp). Every key's order is
// a permutation of the sequence, so each port keeps exactly its weight share, and w = 6 gives up
// to 32 distinct cyclic orders.
// (choice) The paper does not print its formula in our copy; this one uses exactly the operations
// it names. Orders are stored per key (the data path reads a table), where the paper's hardware
// computes them per packet from ⌈log2 w⌉-bit values: the choices are the same.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "switch/lb/balancer.h"
#include "switch/lb/rcu.h"

namespace spraylab::lb {

inline constexpr uint32_t kSizeClasses = 2;  // data, ACK
inline constexpr uint32_t kDefaultAckSize = 128;

struct WeightedPort {
  PortId port;
  uint32_t weight = 1;  // relative capacity, e.g. the link rate in Gb/s; 0 = never use
};

// The Ofan key of a packet: destination × size class.
inline uint32_t ofan_key(uint32_t dest, uint32_t bytes, uint32_t ack_size) {
  return dest * kSizeClasses + (bytes < ack_size ? 1u : 0u);
}

// Weighted round robin over `ports` in the given order (weights divided by their GCD; ports of
// weight 0 left out). E.g. weights P1=2, P2=2, P3=2, P4=1 in the order P3, P2, P4, P1 give
// P3, P2, P4, P1, P3, P2, P1.
std::vector<PortId> interleave(std::span<const WeightedPort> ports);

// Immutable per-key orders for one port state. Published through RcuCell.
class OrderTable {
 public:
  // dest_ports[d]: destination d's candidate ports with weights; ports in `down` are left out.
  // `seed` (the switch's) fixes the base order, the global permutations and each key's (x, a).
  OrderTable(const std::vector<std::vector<WeightedPort>>& dest_ports,
             const std::vector<bool>& down, uint64_t seed);

  uint32_t keys() const { return static_cast<uint32_t>(offset_.size() - 1); }
  std::span<const PortId> order(uint32_t key) const {
    return {ports_.data() + offset_[key], offset_[key + 1] - offset_[key]};
  }

 private:
  std::vector<uint32_t> offset_;  // key k's order is ports_[offset_[k], offset_[k+1])
  std::vector<PortId> ports_;
};

// Per-switch orders shared by all lcores, rebuilt when a port goes down or up while the lcores keep
// choosing (RCU swap). Reader `r` is lcore r.
class PortOrders {
 public:
  PortOrders(std::vector<std::vector<WeightedPort>> dest_ports, uint64_t seed, uint32_t readers);

  const OrderTable* read() const { return cell_.read(); }
  QsbrDomain& domain() { return cell_.domain(); }
  uint32_t keys() const;

  // Control plane: rebuilds every order without (or again with) `port` and publishes it. Returns at
  // once; the old table is freed once all lcores have passed a quiescent point.
  void set_port_state(PortId port, bool up);
  // Control plane: destination `dest`'s orders leave out `ports` (routes withdrawn after a failure
  // elsewhere, topo/minimal_reach.h) until set again; an empty list restores them.
  void set_withdrawn(uint32_t dest, std::vector<PortId> ports);
  // Waits until every replaced table is freed.
  void synchronize() { cell_.synchronize(); }
  size_t reclaim() { return cell_.reclaim(); }

 private:
  std::vector<std::vector<WeightedPort>> dest_ports_;
  uint64_t seed_;
  std::mutex mutex_;  // serialises rebuilds (control plane only)
  std::vector<bool> down_;
  std::vector<std::vector<PortId>> withdrawn_;  // per destination
  RcuCell<OrderTable> cell_;

  std::unique_ptr<OrderTable> build() const;
};

}  // namespace spraylab::lb
