// Ofan (Ofan §4.1): destination-based rotation in the switch. Every key (destination × size class)
// has one pointer shared by all lcores and a cyclic port order (port_orders.h); a packet takes
// order_K[ptr_K] and advances the pointer.
//
// Sharing across lcores is combined per burst, the software form of the paper's combining pipeline
// (Ofan §7, appendix I): group the burst by key, one fetch_add(c) per key with c packets, and give
// the key's j-th packet (in burst order) order_K[base + j]. The result equals processing the
// packets one at a time, and per key the port counts differ by at most 1 whatever the interleaving
// of lcores, because each key's packets take consecutive pointer values.
// `atomic_per_packet` does one fetch_add per packet instead: the benchmark's baseline only.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "switch/lb/balancer.h"
#include "switch/lb/port_orders.h"

namespace spraylab::lb {

// One per switch, shared by its lcores' Ofan balancers.
class OfanState {
 public:
  // Pointers start at a random position (ALGORITHMS.md, Ofan); `lcores` readers of the orders.
  OfanState(std::vector<std::vector<WeightedPort>> dest_ports, uint64_t seed, uint32_t lcores);

  PortOrders& orders() { return orders_; }
  // 64-bit so that it never wraps: order positions stay consecutive forever.
  std::atomic<uint64_t>& pointer(uint32_t key) { return pointers_[key].value; }
  // One lcore: nothing else moves the pointers, so a plain load and store advance them by the
  // same amounts as fetch_add would, without a locked instruction per key and burst.
  bool single_writer() const { return single_writer_; }

 private:
  struct alignas(64) Pointer {  // one line each: lcores hitting different keys do not collide
    std::atomic<uint64_t> value{0};
  };
  PortOrders orders_;
  std::unique_ptr<Pointer[]> pointers_;
  bool single_writer_ = false;
};

class Ofan final : public Balancer {
 public:
  Ofan(std::shared_ptr<OfanState> state, uint32_t lcore, uint32_t ack_size, bool atomic_per_packet);
  ~Ofan() override;
  void choose(std::span<const Packet> burst, const BurstContext& ctx, PortId* out) override;

 private:
  void combined(std::span<const Packet> chunk, const OrderTable& table, PortId* out);
  void one_key(uint32_t key, size_t n, const OrderTable& table, PortId* out);
  void per_packet(std::span<const Packet> burst, const OrderTable& table, PortId* out);

  std::shared_ptr<OfanState> state_;
  uint32_t lcore_;
  uint32_t ack_size_;
  bool atomic_;
  // Key -> slot of the current chunk, valid when seen_gen_[key] == gen_ (no clearing per burst).
  std::vector<uint32_t> seen_gen_;
  std::vector<uint8_t> seen_slot_;
  uint32_t gen_ = 0;
  uint8_t slot_of_packet_[kMaxBurst];
  uint32_t slot_key_[kMaxBurst];
  uint32_t slot_count_[kMaxBurst];
  uint32_t slot_cursor_[kMaxBurst];
  const PortId* slot_order_[kMaxBurst];
  uint32_t slot_len_[kMaxBurst];
};

}  // namespace spraylab::lb
