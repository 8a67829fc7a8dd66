// The files of one variant's results folder (docs/runner.md): the resolved experiment, the
// summary, the per-port queue series, the generator's results and the run's wall-clock facts.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "fabric/run/result.h"
#include "fabric/run/text_file.h"

namespace spraylab::fabric {

// t_ns,switch,port,peer,packets,bytes: one line per sample, in the fabric's sample order.
std::string queues_csv(const FabricResult& result);

// t_us,utilisation: Ofan Figure 1's series, one line per sample window (utilisation_windows).
std::string utilisation_csv(const FabricResult& result);

}  // namespace spraylab::fabric
