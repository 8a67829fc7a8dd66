#include "trafficgen/gen_options.h"

#include <fmt/format.h>

#include "conf/cli_checks.h"
#include "net/realtime.h"
#include "trafficgen/entropy_mode.h"

namespace spraylab::gen {
namespace {

// What the hosts send and how they acknowledge: each option overrides the experiment's value.
void add_traffic_options(CLI::App& app, GenOptions& o) {
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
                 "retransmissions at once), 1..65535 (default: the workload's ack_every)")
      ->check(CLI::Range(1, 65535));  // 0 was taken for "not given"
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
void add_run_options(CLI::App& app, GenOptions& o) {
  app.add_option("--duration", o.duration,
                 "Stop after this many seconds even if the workload is not done (exit 0)")
      ->check(conf::kPositiveNumber);
  app.add_option("--timeout", o.timeout,
                 "Give up after this many seconds if the workload is not done (exit 1)")
      ->check(conf::kPositiveNumber);
  app.add_option("--start-at", o.start_at,
                 "Start sending at this UNIX time in seconds, at most 60 s away (synchronises "
                 "several processes; default: as soon as every link is up)");
  app.add_option("--start-file", o.start_file,
                 "Wait, ports up and idle, until this file exists, then start at the UNIX time "
                 "it holds, at most 60 s later (a launcher starts many processes ahead of a run: "
                 "docs/fabric.md)");
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
                 "on memif ports, 0 elsewhere)")
      ->check(conf::kNonNegativeNumber);  // a negative count was taken for "not given"
  app.add_option("--link-wait", o.link_wait,
                 "Seconds to wait for every link to come up (default 10)")
      ->check(conf::kPositiveNumber);
  app.add_option("--linger", o.linger,
                 "After finishing, keep answering (ACKing retransmissions) this many seconds "
                 "(default: 3 retransmit timeouts, at least 0.1)")
      ->check(conf::kNonNegativeNumber);
  app.add_flag("--hold", o.hold,
               "After finishing, keep the ports polled until standard input closes (for test "
               "harnesses: memif peers stop in order); with --duration, sending stops at the "
               "duration and receiving and acknowledging go on");
  app.add_option("--results", o.results,
                 "Write the results (JSON, docs/generator.md) to this file")
      ->check(conf::kWritableFile);
  app.add_flag("--progress", o.progress,
               "Live progress line: messages done/total, send rate, elapsed (one line per second "
               "when not a terminal)");
  app.add_option("--stats-json", o.stats_json,
                 "Write every engine counter as JSON to this file on exit")
      ->check(conf::kWritableFile);
}

// `name value` when the value differs from the default.
template <class T>
void add_if_set(std::vector<std::string>& argv, const char* name, const T& value, const T& dflt) {
  if (value != dflt) argv.insert(argv.end(), {name, fmt::to_string(value)});
}

void add_flag_if_set(std::vector<std::string>& argv, const char* name, bool value) {
  if (value) argv.emplace_back(name);
}

}  // namespace

void GenOptions::add_to(CLI::App& app) {
  add_traffic_options(app, *this);
  add_run_options(app, *this);
  metrics.add_to(app);
}

std::vector<std::string> GenOptions::to_argv() const {
  const GenOptions d;
  std::vector<std::string> argv;
  add_if_set(argv, "--config", config, d.config);
  add_if_set(argv, "--hosts", hosts, d.hosts);
  add_if_set(argv, "--port-map", port_map, d.port_map);
  add_if_set(argv, "--rate", rate, d.rate);
  add_if_set(argv, "--ack-every", ack_every, d.ack_every);
  add_if_set(argv, "--entropy", entropy, d.entropy);
  add_if_set(argv, "--retransmit-timeout", rto, d.rto);
  add_if_set(argv, "--loss", loss, d.loss);
  add_if_set(argv, "--payload", payload, d.payload);
  add_flag_if_set(argv, "--back-to-back", back_to_back);
  add_if_set(argv, "--duration", duration, d.duration);
  add_if_set(argv, "--timeout", timeout, d.timeout);
  add_if_set(argv, "--start-at", start_at, d.start_at);
  add_if_set(argv, "--start-file", start_file, d.start_file);
  add_if_set(argv, "--idle-sleep", idle_sleep, d.idle_sleep);
  add_if_set(argv, "--rt-priority", rt_priority, d.rt_priority);
  add_if_set(argv, "--warmup", warmup, d.warmup);
  add_if_set(argv, "--link-wait", link_wait, d.link_wait);
  add_if_set(argv, "--linger", linger, d.linger);
  add_flag_if_set(argv, "--hold", hold);
  add_if_set(argv, "--results", results, d.results);
  add_flag_if_set(argv, "--progress", progress);
  add_if_set(argv, "--stats-json", stats_json, d.stats_json);
  for (std::string& a : metrics.to_argv()) argv.push_back(std::move(a));
  return argv;
}

}  // namespace spraylab::gen
