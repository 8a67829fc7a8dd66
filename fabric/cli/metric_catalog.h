// Every metric of every spraylab process, from the collectors' own declarations (the switch's in
// switch/switch_metrics.h, the generator's in trafficgen/gen_metrics.h): what docs/monitoring.md
// lists. Here because it is the one layer that sees both programs; monitoring/ knows neither.
#pragma once

#include <vector>

#include "monitoring/metric_list.h"

namespace spraylab::fabric {

std::vector<monitoring::RoleMetric> all_metrics();

}  // namespace spraylab::fabric
