// switch_metrics_server: serves the Prometheus metrics of one switch of an experiment exactly as
// spraylab-switch does (its SwitchRuntime, SwitchCollector and Exposer, depth sampling every
// millisecond), without its DPDK ports. bench/scrape-cost times scrapes of a 64-port switch with
// it: Debian's DPDK allows 32 ethdevs per process (RTE_MAX_ETHPORTS), so spraylab-switch itself
// runs at most 32 ports here. Every counter holds a 10-12 digit value, so the exposition has the
// size of a long-running switch's.
//   switch_metrics_server [EAL args] -- --config FILE --switch NAME [--metrics-address HOST:PORT]
// Prints "metrics on URL" on stdout and serves until standard input closes.
#include <fmt/format.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_lcore.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <thread>

#include "conf/guarded_main.h"
#include "conf/loader.h"
#include "monitoring/eal_thread.h"
#include "monitoring/exposer.h"
#include "monitoring/text_format.h"
#include "net/ports.h"
#include "switch/dataplane/switch_runtime.h"
#include "switch/dataplane/switch_tables.h"
#include "switch/switch_metrics.h"
#include "topo/build.h"

namespace {

using namespace spraylab;

// Large per-port values, different per port and counter, as after hours of forwarding.
void fill_counters(dataplane::SwitchRuntime& rt) {
  for (uint32_t w = 0; w < rt.workers(); ++w) {
    dataplane::WorkerCounters& c = rt.counters(w);
    for (uint16_t p = 0; p < rt.ports(); ++p) {
      const uint64_t base = 1'000'000'000ull * (p + 1) + 7919ull * w;
      dataplane::PortCounters& pc = c.port[p];
      pc.rx_packets.add(base + 1);
      pc.rx_bytes.add(64 * base + 3);
      pc.tx_packets.add(base + 5);
      pc.tx_bytes.add(64 * base + 7);
      pc.lb_decisions.add(base / 3);
      pc.ecn_marks.add(base / 1000);
      for (size_t r = 0; r < dataplane::kDropReasons; ++r) pc.drops[r].add(base / (100 + r));
    }
    c.busy_cycles.add(987'654'321'000ull);
    c.loops.add(123'456'789'000ull);
  }
}

int run(int argc, char** argv) {
  if (!net::pci_probing_limited(argc, argv)) {
    fmt::print(stderr, "switch_metrics_server: pass --no-pci (or an -a allow-list) to EAL\n");
    return 2;
  }
  const int eal = rte_eal_init(argc, argv);
  if (eal < 0) {
    fmt::print(stderr, "switch_metrics_server: EAL initialisation failed\n");
    return 2;
  }
  argc -= eal;
  argv += eal;
  argv[0] = const_cast<char*>("switch_metrics_server");
  std::string config, name, address = "127.0.0.1:0";
  CLI::App app{"Serves one switch's metrics as spraylab-switch does, without ports"};
  app.add_option("--config", config)->required()->check(CLI::ExistingFile);
  app.add_option("--switch", name)->required();
  app.add_option("--metrics-address", address);
  uint32_t time_scrapes = 0;
  app.add_option(
      "--time-scrapes", time_scrapes,
      "Time this many in-process scrapes (collect, then serialize), print the medians in "
      "ms and exit");
  CLI11_PARSE(app, argc, argv);

  const conf::Experiment exp = conf::load_experiment_file(config);
  const topo::Topology topology = topo::build(exp.topology, exp.links);
  const topo::Routing routing(topology);
  const topo::AddressPlan plan(routing);
  dataplane::RuntimeOptions ro;
  ro.routing = &routing;
  ro.socket = static_cast<int>(rte_socket_id());
  auto rt = std::make_unique<dataplane::SwitchRuntime>(
      dataplane::build_switch_tables(exp, routing, plan, name), ro);
  fill_counters(*rt);

  auto collector = std::make_shared<dataplane::SwitchCollector>(
      dataplane::source_of(*rt, {rte_get_main_lcore()}, static_cast<double>(rte_get_tsc_hz())));
  auto registry = std::make_shared<monitoring::Registry>();
  registry->add(collector);
  if (time_scrapes > 0) {
    std::vector<double> collect_ms, serialize_ms;
    size_t bytes = 0;
    for (uint32_t i = 0; i < time_scrapes; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      const auto families = registry->Collect();
      const auto t1 = std::chrono::steady_clock::now();
      std::string text;
      monitoring::write_text(text, families);
      bytes = text.size();
      const auto t2 = std::chrono::steady_clock::now();
      collect_ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
      serialize_ms.push_back(std::chrono::duration<double, std::milli>(t2 - t1).count());
    }
    std::sort(collect_ms.begin(), collect_ms.end());
    std::sort(serialize_ms.begin(), serialize_ms.end());
    fmt::print("collect_ms {:.3f} serialize_ms {:.3f} text_bytes {}\n",
               collect_ms[collect_ms.size() / 2], serialize_ms[serialize_ms.size() / 2], bytes);
    rt.reset();
    rte_eal_cleanup();
    return 0;
  }
  auto exposer = std::make_unique<monitoring::Exposer>(
      monitoring::parse_address(address, monitoring::kSwitchPort), registry,
      monitoring::run_on_control_thread);
  fmt::print("{} ports, metrics on {}\n", rt->ports(), exposer->url());
  std::fflush(stdout);

  std::atomic<bool> released{false};
  std::thread([&released] {
    char line[64];
    while (std::fgets(line, sizeof(line), stdin) != nullptr) {
    }
    released.store(true);
  }).detach();
  // The control plane's depth sampling, as spraylab-switch runs it.
  while (!released.load()) {
    collector->sample_depths();
    std::this_thread::sleep_for(
        std::chrono::microseconds(dataplane::SwitchCollector::kSamplePeriodNs / 1000));
  }
  exposer.reset();
  rt.reset();
  rte_eal_cleanup();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return spraylab::conf::guarded_main("switch_metrics_server", [&] { return run(argc, argv); });
}
