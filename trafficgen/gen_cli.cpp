#include "trafficgen/gen_cli.h"

#include <fmt/format.h>
#include <rte_config.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <vector>

#include "conf/units.h"
#include "topo/topology.h"
#include "trafficgen/entropy_mode.h"

namespace spraylab::gen {
namespace {

std::vector<uint16_t> parse_port_map(const std::string& text) {
  std::vector<uint16_t> out;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    start = comma + 1;
    try {
      size_t used = 0;
      const unsigned long v = std::stoul(item, &used);
      if (used != item.size() || v >= RTE_MAX_ETHPORTS) throw std::out_of_range(item);
      out.push_back(static_cast<uint16_t>(v));
    } catch (const std::logic_error&) {
      throw UsageError(fmt::format("--port-map '{}': '{}' is not a DPDK port number", text, item));
    }
  }
  return out;
}

uint64_t parse_time_option(const std::string& name, const std::string& text) {
  const auto ns = conf::parse_time_ns(text);
  if (!ns || !(*ns > 0)) {
    throw UsageError(
        fmt::format("{} '{}': expected a positive time such as 500us or 2ms", name, text));
  }
  return static_cast<uint64_t>(*ns);
}

}  // namespace

std::optional<int> parse_gen_cli(int argc, char** argv, GenOptions* cli) {
  CLI::App app{
      "spraylab-gen: emulated hosts of an experiment on DPDK ports, replaying its workload.\n"
      "Usage: spraylab-gen [EAL args] -- --config FILE --hosts LIST [options]\n"
      "Host i of LIST uses DPDK port i (the order of --vdev / -a) unless --port-map says\n"
      "otherwise. Always pass --no-pci or an -a allow-list to EAL. docs/generator.md has more."};
  cli->add_to(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  return std::nullopt;
}

std::optional<monitoring::Address> metrics_address(const GenOptions& cli) {
  try {
    return cli.metrics.address();
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
}

void check_rt_priority(const GenOptions& cli) {
  if (cli.rt_priority > 0 && cli.idle_sleep.empty()) {
    throw UsageError(
        "--rt-priority needs --idle-sleep: a busy-polling real-time thread would take its CPU "
        "from everything else");
  }
}

HostPlanOptions host_plan_options(const GenOptions& cli, const conf::Experiment& exp,
                                  const topo::Topology& t) {
  HostPlanOptions go = options_from_experiment(exp, t);
  go.hosts = parse_host_list(cli.hosts, t);
  if (!cli.port_map.empty()) go.port_map = parse_port_map(cli.port_map);
  if (!cli.rate.empty()) {
    go.rate_bps = parse_send_rate(cli.rate, topo::slowest_host_link(t).rate_bps);
  }
  if (cli.ack_every) go.ack_every = cli.ack_every;
  if (!cli.entropy.empty()) {
    go.entropy = *entropy_mode_from_name(cli.entropy);
    // The file's range was checked against the file's mode only.
    if (needs_power_of_two_range(go.entropy) && !is_power_of_two(go.entropy_params.range)) {
      throw UsageError(fmt::format(
          "--entropy {} needs workload.entropy_range to be a power of two; the config has {}",
          cli.entropy, go.entropy_params.range));
    }
  }
  if (!cli.rto.empty())
    go.retransmit_timeout_ns = parse_time_option("--retransmit-timeout", cli.rto);
  go.loss = cli.loss;
  // The switches size their frames by the file's payload (spraylab-switch reads the same
  // file): a larger one here is dropped at every switch as `truncated`, and the run never ends.
  if (cli.payload > exp.workload.payload_bytes) {
    fmt::print(stderr,
               "spraylab-gen: warning: --payload {} is above the experiment's workload.payload "
               "{}, which spraylab-switch sizes its frames by: its switches drop these frames as "
               "`truncated` unless their file says {} too\n",
               cli.payload, exp.workload.payload_bytes, cli.payload);
  }
  go.payload_bytes = cli.payload;
  go.back_to_back = cli.back_to_back;
  return go;
}

}  // namespace spraylab::gen
