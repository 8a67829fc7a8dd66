// The forwarding pipeline's cost per packet on this CPU, without a traffic source or a second
// program: bench/switch-vs-testpmd's null layout (leaf0 of a leaf-spine with 17 one-host leaves
// and 4 or 16 spines, 64 B frames from h0 to the hosts of leaves 1..16) driven in one process.
// Each turn copies a burst of frames into fresh mbufs (what net_pcap's infinite_rx does) and runs
// worker_turn() on them; the spines are net_null ports (the same tx as the bench's).
//
// Variants alternate in short blocks (--block packets each) so that both see the same machine:
// on a shared VM a whole-run comparison measures the neighbours. A block's cost is the thread's
// CPU time over its packets, in TSC cycles (time slices given to other processes left out), and
// each variant's figure is the median of its blocks. Variants: `queue` (every frame through the
// egress queue, the fabric's path) and `direct` (WorkerPlan::direct_tx), each with --tx-coalesce
// as spraylab-switch's default; a digit after the name reads that many rx bursts a turn
// (WorkerPlan::rx_bursts; `direct2` is spraylab-switch --no-shaping's default).
//
//   build/bench/fwd_bench --ports 4 --algorithm ecmp --blocks 20
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include <fmt/format.h>
#include <unistd.h>
#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "conf/loader.h"
#include "net/ports.h"
#include "switch/dataplane/forwarder.h"
#include "switch/dataplane/switch_runtime.h"
#include "switch/dataplane/switch_tables.h"
#include "switch/dataplane/worker.h"
#include "topo/addressing.h"
#include "topo/build.h"
#include "topo/routing.h"

namespace {

using namespace spraylab;

constexpr uint32_t kTemplates = 1024;
constexpr uint32_t kFrameLen = 60;

// bench/switch-vs-testpmd's write_pcap: frame i from 10.0.0.1 to 10.0.(1 + i % 16).1, UDP source
// port 10000 + i.
std::vector<std::array<uint8_t, kFrameLen>> frames() {
  std::vector<std::array<uint8_t, kFrameLen>> out(kTemplates);
  for (uint32_t i = 0; i < kTemplates; ++i) {
    uint8_t* f = out[i].data();
    std::memset(f, 0, kFrameLen);
    const uint8_t eth[14] = {6, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 1, 8, 0};
    std::memcpy(f, eth, 14);
    uint8_t* ip = f + 14;
    ip[0] = 0x45;
    ip[3] = 46;
    ip[8] = 64;
    ip[9] = 17;
    ip[12] = 10, ip[15] = 1;
    ip[16] = 10, ip[18] = static_cast<uint8_t>(1 + i % 16), ip[19] = 1;
    uint32_t s = 0;
    for (int w = 0; w < 10; ++w) s += ip[2 * w] << 8 | ip[2 * w + 1];
    s = (s & 0xffff) + (s >> 16);
    s = (s & 0xffff) + (s >> 16);
    ip[10] = static_cast<uint8_t>(~s >> 8);
    ip[11] = static_cast<uint8_t>(~s);
    const uint16_t sport = static_cast<uint16_t>(10000 + i);
    ip[20] = static_cast<uint8_t>(sport >> 8), ip[21] = static_cast<uint8_t>(sport);
    ip[22] = 0x12, ip[23] = 0xb7;  // 4791
    ip[25] = 26;
  }
  return out;
}

uint64_t thread_cpu_ns() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace

int main(int argc, char** argv) {
  uint16_t spines = 4;
  std::string algorithm = "ecmp";
  uint32_t blocks = 20;
  uint64_t block = 2'000'000;
  std::string variants = "queue,direct";
  int cpu = 1;
  CLI::App app{"The forwarding pipeline's cycles per packet, variants alternating"};
  app.add_option("--ports", spines, "egress ports (spines)");
  app.add_option("--algorithm", algorithm);
  app.add_option("--blocks", blocks, "blocks per variant");
  app.add_option("--block", block, "packets per block");
  app.add_option("--variants", variants, "comma-separated: queue, direct");
  app.add_option("--cpu", cpu, "the CPU to run on");
  CLI11_PARSE(app, argc, argv);

  std::vector<std::string> eal = {"fwd_bench",
                                  "--no-pci",
                                  "--huge-unlink",
                                  "--file-prefix",
                                  fmt::format("fwdb{}", getpid()),
                                  "--lcores",
                                  fmt::format("0@{}", cpu),
                                  "--log-level",
                                  "lib.eal:error"};
  for (uint16_t p = 0; p <= spines; ++p) {
    eal.push_back("--vdev");
    eal.push_back(fmt::format("net_null{},no-rx=1", p));
  }
  std::vector<char*> eargv;
  for (auto& a : eal) eargv.push_back(a.data());
  if (rte_eal_init(static_cast<int>(eargv.size()), eargv.data()) < 0) {
    fmt::print(stderr, "EAL init failed\n");
    return 1;
  }
  const conf::Experiment exp = conf::load_experiment_string(
      fmt::format("seed: 1\ntopology: {{generator: leaf-spine, leaves: 17, spines: {}, "
                  "hosts_per_leaf: 1}}\nlinks: {{rate: 100Gbps, delay: 500ns}}\nbuffer: {{bytes: "
                  "800KB}}\nload_balancer: {{algorithm: {}}}\n",
                  spines, algorithm),
      "fwd_bench.yaml");
  const topo::Topology t = topo::build(exp.topology, exp.links);
  const topo::Routing routing(t);
  const topo::AddressPlan plan(routing);
  rte_mempool* pool = nullptr;
  auto ports = net::start_ports(static_cast<uint16_t>(spines + 1), net::PortSetup{}, &pool);
  dataplane::RuntimeOptions ro;
  ro.shaping = false;
  ro.routing = &routing;
  auto runtime = std::make_unique<dataplane::SwitchRuntime>(
      dataplane::build_switch_tables(exp, routing, plan, "leaf0"), ro);
  dataplane::SwitchRuntime& rt = *runtime;
  const auto templates = frames();

  uint32_t next = 0;
  uint64_t received = 0;
  auto rx = [&](uint16_t, uint16_t, rte_mbuf** m, uint16_t n) -> uint16_t {
    if (rte_pktmbuf_alloc_bulk(pool, m, n) != 0) return 0;
    received += n;
    for (uint16_t i = 0; i < n; ++i) {
      std::memcpy(rte_pktmbuf_mtod(m[i], uint8_t*), templates[next].data(), kFrameLen);
      m[i]->data_len = m[i]->pkt_len = kFrameLen;
      next = (next + 1) % kTemplates;
    }
    return n;
  };
  auto tx = [](uint16_t port, rte_mbuf** m, uint16_t n) { return rte_eth_tx_burst(port, 0, m, n); };
  dataplane::WorkerPlan wp =
      dataplane::plan_workers(1, rt.ports(), std::vector<uint16_t>(rt.ports(), 1))[0];
  wp.rx = {{0, 0}};
  wp.tx_coalesce_turns = 32;  // spraylab-switch --no-shaping's default
  struct Variant {
    std::string name;
    std::unique_ptr<dataplane::Forwarder> fwd;
    dataplane::WorkerPlan plan;
    std::vector<double> cpu_cycles, tsc_cycles;
  };
  std::vector<Variant> vs;
  for (size_t at = 0; at <= variants.size();) {
    const size_t end = std::min(variants.find(',', at), variants.size());
    Variant v{
        variants.substr(at, end - at), std::make_unique<dataplane::Forwarder>(rt, 0), wp, {}, {}};
    // "direct2": direct, and two rx bursts a turn (WorkerPlan::rx_bursts); "queue2" likewise.
    if (v.name.back() >= '2' && v.name.back() <= '9') {
      v.plan.rx_bursts = static_cast<uint32_t>(v.name.back() - '0');
    }
    const std::string kind = v.plan.rx_bursts > 1 ? v.name.substr(0, v.name.size() - 1) : v.name;
    if (kind == "direct") {
      v.fwd->set_direct_tx(
          [](void* ctx, uint16_t port, rte_mbuf** m, uint16_t n) -> uint16_t {
            return (*static_cast<decltype(tx)*>(ctx))(port, m, n);
          },
          &tx, wp.tx);
    } else if (kind != "queue") {
      fmt::print(stderr, "unknown variant {}\n", v.name);
      return 1;
    }
    vs.push_back(std::move(v));
    at = end + 1;
  }
  const double tsc_per_ns = static_cast<double>(rte_get_tsc_hz()) / 1e9;
  // A flush between variants, so that none starts with another's frames queued.
  const auto settle = [&](Variant& v) {
    for (int i = 0; i < 64; ++i) {
      dataplane::worker_turn(
          rt, *v.fwd, v.plan, 0,
          [](uint16_t, uint16_t, rte_mbuf**, uint16_t) { return uint16_t{0}; }, tx);
    }
  };
  for (uint32_t b = 0; b <= blocks; ++b) {  // block 0 warms up, uncounted
    for (Variant& v : vs) {
      const uint64_t r0 = received;
      const uint64_t c0 = thread_cpu_ns(), t0 = rte_rdtsc();
      while (received - r0 < block) dataplane::worker_turn(rt, *v.fwd, v.plan, 0, rx, tx);
      const uint64_t pkts = received - r0;
      const uint64_t t1 = rte_rdtsc(), c1 = thread_cpu_ns();
      settle(v);
      if (b == 0) continue;
      v.cpu_cycles.push_back(static_cast<double>(c1 - c0) * tsc_per_ns / static_cast<double>(pkts));
      v.tsc_cycles.push_back(static_cast<double>(t1 - t0) / static_cast<double>(pkts));
    }
  }
  const auto median = [](std::vector<double> x) {
    std::sort(x.begin(), x.end());
    return x[x.size() / 2];
  };
  uint64_t drops = 0;
  for (uint16_t p = 0; p < rt.ports(); ++p) {
    for (size_t r = 0; r < dataplane::kDropReasons; ++r)
      drops += rt.sum_drops(p, static_cast<dataplane::DropReason>(r));
  }
  for (const Variant& v : vs) {
    fmt::print("{} ports={} {}: CPU cycles/packet median {:.1f} (min {:.1f}), TSC {:.1f}\n",
               algorithm, spines, v.name, median(v.cpu_cycles),
               *std::min_element(v.cpu_cycles.begin(), v.cpu_cycles.end()), median(v.tsc_cycles));
  }
  fmt::print("drops {}\n", drops);
  std::fflush(stdout);
  vs.clear();
  runtime.reset();  // frees what is still queued: before the ports and EAL go
  net::stop_ports(ports);
  // DPDK 22.11's rte_eal_cleanup leaves the runtime folder (/var/run/dpdk/fwdb<pid>): one per run
  // piled up.
  const std::string runtime_dir = rte_eal_get_runtime_dir();
  rte_eal_cleanup();
  std::error_code ec;
  std::filesystem::remove_all(runtime_dir, ec);
  return 0;
}
