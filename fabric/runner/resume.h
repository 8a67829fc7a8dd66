// Resuming a set of variants (`spraylab run --resume`, `spraylab reproduce --resume`;
// docs/runner.md, "Resuming"): a variant whose folder in the earlier results already holds a run
// of the same experiment that ended as the experiment asks is not run again. Virtual time is
// deterministic, so that run is the one this would give (docs/runner.md, determinism): hours of a
// reproduction interrupted half way are not thrown away.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "fabric/results/summary.h"
#include "fabric/run/variants.h"

namespace spraylab::fabric {

// The summary of the run in `folder` (an earlier results folder's VARIANT/) when it may stand for
// `v`: its config.yaml is v's experiment (compared as YAML, the reproduce: section aside: it
// describes the figures and checks, not the run), its run.json names this virtual-time engine
// (kVirtualTimeEngine, fabric/run/result.h), and its summary.json says the run completed, or
// stopped at the experiment's own measurement.duration. Otherwise nullopt and `*why_not` says
// why (no folder, another experiment or engine, stopped by a timeout, a file that does not parse).
// Whether a run that stopped for the reason named `stopped_by` (gen::kStopReasonNames) gave the
// experiment's own result: it completed, or stopped at its own measurement.duration. A run
// stopped by --timeout or stalled is not the experiment's number.
bool stopped_as_designed(std::string_view stopped_by, const conf::Experiment& experiment);

std::optional<VariantSummary> reusable_run(const std::string& folder, const Variant& v,
                                           std::string* why_not);

}  // namespace spraylab::fabric
