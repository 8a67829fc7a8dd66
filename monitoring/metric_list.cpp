#include "monitoring/metric_list.h"

#include "monitoring/gen_metrics.h"
#include "monitoring/switch_metrics.h"

namespace spraylab::monitoring {

std::vector<RoleMetric> all_metrics() {
  std::vector<RoleMetric> out;
  for (const MetricSpec& s : kSwitchMetrics) out.push_back({"switch", s});
  for (const MetricSpec& s : kGenMetrics) out.push_back({"gen", s});
  for (const MetricSpec& s : kGenCounterMetrics) out.push_back({"gen", s});
  return out;
}

std::string metrics_table() {
  std::string t = "| metric | type | labels | meaning |\n| --- | --- | --- | --- |\n";
  for (const RoleMetric& m : all_metrics()) {
    std::string labels(m.spec.labels);
    for (size_t i = labels.find(','); i != std::string::npos; i = labels.find(',', i + 2)) {
      labels.replace(i, 1, ", ");
    }
    t += "| `" + std::string(m.spec.name) + "` | " + std::string(type_name(m.spec.type)) + " | " +
         labels + " | " + std::string(m.spec.help) + " |\n";
  }
  return t;
}

}  // namespace spraylab::monitoring
