// The files of one variant's results folder (docs/runner.md): the resolved experiment, the
// summary, the per-port queue series, the generator's results and the run's wall-clock facts.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "fabric/fabric.h"

namespace spraylab::fabric {

// t_ns,switch,port,peer,packets,bytes: one line per sample, in the fabric's sample order.
std::string queues_csv(const FabricResult& result);

// t_us,utilisation: Ofan Figure 1's series, one line per sample window (utilisation_windows).
std::string utilisation_csv(const FabricResult& result);

// The JSON as files are written here: two-space indent, a final newline.
std::string json_text(const nlohmann::ordered_json& j);

// Writes `text` to `path` (creating its folder), or throws std::runtime_error naming the path
// and the reason.
void write_file(const std::string& path, const std::string& text);

}  // namespace spraylab::fabric
