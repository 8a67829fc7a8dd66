// Ofan shared by lcores: threads hammering one table, and the RCU swap of orders while threads
// choose. Also built with ThreadSanitizer (the `lb-tsan` test).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "lb_test_util.h"
#include "switch/lb/factory.h"

namespace spraylab::lb {
namespace {

constexpr uint32_t kDests = 6;
constexpr uint32_t kPorts = 8;

SwitchContext shared_switch(uint32_t lcores) {
  SwitchContext ctx;
  ctx.seed = 3;
  ctx.lcores = lcores;
  ctx.ports = kPorts;
  ctx.rx_queues = lcores;
  for (uint32_t d = 0; d < kDests; ++d) {
    ctx.dest_ports.emplace_back();
    for (PortId p = 0; p < kPorts; ++p) ctx.dest_ports.back().push_back({p, 1});
  }
  return ctx;
}

std::vector<Packet> random_burst(Rng& rng) {
  std::vector<Packet> burst(1 + rng.below(32));
  for (Packet& p : burst) {
    p.dest = rng.below(kDests);
    p.bytes = rng.below(3) == 0 ? 64 : 1500;
  }
  return burst;
}

TEST(OfanConcurrency, TwoThreadsOnOneTableKeepPerKeyPortCountsWithinOne) {
  conf::BalancerSpec spec;
  spec.algorithm = Algorithm::kOfan;
  BalancerFactory f(spec, shared_switch(2));
  constexpr uint32_t kKeys = kDests * 2;
  std::vector<std::vector<uint64_t>> counts[2];
  auto lcore = [&](uint32_t id) {
    auto b = f.make(id);
    testing::Queues q(kPorts);
    Rng rng = Rng::for_lcore(1, id);
    counts[id].assign(kKeys, std::vector<uint64_t>(kPorts, 0));
    std::vector<PortId> out(32);
    for (int i = 0; i < 20000; ++i) {
      const auto burst = random_burst(rng);
      b->choose(burst, BurstContext{q.view(), &rng, 0}, out.data());
      for (size_t j = 0; j < burst.size(); ++j) {
        ++counts[id][burst[j].dest * 2 + (burst[j].bytes < 128)][out[j]];
      }
    }
  };
  std::thread t0(lcore, 0), t1(lcore, 1);
  t0.join();
  t1.join();
  for (uint32_t k = 0; k < kKeys; ++k) {
    uint64_t lo = UINT64_MAX, hi = 0, total = 0;
    for (uint32_t p = 0; p < kPorts; ++p) {
      const uint64_t n = counts[0][k][p] + counts[1][k][p];
      lo = std::min(lo, n);
      hi = std::max(hi, n);
      total += n;
    }
    EXPECT_GT(total, 10000u);
    EXPECT_LE(hi - lo, 1u) << "key " << k;
  }
}

// Two lcores choose while the control plane takes port 5 down and up again. `phase` is odd from
// the moment a "down" swap is published until just before the port comes back; a burst during which
// the phase stayed odd started after the swap, and must not choose port 5.
void swap_while_choosing(Algorithm algorithm) {
  conf::BalancerSpec spec;
  spec.algorithm = algorithm;
  BalancerFactory f(spec, shared_switch(2));
  std::atomic<uint64_t> phase{0};
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> violations{0}, checked{0};
  auto lcore = [&](uint32_t id) {
    auto b = f.make(id);
    testing::Queues q(kPorts);
    Rng rng = Rng::for_lcore(2, id);
    std::vector<PortId> out(32);
    while (!stop.load()) {
      auto burst = random_burst(rng);
      for (Packet& p : burst) p.rx_queue = static_cast<uint16_t>(id);
      const uint64_t before = phase.load(std::memory_order_acquire);
      b->choose(burst, BurstContext{q.view(), &rng, 0}, out.data());
      if (before % 2 == 0 || phase.load(std::memory_order_acquire) != before) continue;
      for (size_t j = 0; j < burst.size(); ++j) violations += out[j] == 5;
      checked += burst.size();
    }
  };
  std::thread t0(lcore, 0), t1(lcore, 1);
  for (int round = 0; round < 50; ++round) {
    f.set_port_state(5, false);
    phase.fetch_add(1, std::memory_order_acq_rel);  // odd: the down table is published
    std::this_thread::sleep_for(std::chrono::microseconds(300));
    phase.fetch_add(1, std::memory_order_acq_rel);  // even: the port may come back any time now
    f.set_port_state(5, true);
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  stop = true;
  t0.join();
  t1.join();
  f.synchronize();
  EXPECT_GT(checked.load(), 0u);
  EXPECT_EQ(violations.load(), 0u);
}

TEST(OfanConcurrency, APortTakenDownIsNeverChosenAfterTheSwap) {
  swap_while_choosing(Algorithm::kOfan);
}
TEST(PofanConcurrency, APortTakenDownIsNeverChosenAfterTheSwap) {
  swap_while_choosing(Algorithm::kPofan);
}

}  // namespace
}  // namespace spraylab::lb
