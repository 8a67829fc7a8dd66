#include "switch/lb/port_orders.h"

#include <algorithm>
#include <bit>
#include <map>
#include <numeric>
#include <set>
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

// Ofan appendix F.2: per-key orders from one global permutation with XOR and addition. For an order
// of length L, B = the power of two >= L and π a permutation of [0, B); key K has two ⌈log2 B⌉-bit
// numbers x_K, a_K and visits the positions v_i = (π[i XOR x_K] + a_K) mod B, i = 0..B-1, skipping
// v_i >= L. XOR with x_K and adding a_K are bijections of [0, B), so every key visits each of the L
// positions exactly once: its order is a permutation of the interleaved sequence, and each port
// keeps exactly its weight share. With w = 6 the B² = 64 pairs give up to 32 distinct cyclic orders
// (the paper: up to 30), where a stride gives φ(6) = 2.
class XorAddOrders {
 public:
  XorAddOrders(uint64_t seed, uint32_t len) : len_(len), mask_(std::bit_ceil(len) - 1) {
    // π: the best of a few draws. A π close to an affine map (the identity, say) commutes with XOR
    // and addition and gives few distinct orders (6 for w = 6); about one draw in ten gives fewer
    // than 20. Counting a draw's orders costs B³ steps once per order length, so only small B are
    // scored; beyond that every draw gives far more orders than keys need.
    constexpr uint32_t kDraws = 4;
    constexpr uint32_t kScoredUpTo = 32;
    const uint32_t b = mask_ + 1;
    Rng rng(seed ^ 0x0fa2ULL, len);
    size_t best = 0;
    for (uint32_t d = 0; d < kDraws; ++d) {
      std::vector<uint32_t> pi(b);
      std::iota(pi.begin(), pi.end(), 0u);
      for (uint32_t i = b; i > 1; --i) std::swap(pi[i - 1], pi[rng.below(i)]);
      if (b > kScoredUpTo) {
        pi_ = std::move(pi);
        break;
      }
      const size_t score = cyclic_orders(pi);
      if (score > best) {
        best = score;
        pi_ = std::move(pi);
      }
    }
  }

  // Appends key `key`'s positions (a permutation of [0, len)) to `out`.
  void positions(uint64_t seed, uint32_t key, std::vector<uint32_t>& out) const {
    Rng rng(seed ^ 0x0fa4ULL, key + 1ULL);
    const uint32_t x = rng.below(mask_ + 1);
    const uint32_t a = rng.below(mask_ + 1);
    append(pi_, x, a, out);
  }

 private:
  void append(const std::vector<uint32_t>& pi, uint32_t x, uint32_t a,
              std::vector<uint32_t>& out) const {
    for (uint32_t i = 0; i <= mask_; ++i) {
      const uint32_t v = (pi[i ^ x] + a) & mask_;
      if (v < len_) out.push_back(v);
    }
  }
  // Distinct orders up to rotation over every (x, a).
  size_t cyclic_orders(const std::vector<uint32_t>& pi) const {
    std::set<std::vector<uint32_t>> seen;
    std::vector<uint32_t> o;
    for (uint32_t x = 0; x <= mask_; ++x) {
      for (uint32_t a = 0; a <= mask_; ++a) {
        o.clear();
        append(pi, x, a, o);
        std::rotate(o.begin(), std::find(o.begin(), o.end(), 0u), o.end());
        seen.insert(o);
      }
    }
    return seen.size();
  }

  uint32_t len_;
  uint32_t mask_;
  std::vector<uint32_t> pi_;
};

}  // namespace

OrderTable::OrderTable(const std::vector<std::vector<WeightedPort>>& dest_ports,
                       const std::vector<bool>& down, uint64_t seed) {
  // The switch's base permutation: a random rank per port id, the same for every destination. It
  // fixes the interleaved sequence each key's positions index.
  std::vector<uint32_t> rank(down.size());
  std::iota(rank.begin(), rank.end(), 0u);
  Rng rng(seed, 0x5eed);
  for (size_t i = rank.size(); i > 1; --i) std::swap(rank[i - 1], rank[rng.below(i)]);

  offset_.push_back(0);
  std::map<uint32_t, XorAddOrders> by_len;  // one global permutation per order length
  std::vector<WeightedPort> live;
  std::vector<uint32_t> at;
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
    const XorAddOrders* orders = nullptr;
    if (len != 0) orders = &by_len.try_emplace(len, seed, len).first->second;
    for (uint32_t cls = 0; cls < kSizeClasses; ++cls) {
      const uint32_t key = static_cast<uint32_t>(d) * kSizeClasses + cls;
      if (orders != nullptr) {
        at.clear();
        orders->positions(seed, key, at);
        for (uint32_t i : at) ports_.push_back(seq[i]);
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
