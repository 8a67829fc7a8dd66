#include "monitoring/metric_list.h"

namespace spraylab::monitoring {

std::string metrics_table(const std::vector<RoleMetric>& metrics) {
  std::string t = "| metric | type | labels | meaning |\n| --- | --- | --- | --- |\n";
  for (const RoleMetric& m : metrics) {
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
