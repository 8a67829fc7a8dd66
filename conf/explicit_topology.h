// A topology written out in the experiment file: switches, hosts and the links between them.
// Reading checks the shape of each entry; check_explicit_topology checks the whole: names are
// unique, every link end exists, no link joins a node to itself, every host has exactly one link.
#pragma once

#include <string>
#include <vector>

#include "conf/experiment.h"
#include "conf/yaml_value.h"

namespace spraylab::conf {

std::vector<ExplicitSwitch> read_explicit_switches(const Value& list);  // [{name, level}, ...]
std::vector<std::string> read_explicit_hosts(const Value& list);        // [h0, h1, ...]
// [[a, b], {a: .., b: .., rate: .., delay: ..}, ...]
std::vector<ExplicitLink> read_explicit_links(const Value& list);

// `topology` holds switches, hosts and links already read by the functions above.
void check_explicit_topology(const Map& topology);

}  // namespace spraylab::conf
