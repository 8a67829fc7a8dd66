// A generated topology's size from its parameters alone, before anything is built.
#pragma once

#include <optional>

#include "conf/experiment.h"
#include "topo/size_limit.h"

namespace spraylab::conf {

// The ports of its largest switch and its hosts (topo/size_limit.h); nullopt for an explicit
// topology, whose size is its file's.
std::optional<topo::GeneratedSize> generated_size(const TopologySpec& topology);

}  // namespace spraylab::conf
