// From the experiment file to a Topology, and from a Topology back to a file.
#pragma once

#include <ostream>
#include <string>

#include "conf/experiment.h"
#include "topo/generators.h"
#include "topo/topology.h"

namespace spraylab::topo {

// Runs the configured generator, or builds the explicit switches/hosts/links in file order
// (so port numbers follow the order of `links:`). Throws TopologyError.
Topology build(const conf::TopologySpec& spec, const conf::LinkSpec& links);

// Writes `t` as an experiment file with an explicit topology that build() reads back with the
// same nodes, links and port numbers. `comment` goes on the first line (e.g. how it was made).
void write_yaml(const Topology& t, std::ostream& out, const std::string& comment);

}  // namespace spraylab::topo
