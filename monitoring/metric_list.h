// Metrics as docs/monitoring.md lists them: a Markdown table of metric declarations. The lists are
// the collectors' own (switch/switch_metrics.h, trafficgen/gen_metrics.h);
// fabric/cli/metric_catalog.h gathers every process's (`spraylab-metrics` prints the table;
// tests/monitoring/docs_test.cpp keeps the docs equal to it).
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

// A Markdown table: | metric | type | labels | meaning |, one row per metric.
std::string metrics_table(const std::vector<RoleMetric>& metrics);

}  // namespace spraylab::monitoring
