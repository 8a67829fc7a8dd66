// Every metric of every spraylab process, from the collectors' declarations: what
// docs/monitoring.md lists (`spraylab-metrics` prints the table; tests/monitoring/docs_test.cpp
// keeps them equal).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "monitoring/families.h"

namespace spraylab::monitoring {

struct RoleMetric {
  std::string_view role;  // "switch", "gen"
  MetricSpec spec;
};

std::vector<RoleMetric> all_metrics();

// A Markdown table: | metric | type | labels | meaning |, one row per metric.
std::string metrics_table();

}  // namespace spraylab::monitoring
