// The workload keys whose bounds depend on how many ranks run (one a host): incast's fan_in, an
// all-to-all-v matrix's size, fsdp's dp_group. The loader knows the rank count from the
// topology's parameters before anything is built, so it says the key's line; the workload
// builders keep the same rules (spraylab-gen, and any caller without a file).
#pragma once

#include "conf/experiment.h"
#include "conf/yaml_value.h"

namespace spraylab::conf {

// Fails at the workload key whose value the topology's host count rules out (`workload` is the
// file's workload map; e its experiment as read so far, topology included).
void check_workload_ranks(const Map& workload, const Experiment& e);

}  // namespace spraylab::conf
