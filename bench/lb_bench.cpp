// ns per packet of every load balancer (issue 3): BM_Lb/<algorithm>/<w> for w = 4, 16, 64 with
// bursts of 32, and Ofan combined vs per-packet atomics (`atomic_per_packet`, the baseline) with
// one and two threads (BM_OfanShared). Variants of the queue readers (issue 18): `jsq_banded`
// (bands 4) and `<algorithm>_stale` (state 20 µs old, the PSP paper's staleness) beside their
// defaults, `psp_live` (PSP's default is a 1 µs snapshot), and `<algorithm>_drained` (every queue
// empty at each burst's start and Th the default floor of 8 packets: the switch's null case, where
// the net_null ports drain between bursts and the burst's own choices are all the depth there is).
//
// The reported time is per packet (one benchmark iteration = one packet); the `cycles_per_packet`
// counter is TSC cycles per packet over the timed loop.
#include <benchmark/benchmark.h>
#include <x86intrin.h>

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "conf/schema.h"
#include "net/wire.h"
#include "switch/lb/algorithm.h"
#include "switch/lb/factory.h"
#include "topo/generators.h"
#include "topo/routing.h"

namespace spraylab::lb {
namespace {

using net::kBurst;
constexpr uint32_t kBurstPool = 256;  // distinct pre-generated bursts, cycled
constexpr uint32_t kDests = 64;
// Destinations in one burst: an rx queue carries a few flows at a time.
constexpr uint32_t kDestsPerBurst = 4;
// The clock advances by one full burst's time per burst: 32 minimum frames at 10 Gb/s line rate
// (67.2 ns each). So AR's 100 ns view is refreshed every burst, as in the switch, and a 20 µs
// stale view every ~9 bursts.
constexpr uint64_t kBurstNs = 2150;

// One switch under test: its balancer factory, queues and pre-generated bursts.
// A variant of an algorithm's defaults.
struct Variant {
  bool atomic = false;  // ofan: per-packet atomics
  uint32_t bands = 0;   // jsq: banded with this many bands
  std::optional<uint64_t> state_update =
      std::nullopt;      // the view's period (0: live), else the default
  bool drained = false;  // empty queues, Th 8 packets
};

struct Bench {
  Bench(Algorithm algorithm, Variant variant, uint32_t w, uint32_t lcores);

  std::unique_ptr<topo::Topology> topology;  // polarized, ksp, the Dragonfly routings only
  std::unique_ptr<topo::Routing> routing;
  std::unique_ptr<BalancerFactory> factory;
  std::vector<PortId> candidates;
  std::vector<std::atomic<uint32_t>> depth;
  std::vector<uint32_t> capacity;
  std::vector<std::vector<Packet>> bursts;
};

// An MRLS spine has w fabric ports: leaves of radix w with 3w/4 uplinks (dense enough that small
// instances have no Polarized corner, MRLS paper §4.3). `leaf`: a leaf instead (KSP's choice is
// made at the source leaf; its ports are the 3w/4 uplinks, its packets' candidates every port).
uint32_t mrls_switch(Bench& b, uint32_t w, SwitchContext& ctx, bool leaf) {
  topo::MrlsParams p;
  p.leaves = 2 * w;
  p.uplinks = 3 * w / 4;
  p.downlinks = w - p.uplinks;
  p.seed = 1;
  p.max_tries = 1000;
  b.topology = std::make_unique<topo::Topology>(topo::mrls(p));
  b.routing = std::make_unique<topo::Routing>(*b.topology);
  for (uint32_t sw = 0; sw < b.routing->graph().size(); ++sw) {
    if (b.routing->is_leaf(sw) == leaf) {
      ctx.routing = b.routing.get();
      ctx.switch_index = sw;
      ctx.ports = b.topology->degree(b.routing->graph().node_of(sw));
      return sw;
    }
  }
  return 0;
}

// The Dragonfly routings at a switch of the MRLS paper's Dragonfly (DF(32, 16512): p = 8, a = 16,
// h = 8, 129 groups: 23 fabric ports a router) or, for fpar, a leaf of its Dragonfly+ (DF+(32,
// 16640): 65 groups of 16 leaves and 16 spines, 16 global links a spine: 16 up ports a leaf),
// every packet entering the fabric there: the entry decision, ugal's and fpar's dearer one (a
// later switch follows the label or the minimal ports). Their own port count, whatever w.
// Returns the switch's leaf rank; `candidates` are its fabric ports.
uint32_t dragonfly_switch(Bench& b, Algorithm algorithm, SwitchContext& ctx) {
  if (algorithm == Algorithm::kFpar) {
    b.topology = std::make_unique<topo::Topology>(topo::dragonfly_plus(
        {.leaves_per_group = 16, .spines_per_group = 16, .hosts_per_leaf = 16,
         .global_links_per_spine = 16, .groups = 65, .link = {}}));
  } else {
    b.topology = std::make_unique<topo::Topology>(topo::dragonfly(
        {.hosts_per_router = 8, .routers_per_group = 16, .global_links_per_router = 8,
         .groups = 129, .link = {}}));
  }
  b.routing = std::make_unique<topo::Routing>(*b.topology);
  const topo::SwitchGraph& g = b.routing->graph();
  const uint32_t sw = b.routing->leaves()[0];
  ctx.routing = b.routing.get();
  ctx.switch_index = sw;
  ctx.ports = b.topology->degree(g.node_of(sw));
  b.candidates.clear();
  for (uint32_t e = g.begin(sw); e < g.end(sw); ++e) b.candidates.push_back(g.port(e));
  return b.routing->leaf_rank(sw);
}

Bench::Bench(Algorithm algorithm, Variant variant, uint32_t w, uint32_t lcores) {
  conf::BalancerSpec spec = conf::balancer_defaults(algorithm);
  spec.atomic_per_packet = variant.atomic;
  if (variant.bands != 0) spec.bands = variant.bands;
  if (variant.state_update) spec.state_update_ns = *variant.state_update;
  // Th = the 100-packet buffer below (the figures before issue 19's default): depths range over
  // 0..120 packets, so every band is populated.
  spec.threshold = variant.drained ? kBandFloorPackets : 100;
  SwitchContext ctx;
  ctx.seed = 1;
  ctx.lcores = lcores;
  ctx.ports = w;
  ctx.rx_queues = 4;
  for (PortId p = 0; p < w; ++p) candidates.push_back(p);
  for (uint32_t d = 0; d < kDests; ++d) {
    ctx.dest_ports.emplace_back();
    for (PortId p : candidates) ctx.dest_ports.back().push_back({p, 1});
  }
  if (algorithm == Algorithm::kPolarized) mrls_switch(*this, w, ctx, false);
  // KSP at a source leaf, every packet at its first hop: the adaptive choice (a later switch
  // only follows the label). A K of 16: the choice draws one path per length whatever K is,
  // and K = 250 would make the set-up enumerate far more paths (build time, not choice time).
  uint32_t ksp_leaf = UINT32_MAX;
  if (algorithm == Algorithm::kKsp) {
    spec.k = 16;
    const uint32_t sw = mrls_switch(*this, w, ctx, true);  // sets `routing`: before its use
    ksp_leaf = routing->leaf_rank(sw);
  }
  const bool dragonfly = traits(algorithm).dragonfly;
  if (dragonfly) ksp_leaf = dragonfly_switch(*this, algorithm, ctx);  // the entry switch's rank
  factory = std::make_unique<BalancerFactory>(spec, ctx);
  // Queue depths: random, 0..1.2 × a 100-packet buffer, so every band is populated.
  Rng rng(7);
  depth = std::vector<std::atomic<uint32_t>>(ctx.ports);
  capacity.assign(ctx.ports, 100);
  for (auto& d : depth) d = variant.drained ? 0 : rng.below(120);
  const uint32_t leaves = routing ? static_cast<uint32_t>(routing->leaves().size()) : 1;
  for (uint32_t i = 0; i < kBurstPool; ++i) {
    uint32_t dests[kDestsPerBurst];
    for (uint32_t& d : dests) d = rng.below(kDests);
    std::vector<Packet> burst(kBurst);
    for (Packet& p : burst) {
      p.candidates = candidates.data();
      p.num_candidates = static_cast<uint16_t>(candidates.size());
      p.dest = dests[rng.below(kDestsPerBurst)];
      p.bytes = rng.below(8) == 0 ? 64 : 4096;
      p.hash = rng.next();
      p.rx_queue = static_cast<uint16_t>(rng.below(4));
      p.ingress_port = dragonfly ? 0 : static_cast<uint16_t>(rng.below(w));  // 0: a host port
      p.src_leaf = ksp_leaf != UINT32_MAX ? ksp_leaf : rng.below(leaves);
      p.dst_leaf = (p.src_leaf + 1 + rng.below(leaves > 1 ? leaves - 1 : 1)) % leaves;
    }
    bursts.push_back(std::move(burst));
  }
}

// Each iteration is one packet: KeepRunningBatch counts a burst as kBurst iterations, so the
// reported time per iteration is the time per packet.
void BM_Lb(benchmark::State& state, Bench* b) {
  const auto lcore = static_cast<uint32_t>(state.thread_index());
  auto balancer = b->factory->make(lcore);
  Rng rng = Rng::for_lcore(1, lcore);
  const QueueView view(b->depth.data(), b->capacity.data(), b->depth.size());
  PortId out[kBurst];
  uint32_t next = 0;
  uint64_t now = 0;
  const uint64_t tsc0 = __rdtsc();
  while (state.KeepRunningBatch(kBurst)) {
    balancer->choose(b->bursts[next], BurstContext{view, &rng, now}, out);
    benchmark::DoNotOptimize(out);
    benchmark::ClobberMemory();
    next = next + 1 == kBurstPool ? 0 : next + 1;
    now += kBurstNs;
  }
  const uint64_t tsc1 = __rdtsc();
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
  state.counters["cycles_per_packet"] =
      static_cast<double>(tsc1 - tsc0) / static_cast<double>(state.iterations());
}

// Built before any benchmark thread starts, so Threads(2) shares one switch (one Ofan table).
std::vector<std::unique_ptr<Bench>> g_benches;

Bench* bench(Algorithm algorithm, Variant variant, uint32_t w) {
  g_benches.push_back(std::make_unique<Bench>(algorithm, variant, w, 2));
  return g_benches.back().get();
}

void register_one(const std::string& label, Algorithm a, Variant v, uint32_t w) {
  const std::string name = "BM_Lb/" + label + "/" + std::to_string(w);
  benchmark::RegisterBenchmark(name.c_str(), BM_Lb, bench(a, v, w));
}

void register_all() {
  const std::string ofan_atomic =
      std::string(to_string(Algorithm::kOfan)) + std::string(kAtomicSuffix);
  constexpr uint64_t kStale = 20'000;  // ns: the PSP paper's stale state
  for (const uint32_t w : {4u, 16u, 64u}) {
    for (const AlgorithmInfo& a : kAlgorithms) {
      if (!a.traits.dragonfly) register_one(std::string(a.name), a.id, {}, w);
    }
    // Ofan with one atomic per packet is not in this grid: it is the baseline that combining is
    // measured against (BM_OfanShared below), no configuration of conf/ selects it, and a locked
    // instruction per packet costs more than 4x RPS by itself (docs/BENCHMARKS.md, issue 41).
    register_one("jsq_banded", Algorithm::kJsq, {.bands = 4}, w);
    for (const Algorithm a : {Algorithm::kJsq, Algorithm::kTopk, Algorithm::kPsp}) {
      register_one(std::string(to_string(a)) + "_stale", a, {.state_update = kStale}, w);
    }
    for (const Algorithm a : {Algorithm::kTopk, Algorithm::kPsp, Algorithm::kPolarized})
      register_one(std::string(to_string(a)) + "_drained", a, {.drained = true}, w);
    // PSP's default is a 1 µs snapshot: its live view beside it.
    register_one("psp_live", Algorithm::kPsp, {.state_update = 0}, w);
    register_one("psp_live_drained", Algorithm::kPsp, {.state_update = 0, .drained = true}, w);
  }
  // The Dragonfly routings at their paper-sized switch (dragonfly_switch), once: the name's
  // number is its fabric port count.
  for (const AlgorithmInfo& a : kAlgorithms) {
    if (!a.traits.dragonfly) continue;
    Bench* b = bench(a.id, {}, 0);
    const std::string name = "BM_Lb/" + std::string(a.name) + "/" +
                             std::to_string(b->candidates.size());
    benchmark::RegisterBenchmark(name.c_str(), BM_Lb, b);
  }
  // Ofan combined vs per-packet atomics with one and two lcores sharing one table.
  for (const bool atomic : {false, true}) {
    const std::string name = "BM_OfanShared/" +
                             (atomic ? ofan_atomic : std::string(to_string(Algorithm::kOfan))) +
                             "/16";
    benchmark::RegisterBenchmark(name.c_str(), BM_Lb,
                                 bench(Algorithm::kOfan, {.atomic = atomic}, 16))
        ->Threads(1)
        ->Threads(2);
  }
}

}  // namespace
}  // namespace spraylab::lb

int main(int argc, char** argv) {
  spraylab::lb::register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
