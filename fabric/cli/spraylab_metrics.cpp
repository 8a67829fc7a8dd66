// spraylab-metrics: prints every metric of spraylab-switch and spraylab-gen as a Markdown table
// (the list in docs/monitoring.md), from the collectors' declarations.
#include <cstdio>

#include "fabric/cli/metric_catalog.h"
#include "monitoring/metric_list.h"

int main() {
  std::fputs(spraylab::monitoring::metrics_table(spraylab::fabric::all_metrics()).c_str(), stdout);
  return 0;
}
