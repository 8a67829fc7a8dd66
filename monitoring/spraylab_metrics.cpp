// spraylab-metrics: prints every metric of spraylab-switch and spraylab-gen as a Markdown table
// (the list in docs/monitoring.md), from the collectors' declarations.
#include <cstdio>

#include "monitoring/metric_list.h"

int main() {
  std::fputs(spraylab::monitoring::metrics_table().c_str(), stdout);
  return 0;
}
