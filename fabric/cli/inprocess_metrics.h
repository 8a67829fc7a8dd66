// `spraylab run --mode inprocess --metrics-address HOST:PORT`: the fabric's switches on one
// Prometheus endpoint while each variant runs, the same spraylab_switch_* families as
// spraylab-switch serves (docs/monitoring.md, "The in-process fabric").
#pragma once

#include "fabric/run/result.h"
#include "monitoring/exposer.h"

namespace spraylab::fabric {

// A hook for FabricOptions::switch_metrics: every switch a SwitchCollector (its `switch` label
// tells them apart), merged into one set of families, served at `at` until the run ends.
SwitchMetricsHook serve_switch_metrics(const monitoring::Address& at);

}  // namespace spraylab::fabric
