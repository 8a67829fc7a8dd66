// pOfan (Ofan §5.1, appendix H): Ofan's keys and orders, but one pointer per (key, pipe) and no
// sharing between pipes. A hardware pipe is a group of W ingress ports (W = 4: "4Ofan"); in
// spraylab a pipe is, by default, one rx queue (`pipe: queue`), or W consecutive ingress ports
// (`pipe: ports:W`). Pointers start at random positions (appendix H assumes random initialisation).
//
// A pipe is processed by one lcore at a time (the data path maps each rx queue, or each group of W
// ports, to one lcore), so a pointer is read and written without a read-modify-write; the pointers
// are relaxed atomics only so that a misconfigured mapping loses updates instead of being UB.
//
// Memory: pipe-major, each pipe's pointers on cache lines of their own. The pipes are rx queues
// polled by different lcores; with one key's pipes side by side (key-major) two lcores wrote the
// same line at every packet, and pOfan with two workers gained no more than Ofan's shared
// pointers (issue 44: 1.18x against Ofan's 1.16x).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "switch/lb/balancer.h"
#include "switch/lb/port_orders.h"

namespace spraylab::lb {

class PofanState {
 public:
  PofanState(std::vector<std::vector<WeightedPort>> dest_ports, uint64_t seed, uint32_t lcores,
             uint32_t pipes);

  PortOrders& orders() { return orders_; }
  uint32_t pipes() const { return pipes_; }
  std::atomic<uint32_t>& pointer(uint32_t key, uint32_t pipe) {
    return lines_[static_cast<size_t>(pipe) * lines_per_pipe_ + key / kPerLine]
        .value[key % kPerLine];
  }

 private:
  static constexpr uint32_t kPerLine = 16;
  struct alignas(64) Line {
    std::atomic<uint32_t> value[kPerLine];
  };
  static_assert(sizeof(Line) == 64);

  PortOrders orders_;
  uint32_t pipes_;
  uint32_t lines_per_pipe_;
  std::unique_ptr<Line[]> lines_;
};

class Pofan final : public Balancer {
 public:
  // pipe_ports = 0: the pipe is the packet's rx queue; else ingress_port / pipe_ports.
  Pofan(std::shared_ptr<PofanState> state, uint32_t lcore, uint32_t ack_size, uint32_t pipe_ports);
  ~Pofan() override;
  void choose(std::span<const Packet> burst, const BurstContext& ctx, PortId* out) override;

 private:
  std::shared_ptr<PofanState> state_;
  uint32_t lcore_;
  uint32_t ack_size_;
  uint32_t pipe_ports_;
};

}  // namespace spraylab::lb
