#include "switch/lb/pofan.h"

#include <cassert>
#include <utility>

namespace spraylab::lb {

PofanState::PofanState(std::vector<std::vector<WeightedPort>> dest_ports, uint64_t seed,
                       uint32_t lcores, uint32_t pipes)
    : orders_(std::move(dest_ports), seed, lcores),
      pipes_(pipes == 0 ? 1 : pipes),
      lines_per_pipe_((orders_.keys() + kPerLine - 1) / kPerLine),
      lines_(std::make_unique<Line[]>(static_cast<size_t>(lines_per_pipe_) * pipes_)) {
  Rng rng(seed, 0x0fa3);
  const OrderTable& t = *orders_.read();
  for (uint32_t k = 0; k < t.keys(); ++k) {
    const auto len = static_cast<uint32_t>(t.order(k).size());
    for (uint32_t p = 0; p < pipes_; ++p) {
      pointer(k, p).store(len == 0 ? 0 : rng.below(len), std::memory_order_relaxed);
    }
  }
}

Pofan::Pofan(std::shared_ptr<PofanState> state, uint32_t lcore, uint32_t ack_size,
             uint32_t pipe_ports)
    : state_(std::move(state)), lcore_(lcore), ack_size_(ack_size), pipe_ports_(pipe_ports) {
  state_->orders().domain().online(lcore_);
}

Pofan::~Pofan() { state_->orders().domain().offline(lcore_); }

void Pofan::choose(std::span<const Packet> burst, const BurstContext&, PortId* out) {
  const OrderTable& table = *state_->orders().read();
  const uint32_t pipes = state_->pipes();
  for (size_t i = 0; i < burst.size(); ++i) {
    const Packet& p = burst[i];
    const uint32_t key = ofan_key(p.dest, p.bytes, ack_size_);
    uint32_t pipe = pipe_ports_ == 0 ? p.rx_queue : p.ingress_port / pipe_ports_;
    assert(pipe < pipes);
    if (pipe >= pipes) pipe = pipes - 1;
    const std::span<const PortId> order = table.order(key);
    if (order.empty()) {
      out[i] = kNoPort;
      continue;
    }
    std::atomic<uint32_t>& ptr = state_->pointer(key, pipe);
    uint32_t pos = ptr.load(std::memory_order_relaxed);
    if (pos >= order.size()) pos %= order.size();  // the order shrank (a port went down)
    out[i] = order[pos];
    ptr.store(pos + 1 == order.size() ? 0 : pos + 1, std::memory_order_relaxed);
  }
  state_->orders().domain().quiescent(lcore_);
}

}  // namespace spraylab::lb
