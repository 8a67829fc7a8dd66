#include "fabric/cli/metric_catalog.h"

#include "switch/switch_metrics.h"
#include "trafficgen/gen_metrics.h"

namespace spraylab::fabric {

std::vector<monitoring::RoleMetric> all_metrics() {
  std::vector<monitoring::RoleMetric> out;
  for (const monitoring::MetricSpec& s : dataplane::kSwitchMetrics) out.push_back({"switch", s});
  for (const monitoring::MetricSpec& s : gen::kGenMetrics) out.push_back({"gen", s});
  for (const monitoring::MetricSpec& s : gen::kGenCounterMetrics) out.push_back({"gen", s});
  return out;
}

}  // namespace spraylab::fabric
