#include "switch/lb/port_orders.h"

#include <algorithm>
#include <numeric>
#include <utility>

namespace spraylab::lb {

std::vector<PortId> interleave(std::span<const WeightedPort> ports) {
  uint32_t g = 0;
  uint32_t rounds = 0;
  for (const WeightedPort& p : ports) {
    g = std::gcd(g, p.weight);
    rounds = std::max(rounds, p.weight);
  }
  std::vector<PortId> seq;
  if (g == 0) return seq;
  rounds /= g;
  for (uint32_t r = 0; r < rounds; ++r) {
    for (const WeightedPort& p : ports) {
      if (p.weight / g > r) seq.push_back(p.port);
    }
  }
  return seq;
}

namespace {

// Deterministic per-key stride: a_K uniform in [0, L), b_K uniform among the units mod L.
std::pair<uint32_t, uint32_t> stride(uint64_t seed, uint32_t key, uint32_t len) {
  Rng rng(seed ^ 0x0fa2ULL, key + 1ULL);
  const uint32_t a = rng.below(len);
  uint32_t b = 1;
  if (len > 2) {
    do {
      b = 1 + rng.below(len - 1);
    } while (std::gcd(b, len) != 1);
  }
  return {a, b};
}

}  // namespace

OrderTable::OrderTable(const std::vector<std::vector<WeightedPort>>& dest_ports,
                       const std::vector<bool>& down, uint64_t seed) {
  // The switch's base permutation π: a random rank per port id, the same for every destination.
  std::vector<uint32_t> rank(down.size());
  std::iota(rank.begin(), rank.end(), 0u);
  Rng rng(seed, 0x5eed);
  for (size_t i = rank.size(); i > 1; --i) std::swap(rank[i - 1], rank[rng.below(i)]);

  offset_.push_back(0);
  std::vector<WeightedPort> live;
  for (size_t d = 0; d < dest_ports.size(); ++d) {
    live.clear();
    for (const WeightedPort& p : dest_ports[d]) {
      if (p.port < down.size() && !down[p.port]) live.push_back(p);
    }
    std::sort(live.begin(), live.end(), [&](const WeightedPort& x, const WeightedPort& y) {
      return rank[x.port] < rank[y.port];
    });
    const std::vector<PortId> seq = interleave(live);
    const auto len = static_cast<uint32_t>(seq.size());
    for (uint32_t cls = 0; cls < kSizeClasses; ++cls) {
      const uint32_t key = static_cast<uint32_t>(d) * kSizeClasses + cls;
      if (len != 0) {
        const auto [a, b] = stride(seed, key, len);
        for (uint32_t i = 0; i < len; ++i) {
          ports_.push_back(seq[(a + static_cast<uint64_t>(i) * b) % len]);
        }
      }
      offset_.push_back(static_cast<uint32_t>(ports_.size()));
    }
  }
}

namespace {

size_t port_space(const std::vector<std::vector<WeightedPort>>& dest_ports) {
  size_t n = 0;
  for (const auto& ports : dest_ports) {
    for (const WeightedPort& p : ports) n = std::max<size_t>(n, p.port + 1u);
  }
  return n;
}

}  // namespace

PortOrders::PortOrders(std::vector<std::vector<WeightedPort>> dest_ports, uint64_t seed,
                       uint32_t readers)
    : dest_ports_(std::move(dest_ports)),
      seed_(seed),
      down_(port_space(dest_ports_), false),
      cell_(std::make_unique<OrderTable>(dest_ports_, down_, seed_), readers) {}

uint32_t PortOrders::keys() const {
  return static_cast<uint32_t>(dest_ports_.size()) * kSizeClasses;
}

void PortOrders::set_port_state(PortId port, bool up) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (port >= down_.size() || down_[port] == !up) return;
  down_[port] = !up;
  cell_.publish(build());
}

void PortOrders::set_withdrawn(uint32_t dest, std::vector<PortId> ports) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (dest >= dest_ports_.size()) return;  // a destination this switch does not balance
  std::sort(ports.begin(), ports.end());
  if (withdrawn_.empty()) withdrawn_.resize(dest_ports_.size());
  if (withdrawn_[dest] == ports) return;
  withdrawn_[dest] = std::move(ports);
  cell_.publish(build());
}

std::unique_ptr<OrderTable> PortOrders::build() const {
  if (withdrawn_.empty()) return std::make_unique<OrderTable>(dest_ports_, down_, seed_);
  std::vector<std::vector<WeightedPort>> live = dest_ports_;
  for (size_t d = 0; d < live.size(); ++d) {
    const std::vector<PortId>& w = withdrawn_[d];
    std::erase_if(live[d], [&](const WeightedPort& p) {
      return std::binary_search(w.begin(), w.end(), p.port);
    });
  }
  return std::make_unique<OrderTable>(live, down_, seed_);
}

}  // namespace spraylab::lb
