// The emulated fabric's entry point: one experiment in one process, in virtual time or on the TSC
// (docs/architecture.md, "Three modes").
#pragma once

#include "conf/experiment.h"
#include "fabric/run/result.h"

namespace spraylab::fabric {

// Builds the fabric of `exp`, runs its workload to completion (or a limit) and tears it down.
// EAL must be initialised (fabric/emu/eal.h). Throws std::runtime_error for what cannot be built
// (e.g. too few mbufs), with the reason.
FabricResult run_fabric(const conf::Experiment& exp, const FabricOptions& opts);

}  // namespace spraylab::fabric
