// Wall-clock time: the fabric's nodes spread over the EAL worker lcores, each lcore polling its
// nodes in turn with the TSC (in ns) for a clock; links carry frames between lcores as they would
// between processes (single-producer, single-consumer rings). A leaf switch and the hosts under it
// share an lcore, so most hops stay in one core's cache. The main lcore sleeps between looks at
// the engines (done?), the limits, the queue samples and the progress callback.
#pragma once

#include "fabric/emu/virtual_run.h"

namespace spraylab::fabric {

// Runs `f` (built for Mode::kInProcess). `limit_ns`: how long after the workload's start it may
// run on the fabric clock (UINT64_MAX: no limit but opts.max_wall_seconds).
RunOutcome run_inprocess(Fabric& f, const FabricOptions& opts, uint64_t limit_ns);

}  // namespace spraylab::fabric
