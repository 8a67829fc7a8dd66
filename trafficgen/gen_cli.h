// spraylab-gen's command line (docs/generator.md): parsed into GenOptions (gen_options.h), checked,
// and the host plan's options it gives with an experiment.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include "conf/experiment.h"
#include "topo/topology.h"
#include "trafficgen/gen_options.h"
#include "trafficgen/host_plan.h"

namespace spraylab::gen {

// A command-line value that cannot be run; the message says which option and why.
class UsageError : public std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// Parses spraylab-gen's arguments (those after EAL's; argv[0] is the program). Returns the exit
// status when the program ends here (--help: 0; a bad option: 2, CLI11 has said why), else
// nothing.
std::optional<int> parse_gen_cli(int argc, char** argv, GenOptions* cli);

// Where to serve metrics, or nothing with --no-metrics. Throws UsageError.
std::optional<monitoring::Address> metrics_address(const GenOptions& cli);

// --rt-priority without --idle-sleep: throws UsageError.
void check_rt_priority(const GenOptions& cli);

// The experiment's generator options (options_from_experiment) with what the command line sets
// instead: --hosts, --port-map, --rate, --ack-every, --entropy, --retransmit-timeout, --loss,
// --payload, --back-to-back. Throws UsageError or PlanError.
HostPlanOptions host_plan_options(const GenOptions& cli, const conf::Experiment& exp,
                                  const topo::Topology& t);

}  // namespace spraylab::gen
