// spraylab-gen's command line (docs/generator.md): every option declared once with its help,
// parsed into GenCli, and the generator options it gives with an experiment.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include "conf/experiment.h"
#include "monitoring/metrics_options.h"
#include "topo/topology.h"
#include "trafficgen/host_plan.h"

namespace spraylab::gen {

struct GenCli {
  std::string config, hosts, port_map, rate, entropy, rto, results, stats_json;
  // --idle-sleep as given (empty: busy polling); --start-file: wait for it, then start at the
  // UNIX time it holds.
  std::string idle_sleep, start_file;
  uint32_t ack_every = 0;
  uint32_t payload = 0;
  double loss = 0, duration = 0, timeout = 0, start_at = 0, linger = -1, link_wait = 10;
  int64_t warmup = -1;  // frames per port; -1: 2048 on memif ports, none elsewhere
  int rt_priority = 0;  // --rt-priority: the engines' SCHED_RR priority (0: the fair class)
  bool back_to_back = false, progress = false, hold = false;
  monitoring::MetricsOptions metrics{monitoring::kGenPort};
};

// A command-line value that cannot be run; the message says which option and why.
class UsageError : public std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// Parses spraylab-gen's arguments (those after EAL's; argv[0] is the program). Returns the exit
// status when the program ends here (--help: 0; a bad option: 2, CLI11 has said why), else
// nothing.
std::optional<int> parse_gen_cli(int argc, char** argv, GenCli* cli);

// Where to serve metrics, or nothing with --no-metrics. Throws UsageError.
std::optional<monitoring::Address> metrics_address(const GenCli& cli);

// --rt-priority without --idle-sleep: throws UsageError.
void check_rt_priority(const GenCli& cli);

// The experiment's generator options (options_from_experiment) with what the command line sets
// instead: --hosts, --port-map, --rate, --ack-every, --entropy, --retransmit-timeout, --loss,
// --payload, --back-to-back. Throws UsageError or PlanError.
GenOptions gen_options(const GenCli& cli, const conf::Experiment& exp, const topo::Topology& t);

}  // namespace spraylab::gen
