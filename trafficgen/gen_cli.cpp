#include "trafficgen/gen_cli.h"

#include <fmt/format.h>
#include <rte_config.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <vector>

#include "conf/cli_checks.h"
#include "conf/units.h"
#include "net/realtime.h"
#include "topo/topology.h"
#include "trafficgen/entropy_mode.h"

namespace spraylab::gen {
namespace {

// What the hosts send and how they acknowledge: each option overrides the experiment's value.
void add_traffic_options(CLI::App& app, GenCli& o) {
  app.add_option("--config", o.config, "Experiment YAML file")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("--hosts", o.hosts,
                 "Hosts to emulate: h0,h1 or ranges h0-h3 (names in the topology)")
      ->required();
  app.add_option(
      "--port-map", o.port_map,
      "DPDK port of each host of --hosts, comma-separated (e.g. 0,0,1); hosts may share one");
  app.add_option("--rate", o.rate,
                 "Sending rate per host: a fraction of the link rate (0.5), a rate (10Gbps) or "
                 "'unlimited' (default: the workload's load x the link rate)");
  app.add_option("--ack-every", o.ack_every,
                 "Receivers ACK every n-th data packet (and the last, duplicates and "
                 "retransmissions at once) (default: the workload's ack_every)");
  app.add_option("--entropy", o.entropy,
                 "Path entropy, one of the choices above (default: the workload's)")
      ->check(CLI::IsMember(
          std::vector<std::string>(kEntropyModeNames.begin(), kEntropyModeNames.end())));
  app.add_option("--retransmit-timeout", o.rto,
                 "Resend unacknowledged packets after this long without progress, e.g. 1ms "
                 "(default: the workload's retransmit_timeout)");
  app.add_option("--loss", o.loss,
                 "Drop arriving packets (data and ACKs) with this probability, counted (tests)")
      ->check(CLI::Range(0.0, 0.99));
  app.add_option("--payload", o.payload,
                 "Payload bytes per data packet, 1..9000 (default: the workload's payload)")
      ->check(CLI::Range(1, 9000));
  app.add_flag("--back-to-back", o.back_to_back,
               "The ports are wired host to host, not to switches: frames go to the peer host's "
               "MAC and the bound uses one link with no propagation delay");
}

// When the run starts and stops, and what it writes.
void add_run_options(CLI::App& app, GenCli& o) {
  app.add_option("--duration", o.duration,
                 "Stop after this many seconds even if the workload is not done (exit 0)")
      ->check(conf::kPositiveNumber);
  app.add_option("--timeout", o.timeout,
                 "Give up after this many seconds if the workload is not done (exit 1)")
      ->check(conf::kPositiveNumber);
  app.add_option("--start-at", o.start_at,
                 "Start sending at this UNIX time in seconds (synchronises several processes; "
                 "default: as soon as every link is up)");
  app.add_option("--start-file", o.start_file,
                 "Wait, ports up and idle, until this file exists, then start at the UNIX time "
                 "it holds (a launcher starts many processes ahead of a run: docs/fabric.md)");
  app.add_option("--idle-sleep", o.idle_sleep,
                 "Sleep after empty polls, backing off up to this long (e.g. 2ms), never past "
                 "the next pacer slot or timer: for many processes on few cores (default: busy "
                 "polling)")
      ->check(conf::sleep_cap_check("busy polling"));
  app.add_option("--rt-priority", o.rt_priority,
                 "Run the engines' lcores in SCHED_RR at this priority (1-49; needs "
                 "--idle-sleep), so that an engine woken for a pacer slot runs before the "
                 "machine's other work (docs/fabric.md); default 0: the fair scheduler")
      ->check(CLI::Range(0, net::kMaxRtPriority));
  app.add_option("--warmup", o.warmup,
                 "Frames per port sent before the start (broadcast, UDP discard port) so that "
                 "memif's shared buffers are paged in before anything is measured (default: 2048 "
                 "on memif ports, 0 elsewhere)");
  app.add_option("--link-wait", o.link_wait,
                 "Seconds to wait for every link to come up (default 10)")
      ->check(conf::kPositiveNumber);
  app.add_option("--linger", o.linger,
                 "After finishing, keep answering (ACKing retransmissions) this many seconds "
                 "(default: 3 retransmit timeouts, at least 0.1)");
  app.add_flag("--hold", o.hold,
               "After finishing, keep the ports polled until standard input closes (for test "
               "harnesses: memif peers stop in order); with --duration, sending stops at the "
               "duration and receiving and acknowledging go on");
  app.add_option("--results", o.results,
                 "Write the results (JSON, docs/generator.md) to this file");
  app.add_flag("--progress", o.progress,
               "Live progress line: messages done/total, send rate, elapsed (one line per second "
               "when not a terminal)");
  app.add_option("--stats-json", o.stats_json,
                 "Write every engine counter as JSON to this file on exit");
}

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

std::optional<int> parse_gen_cli(int argc, char** argv, GenCli* cli) {
  CLI::App app{
      "spraylab-gen: emulated hosts of an experiment on DPDK ports, replaying its workload.\n"
      "Usage: spraylab-gen [EAL args] -- --config FILE --hosts LIST [options]\n"
      "Host i of LIST uses DPDK port i (the order of --vdev / -a) unless --port-map says\n"
      "otherwise. Always pass --no-pci or an -a allow-list to EAL. docs/generator.md has more."};
  add_traffic_options(app, *cli);
  add_run_options(app, *cli);
  cli->metrics.add_to(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  return std::nullopt;
}

std::optional<monitoring::Address> metrics_address(const GenCli& cli) {
  try {
    return cli.metrics.address();
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
}

void check_rt_priority(const GenCli& cli) {
  if (cli.rt_priority > 0 && cli.idle_sleep.empty()) {
    throw UsageError(
        "--rt-priority needs --idle-sleep: a busy-polling real-time thread would take its CPU "
        "from everything else");
  }
}

GenOptions gen_options(const GenCli& cli, const conf::Experiment& exp, const topo::Topology& t) {
  GenOptions go = options_from_experiment(exp, t);
  go.hosts = parse_host_list(cli.hosts, t);
  if (!cli.port_map.empty()) go.port_map = parse_port_map(cli.port_map);
  if (!cli.rate.empty()) {
    go.rate_bps = parse_send_rate(cli.rate, topo::slowest_host_link(t).rate_bps);
  }
  if (cli.ack_every) go.ack_every = cli.ack_every;
  if (!cli.entropy.empty()) go.entropy = *entropy_mode_from_name(cli.entropy);
  if (!cli.rto.empty())
    go.retransmit_timeout_ns = parse_time_option("--retransmit-timeout", cli.rto);
  go.loss = cli.loss;
  go.payload_bytes = cli.payload;
  go.back_to_back = cli.back_to_back;
  return go;
}

}  // namespace spraylab::gen
