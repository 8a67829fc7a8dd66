// Ofan's orders and combining, and pOfan's per-pipe pointers (ALGORITHMS.md, Ofan and pOfan).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "conf/schema.h"
#include "lb_test_util.h"
#include "switch/lb/factory.h"
#include "switch/lb/fast_mod.h"
#include "switch/lb/ofan.h"
#include "switch/lb/pofan.h"

namespace spraylab::lb {
namespace {

// Ofan's pointer-to-position without a division: the remainder itself for every divisor an order
// can have and beyond the table, at 0, small values, the edges of 32 bits (where the fast path
// ends) and past them, and at many random values.
TEST(FastMod, IsTheRemainder) {
  std::vector<uint64_t> xs;
  for (uint64_t x = 0; x < 600; ++x) xs.push_back(x);
  for (const uint64_t x : {0xFFFF'FFFFull, 0xFFFF'FFFEull, 0x8000'0000ull, 0x7FFF'FFFFull,
                           0x1'0000'0000ull, 0x1'0000'0001ull, 0xFFFF'FFFF'FFFF'FFFFull}) {
    xs.push_back(x);
  }
  uint64_t s = 0x9E3779B97F4A7C15ull;
  for (int i = 0; i < 4000; ++i) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    xs.push_back(s >> 32);            // 32-bit values
    if (i % 8 == 0) xs.push_back(s);  // some past 2^32
  }
  uint64_t wrong = 0;
  for (uint32_t d = 1; d <= kFastModDivisors + 8; ++d) {
    for (const uint64_t x : xs) {
      if (fast_mod(x, d) != x % d) {
        if (++wrong <= 5) ADD_FAILURE() << x << " mod " << d << ": " << fast_mod(x, d);
      }
    }
    for (uint64_t k = 1; k < 64; ++k) {  // near the multiples of d up to 2^32
      const uint64_t x = (0xFFFF'FFFFull / d / 64) * k * d;
      for (const uint64_t y : {x - 1, x, x + 1}) {
        if (y <= 0xFFFF'FFFFull && fast_mod(y, d) != y % d && ++wrong <= 5) {
          ADD_FAILURE() << y << " mod " << d << ": " << fast_mod(y, d);
        }
      }
    }
  }
  EXPECT_EQ(wrong, 0u);
}

using testing::Queues;

// A switch whose destinations each have their own candidate ports (some shared, varying w).
std::vector<std::vector<WeightedPort>> random_dest_ports(uint32_t dests, uint32_t ports,
                                                         uint64_t seed) {
  Rng rng(seed);
  std::vector<std::vector<WeightedPort>> out(dests);
  for (auto& set : out) {
    const uint32_t w = 1 + rng.below(ports);
    std::vector<PortId> all = testing::ports(ports);
    for (uint32_t i = 0; i < w; ++i) {
      std::swap(all[i], all[i + rng.below(ports - i)]);
      set.push_back({all[i], 1});
    }
  }
  return out;
}

SwitchContext context(std::vector<std::vector<WeightedPort>> dest_ports, uint32_t lcores = 1) {
  SwitchContext ctx;
  ctx.seed = 11;
  ctx.lcores = lcores;
  ctx.ports = 64;
  ctx.dest_ports = std::move(dest_ports);
  return ctx;
}

// A spec as the loader makes it: the algorithm's own defaults applied.
conf::BalancerSpec spec(Algorithm algorithm, bool atomic = false) {
  conf::BalancerSpec s = conf::balancer_defaults(algorithm);
  s.atomic_per_packet = atomic;
  return s;
}

std::vector<Packet> random_burst(Rng& rng, uint32_t size, uint32_t dests) {
  std::vector<Packet> burst(size);
  for (Packet& p : burst) {
    p.dest = rng.below(dests);
    p.bytes = rng.below(4) == 0 ? 64 : 4096;  // ACK class under 128 B
    p.rx_queue = static_cast<uint16_t>(rng.below(4));
  }
  return burst;
}

TEST(Interleave, WeightedRoundRobinDividesByGcdAndInterleaves) {
  // ALGORITHMS.md: weights 2,2,2,1 (P1..P4) over the order P3,P2,P4,P1.
  const std::vector<WeightedPort> order = {{3, 2}, {2, 2}, {4, 1}, {1, 2}};
  EXPECT_EQ(interleave(order), (std::vector<PortId>{3, 2, 4, 1, 3, 2, 1}));
  const std::vector<WeightedPort> scaled = {{3, 40}, {2, 40}, {4, 20}, {1, 40}};
  EXPECT_EQ(interleave(scaled), interleave(order));
  const std::vector<WeightedPort> down = {{7, 0}, {8, 3}};
  EXPECT_EQ(interleave(down), (std::vector<PortId>{8}));
}

TEST(OrderTable, EveryKeysOrderIsAPermutationOfItsCandidates) {
  const auto dest_ports = random_dest_ports(50, 16, 3);
  const OrderTable t(dest_ports, std::vector<bool>(16, false), 5);
  ASSERT_EQ(t.keys(), 100u);
  std::set<std::vector<PortId>> distinct;
  for (uint32_t k = 0; k < t.keys(); ++k) {
    std::vector<PortId> got(t.order(k).begin(), t.order(k).end());
    distinct.insert(got);
    std::vector<PortId> want;
    for (const WeightedPort& p : dest_ports[k / kSizeClasses]) want.push_back(p.port);
    std::sort(got.begin(), got.end());
    std::sort(want.begin(), want.end());
    EXPECT_EQ(got, want) << "key " << k;
  }
  EXPECT_GT(distinct.size(), 60u);  // keys rotate in different orders
}

TEST(OrderTable, SixPortsGiveAtLeastTwentyDistinctCyclicOrders) {
  // Ofan F.2: orders built with XOR and addition over one global permutation give up to 30 distinct
  // cyclic orders for w = 6 (a stride over one base order gave φ(6) = 2). Rotations of one order
  // are the same order: each is counted from its smallest port. Several switch seeds, so the test
  // does not rest on one lucky permutation.
  const std::vector<WeightedPort> six = {{3, 1}, {7, 1}, {8, 1}, {10, 1}, {11, 1}, {12, 1}};
  const std::vector<std::vector<WeightedPort>> dest_ports(200, six);
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    const OrderTable t(dest_ports, std::vector<bool>(16, false), switch_seed(seed, 0));
    std::set<std::vector<PortId>> cyclic;
    for (uint32_t k = 0; k < t.keys(); ++k) {
      std::vector<PortId> o(t.order(k).begin(), t.order(k).end());
      std::vector<PortId> sorted = o;
      std::sort(sorted.begin(), sorted.end());
      ASSERT_EQ(sorted, (std::vector<PortId>{3, 7, 8, 10, 11, 12})) << "key " << k;
      std::rotate(o.begin(), std::min_element(o.begin(), o.end()), o.end());
      cyclic.insert(o);
    }
    EXPECT_GE(cyclic.size(), 20u) << "seed " << seed;
  }
}

TEST(OrderTable, WeightedOrdersGiveEachPortItsShareAndDownPortsNone) {
  const std::vector<std::vector<WeightedPort>> dest_ports = {{{0, 4}, {1, 2}, {2, 2}, {3, 6}}};
  std::vector<bool> down(4, false);
  const OrderTable t(dest_ports, down, 1);
  std::map<PortId, int> n;
  for (PortId p : t.order(0)) ++n[p];
  EXPECT_EQ(n, (std::map<PortId, int>{{0, 2}, {1, 1}, {2, 1}, {3, 3}}));
  down[3] = true;
  const OrderTable t2(dest_ports, down, 1);
  n.clear();
  for (PortId p : t2.order(1)) ++n[p];
  EXPECT_EQ(n, (std::map<PortId, int>{{0, 2}, {1, 1}, {2, 1}}));
}

TEST(Ofan, ConsecutivePacketsOfAKeyRotateThroughItsOrder) {
  BalancerFactory f(spec(Algorithm::kOfan), context({{{4, 1}, {9, 1}, {2, 1}, {6, 1}, {1, 1}}}));
  auto b = f.make(0);
  Queues q(16);
  Rng rng(1);
  std::vector<Packet> burst(20);
  for (Packet& p : burst) p.bytes = 1500;
  std::vector<PortId> out(20);
  b->choose(burst, BurstContext{q.view(), &rng, 0}, out.data());
  for (size_t i = 5; i < out.size(); ++i) EXPECT_EQ(out[i], out[i - 5]);
  EXPECT_EQ(std::set<PortId>(out.begin(), out.begin() + 5), (std::set<PortId>{1, 2, 4, 6, 9}));
}

// Across bursts, a key's packets go on through its order where the last burst stopped: bursts of
// 1 to 7 packets of one key (Ofan::one_key), and bursts mixing it with a second key (the grouping
// path), hand out one cyclic sequence of period 5 per key.
TEST(Ofan, AKeysRotationContinuesFromOneBurstToTheNext) {
  BalancerFactory f(spec(Algorithm::kOfan), context({{{4, 1}, {9, 1}, {2, 1}, {6, 1}, {1, 1}}}));
  auto b = f.make(0);
  Queues q(16);
  Rng rng(1);
  std::map<uint32_t, std::vector<PortId>> by_size;  // 1500 B data, 64 B ACK class: two keys
  const auto burst = [&](std::vector<uint32_t> sizes) {
    std::vector<Packet> packets(sizes.size());
    for (size_t i = 0; i < sizes.size(); ++i) packets[i].bytes = sizes[i];
    std::vector<PortId> out(packets.size());
    b->choose(packets, BurstContext{q.view(), &rng, 0}, out.data());
    for (size_t i = 0; i < out.size(); ++i) by_size[sizes[i]].push_back(out[i]);
  };
  for (uint32_t n : {1u, 3u, 7u, 2u, 5u, 1u, 6u, 4u}) burst(std::vector<uint32_t>(n, 1500));
  burst({1500, 64, 1500, 64, 64, 1500});
  burst({64, 1500, 1500, 64, 1500, 1500, 1500, 64, 1500});
  burst({64, 64, 64});
  burst({1500, 64, 1500});
  for (const auto& [size, ports] : by_size) {
    ASSERT_GE(ports.size(), 10u) << size;
    EXPECT_EQ(std::set<PortId>(ports.begin(), ports.begin() + 5), (std::set<PortId>{1, 2, 4, 6, 9}))
        << size;
    for (size_t i = 5; i < ports.size(); ++i) EXPECT_EQ(ports[i], ports[i - 5]) << size << " " << i;
  }
}

TEST(Ofan, CombiningGivesExactlyTheSequentialAssignment) {
  const auto dest_ports = random_dest_ports(12, 16, 7);
  BalancerFactory combined_f(spec(Algorithm::kOfan), context(dest_ports));
  BalancerFactory sequential_f(spec(Algorithm::kOfan, true),
                               context(dest_ports));  // same seed, pointers
  auto combined = combined_f.make(0);
  auto sequential = sequential_f.make(0);
  Queues q(16);
  Rng rng(1), gen(21);
  for (int b = 0; b < 2000; ++b) {
    const auto burst = random_burst(gen, 1 + gen.below(100), 12);  // also > kMaxBurst
    std::vector<PortId> a(burst.size()), s(burst.size());
    combined->choose(burst, BurstContext{q.view(), &rng, 0}, a.data());
    for (size_t i = 0; i < burst.size(); ++i) {  // one packet at a time
      sequential->choose({&burst[i], 1}, BurstContext{q.view(), &rng, 0}, &s[i]);
    }
    ASSERT_EQ(a, s) << "burst " << b;
  }
}

TEST(Ofan, OneLcoreAdvancesThePointersAsSharedOnesWould) {
  // With one lcore the pointers move by plain load and store; with more, by fetch_add. Driven
  // from one lcore both must hand out the same ports.
  const auto dest_ports = random_dest_ports(12, 16, 9);
  BalancerFactory single_f(spec(Algorithm::kOfan), context(dest_ports, 1));
  BalancerFactory shared_f(spec(Algorithm::kOfan), context(dest_ports, 2));
  auto single = single_f.make(0);
  auto shared = shared_f.make(0);
  Queues q(16);
  Rng rng(1), gen(5);
  for (int b = 0; b < 2000; ++b) {
    const auto burst = random_burst(gen, 1 + gen.below(64), 12);
    std::vector<PortId> a(burst.size()), s(burst.size());
    single->choose(burst, BurstContext{q.view(), &rng, 0}, a.data());
    shared->choose(burst, BurstContext{q.view(), &rng, 0}, s.data());
    ASSERT_EQ(a, s) << "burst " << b;
  }
}

TEST(Ofan, APortTakenDownIsNeverChosenAfterTheSwapAndReturnsWhenUp) {
  const auto dest_ports = random_dest_ports(8, 8, 9);
  BalancerFactory f(spec(Algorithm::kOfan), context(dest_ports));
  auto b = f.make(0);
  Queues q(8);
  Rng rng(1), gen(2);
  std::vector<uint64_t> n(8);
  auto run = [&] {
    std::fill(n.begin(), n.end(), 0);
    for (int i = 0; i < 200; ++i) {
      const auto burst = random_burst(gen, 32, 8);
      std::vector<PortId> out(32);
      b->choose(burst, BurstContext{q.view(), &rng, 0}, out.data());
      for (size_t j = 0; j < out.size(); ++j) {
        if (out[j] != kNoPort) ++n[out[j]];
      }
    }
  };
  run();
  ASSERT_GT(n[3], 0u);
  f.set_port_state(3, false);
  run();
  EXPECT_EQ(n[3], 0u);
  f.set_port_state(3, true);
  run();
  EXPECT_GT(n[3], 0u);
  f.synchronize();  // every replaced table is freed once the lcore has passed a burst
}

TEST(Ofan, AllPortsDownGivesNoPort) {
  BalancerFactory f(spec(Algorithm::kOfan), context({{{0, 1}, {1, 1}}}));
  auto b = f.make(0);
  f.set_port_state(0, false);
  f.set_port_state(1, false);
  Queues q(2);
  Rng rng(1);
  Packet p;
  p.bytes = 1000;
  EXPECT_EQ(testing::choose_one(*b, p, q.view(), rng), kNoPort);
}

TEST(Pofan, PointersAreIndependentPerPipe) {
  const auto dest_ports = random_dest_ports(4, 8, 5);
  SwitchContext ctx = context(dest_ports);
  ctx.rx_queues = 4;
  BalancerFactory alone_f(spec(Algorithm::kPofan), ctx), mixed_f(spec(Algorithm::kPofan), ctx);
  auto alone = alone_f.make(0);
  auto mixed = mixed_f.make(0);
  Queues q(8);
  Rng rng(1), gen(8);
  std::vector<PortId> pipe1_alone, pipe1_mixed;
  for (int b = 0; b < 300; ++b) {
    auto burst = random_burst(gen, 32, 4);
    std::vector<PortId> out(32);
    mixed->choose(burst, BurstContext{q.view(), &rng, 0}, out.data());
    std::vector<Packet> only1;
    for (size_t i = 0; i < burst.size(); ++i) {
      if (burst[i].rx_queue == 1) {
        pipe1_mixed.push_back(out[i]);
        only1.push_back(burst[i]);
      }
    }
    out.resize(only1.size());
    alone->choose(only1, BurstContext{q.view(), &rng, 0}, out.data());
    pipe1_alone.insert(pipe1_alone.end(), out.begin(), out.end());
  }
  ASSERT_GT(pipe1_alone.size(), 1000u);
  EXPECT_EQ(pipe1_mixed, pipe1_alone);  // traffic on pipes 0, 2, 3 never moved pipe 1's pointers
}

// Each pipe is one lcore's: a cache line holding two pipes' pointers would move between their
// CPUs at every packet (issue 44), so no line may hold pointers of two pipes.
TEST(Pofan, NoCacheLineHoldsTwoPipesPointers) {
  for (uint32_t keys : {1u, 5u, 16u, 17u, 40u}) {
    PofanState state(random_dest_ports(keys, 8, keys), 3, 2, 3);
    const uint32_t n = state.orders().keys();
    ASSERT_GE(n, keys);
    std::map<uintptr_t, std::set<uint32_t>> pipes_of_line;
    std::set<uintptr_t> addresses;
    for (uint32_t pipe = 0; pipe < 3; ++pipe) {
      for (uint32_t key = 0; key < n; ++key) {
        const auto a = reinterpret_cast<uintptr_t>(&state.pointer(key, pipe));
        addresses.insert(a);
        pipes_of_line[a / 64].insert(pipe);
      }
    }
    EXPECT_EQ(addresses.size(), size_t{n} * 3) << keys << " keys: two pointers at one address";
    for (const auto& [line, pipes] : pipes_of_line) {
      EXPECT_EQ(pipes.size(), 1u) << keys << " keys: line " << line << " holds several pipes";
    }
  }
}

TEST(Pofan, PortGroupsShareOnePointerPerPipe) {
  conf::BalancerSpec s = spec(Algorithm::kPofan);
  s.pipe_ports = 4;
  BalancerFactory f(s, context({{{10, 1}, {11, 1}, {12, 1}}}));
  auto b = f.make(0);
  Queues q(16);
  Rng rng(1);
  // Ports 0..3 form pipe 0: three packets from three of its ports cover the order once.
  std::vector<Packet> burst(6);
  for (size_t i = 0; i < burst.size(); ++i) {
    burst[i].bytes = 1000;
    burst[i].ingress_port = static_cast<uint16_t>(i < 3 ? i : 4 + i);  // then ports 7..9: pipe 1-2
  }
  std::vector<PortId> out(6);
  b->choose(burst, BurstContext{q.view(), &rng, 0}, out.data());
  EXPECT_EQ(std::set<PortId>(out.begin(), out.begin() + 3), (std::set<PortId>{10, 11, 12}));
}

TEST(Pofan, APortTakenDownIsNeverChosenAfterTheSwap) {
  SwitchContext ctx = context(random_dest_ports(6, 8, 4));
  ctx.rx_queues = 4;
  BalancerFactory f(spec(Algorithm::kPofan), ctx);
  auto b = f.make(0);
  Queues q(8);
  Rng rng(1), gen(3);
  f.set_port_state(5, false);
  for (int i = 0; i < 200; ++i) {
    const auto burst = random_burst(gen, 32, 6);
    std::vector<PortId> out(32);
    b->choose(burst, BurstContext{q.view(), &rng, 0}, out.data());
    for (PortId p : out) EXPECT_NE(p, 5);
  }
  f.synchronize();
}

// Names, units and pipes are parsed by the loader (tests/conf); the factory rejects what a
// switch cannot run and a hand-built spec that skipped the loader's defaults.
TEST(Factory, RejectsWhatTheSwitchCannotRun) {
  EXPECT_THROW(BalancerFactory(spec(Algorithm::kOfan), context({})), std::invalid_argument);
  EXPECT_THROW(BalancerFactory(spec(Algorithm::kPofan), context({})), std::invalid_argument);
  EXPECT_THROW(BalancerFactory(spec(Algorithm::kPolarized), context({{{0, 1}}})),
               std::invalid_argument);  // no routing data
  conf::BalancerSpec psp = spec(Algorithm::kPsp);
  psp.bands = 0;
  EXPECT_THROW(BalancerFactory(psp, context({})), std::invalid_argument);
  EXPECT_NO_THROW(BalancerFactory(spec(Algorithm::kPsp), context({})));
}

// Traits::inputs: the forwarder fills only the fields an algorithm reads, so garbage in every
// other field must leave its choices as they were (bursts of two destinations, small and large
// frames, the same generator seed for both runs). Seen failing when rps was made to read `bytes`.
TEST(Factory, AnAlgorithmReadsOnlyItsInputs) {
  const std::vector<PortId> cand = {3, 7, 1, 5};
  int checked = 0;
  for (const AlgorithmInfo& a : kAlgorithms) {
    const Inputs in = a.traits.inputs;
    if (in == Inputs::kAll) continue;
    // Queue-aware ones in both units: in bytes they read `bytes`, in packets not.
    for (const QueueUnit unit : {QueueUnit::kPackets, QueueUnit::kBytes}) {
      if (unit == QueueUnit::kBytes && !a.traits.queue_depths) continue;
      ++checked;
      conf::BalancerSpec s = spec(a.id);
      s.queue_unit = unit;
      BalancerFactory fa(s, context({{{0, 1}, {1, 1}, {2, 1}}, {{3, 1}, {4, 1}}}));
      BalancerFactory fb(s, context({{{0, 1}, {1, 1}, {2, 1}}, {{3, 1}, {4, 1}}}));
      auto ba = fa.make(0), bb = fb.make(0);
      Queues qa(64), qb(64);
      Rng rng_a(7), rng_b(7), fields(99), poison(12345);
      for (int burst = 0; burst < 20; ++burst) {
        std::vector<Packet> plain(32), poisoned(32);
        for (size_t i = 0; i < plain.size(); ++i) {
          Packet p = testing::packet(cand, static_cast<uint32_t>(fields.next()),
                                     fields.below(4) == 0 ? 64 : 64 + fields.below(4000));
          p.dest = fields.below(2);
          p.entropy = static_cast<uint16_t>(fields.next());
          plain[i] = p;
          // What the forwarder writes for this algorithm; the rest garbage.
          Packet x;
          x.ingress_port = static_cast<uint16_t>(poison.next());
          x.rx_queue = static_cast<uint16_t>(poison.next());
          x.dest = static_cast<uint32_t>(poison.next());
          x.src_leaf = static_cast<uint32_t>(poison.next());
          x.dst_leaf = static_cast<uint32_t>(poison.next());
          x.hash = static_cast<uint32_t>(poison.next());
          x.entropy = static_cast<uint16_t>(poison.next());
          x.bytes = static_cast<uint32_t>(poison.next());
          x.path_label = static_cast<uint16_t>(poison.next());
          x.candidates = p.candidates;
          x.num_candidates = p.num_candidates;
          if (in != Inputs::kCandidates) x.bytes = p.bytes;
          if (in == Inputs::kDestBytes) x.dest = p.dest;
          poisoned[i] = x;
        }
        // The same depths for both: each balancer's choices grow its own queues.
        std::vector<PortId> out_a(32), out_b(32);
        ba->choose(plain, BurstContext{qa.view(), &rng_a, 1000u * burst}, out_a.data());
        bb->choose(poisoned, BurstContext{qb.view(), &rng_b, 1000u * burst}, out_b.data());
        EXPECT_EQ(out_a, out_b) << a.name << (unit == QueueUnit::kBytes ? " in bytes" : "")
                                << " burst " << burst;
        for (size_t i = 0; i < out_a.size(); ++i) {
          if (out_a[i] != kNoPort) qa.depth[out_a[i]].fetch_add(plain[i].bytes);
          if (out_b[i] != kNoPort) qb.depth[out_b[i]].fetch_add(plain[i].bytes);
        }
      }
    }
  }
  EXPECT_GE(checked, 9);  // rps, rr, ofan; jsq, topk, psp in both units
}

TEST(Factory, MakesEveryAlgorithmInTheNameTable) {
  for (const AlgorithmInfo& a : kAlgorithms) {
    // Routing data needed: polarized_test.cpp, ksp_test.cpp, dragonfly_test.cpp.
    if (a.id == Algorithm::kPolarized || a.id == Algorithm::kKsp || a.traits.dragonfly) continue;
    BalancerFactory f(spec(a.id), context({{{0, 1}, {1, 1}}}));
    EXPECT_EQ(f.algorithm(), a.id);
    auto b = f.make(0);
    Queues q(64);
    Rng rng(1);
    const std::vector<PortId> cand = {0, 1};
    Packet p = testing::packet(cand);
    const PortId out = testing::choose_one(*b, p, q.view(), rng);
    EXPECT_TRUE(out == 0 || out == 1) << a.name;
  }
}

}  // namespace
}  // namespace spraylab::lb
