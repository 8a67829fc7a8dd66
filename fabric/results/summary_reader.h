// A variant's summary.json read back into the VariantSummary it was written from, so that a
// reproduction resumed after an interruption (`spraylab reproduce --resume`, docs/reproduce.md)
// puts a variant it does not run again into the tables as if it had just run. The inverse of
// to_json (fabric/results/summary.h): to_json(summary_from_json(to_json(s))) == to_json(s).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "fabric/results/summary.h"

namespace spraylab::fabric {

// Throws std::invalid_argument naming `path` when `j` is not a summary.json (a key missing or of
// the wrong type, an unknown stop reason).
VariantSummary summary_from_json(const nlohmann::ordered_json& j, const std::string& path);

}  // namespace spraylab::fabric
