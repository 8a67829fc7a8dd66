#include "fabric/cli/inprocess_metrics.h"

#include <fmt/format.h>
#include <rte_cycles.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "monitoring/merged_families.h"
#include "monitoring/registry.h"
#include "switch/switch_metrics.h"

namespace spraylab::fabric {

SwitchMetricsHook serve_switch_metrics(const monitoring::Address& at) {
  return [at](const std::vector<dataplane::SwitchRuntime*>& switches) -> std::shared_ptr<void> {
    std::vector<std::shared_ptr<prometheus::Collectable>> parts;
    for (dataplane::SwitchRuntime* rt : switches) {
      // One worker a switch node (its lcore is the fabric's: 0 here).
      dataplane::SwitchSource s = dataplane::source_of(*rt, std::vector<unsigned>(rt->workers(), 0),
                                                       static_cast<double>(rte_get_tsc_hz()));
      // The scrape takes the maxima since its own last scrape; the run's results take theirs at
      // the end (port_stats.cpp), whatever was scraped (EgressQueues::MaxReader).
      parts.push_back(std::make_shared<dataplane::SwitchCollector>(std::move(s)));
    }
    auto registry = std::make_shared<monitoring::Registry>();
    registry->add(std::make_shared<monitoring::MergedFamilies>(std::move(parts)));
    std::string note;
    // Threads as the caller's: spraylab run's main thread is no data-path lcore.
    std::shared_ptr<monitoring::Exposer> exposer = monitoring::start_exposer(
        at, false, registry, [](const std::function<void()>& fn) { fn(); }, &note);
    if (!note.empty()) fmt::print(stderr, "spraylab run: warning: {}\n", note);
    fmt::print(stderr, "spraylab run: switch metrics on {}\n", exposer->url());
    return exposer;
  };
}

}  // namespace spraylab::fabric
