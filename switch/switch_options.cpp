#include "switch/switch_options.h"

#include <fmt/format.h>

#include <algorithm>

#include "conf/cli_checks.h"
#include "conf/units.h"
#include "net/realtime.h"

namespace spraylab::dataplane {
namespace {

// `name value` when the value differs from the default.
template <class T>
void add_if_set(std::vector<std::string>& argv, const char* name, const T& value, const T& dflt) {
  if (value != dflt) argv.insert(argv.end(), {name, fmt::to_string(value)});
}

void add_flag_if_set(std::vector<std::string>& argv, const char* name, bool value) {
  if (value) argv.emplace_back(name);
}

}  // namespace

void SwitchOptions::add_to(CLI::App& app) {
  app.add_option("--config", config, "Experiment YAML file")->required()->check(CLI::ExistingFile);
  app.add_option("--switch", switch_name, "Switch name in the topology (e.g. leaf0)")->required();
  app.add_option("--workers", workers,
                 "Worker lcores (default: every lcore but the main one, at least 1; as many as "
                 "EAL's lcores: the main lcore forwards too)");
  app.add_option("--rx-queues", rx_queues,
                 "Rx queues per port (default: one per worker where the device has them)");
  app.add_option("--tx-queues", tx_queues,
                 "Tx queues per port that egress bursts take in turn (default 1: every link "
                 "stays FIFO; more raise memif throughput but may reorder between bursts)")
      ->check(CLI::Range(1, 64));
  app.add_option("--queue-packets", queue_packets,
                 "Egress ring slots per port, rounded up to a power of two of at least 64 "
                 "(default: buffer / 64 B, at most 4096)")
      ->check(CLI::Range(1u, 1u << 20));  // the rounding looped forever above 2^31
  app.add_option("--trim-threshold", trim_threshold,
                 "Trim data packets that would queue beyond this depth (e.g. 200KB, at most the "
                 "buffer) to their headers, sent in a priority class (default: the experiment's "
                 "buffer.trim and buffer.trim_threshold)");
  app.add_option("--trim-queue-packets", trim_queue_packets,
                 "Slots of each trimming port's priority queue of trimmed headers (default 1024; "
                 "a header that finds it full is dropped and counted as trim_queue_full)")
      ->check(CLI::Range(2u, 1u << 20));
  CLI::Option* unshaped = app.add_flag("--no-shaping", no_shaping,
                                       "Send at the device's rate instead of the configured link "
                                       "rate");
  // The next three act only on unshaped ports: refused without --no-shaping, as --deep-sleep
  // without --idle-sleep is, rather than silently ignored.
  app.add_option("--tx-coalesce", tx_coalesce,
                 "With --no-shaping: while some rx burst comes back full, an egress port holding "
                 "fewer than 16 frames waits up to this many loop turns for more before it is "
                 "sent (default 32; 0: send every turn). Shaped ports send every turn")
      ->needs(unshaped);
  app.add_flag("--no-direct-tx", no_direct_tx,
               "With --no-shaping: queue every frame in its egress queue, instead of sending a "
               "burst's frames for a port whose queue is empty straight to the device (for "
               "comparisons)")
      ->needs(unshaped);
  app.add_option("--rx-bursts", rx_bursts,
                 "With --no-shaping: bursts a worker reads from an rx queue per turn while they "
                 "come back full, before its frames go out (default: one per egress port, at most "
                 "4, so that each port's share of a turn is about a full burst and its device call "
                 "is paid once for them all; 1: a burst at a time)")
      ->check(CLI::Range(1, 16))
      ->needs(unshaped);
  app.add_option("--shaper-slack", shaper_slack,
                 "How far a port may send ahead of its link rate, in wire bytes (e.g. 9KB; "
                 "default: a burst of 32 MTU frames). A switch that sleeps between polls sends "
                 "that much at once on waking");
  app.add_option("--duration", duration,
                 "Stop after this many seconds (default 0: until SIGINT/SIGTERM)")
      ->check(conf::kNonNegativeNumber);
  app.add_option("--stats-interval", stats_interval,
                 "Print totals every this many seconds (default 0: never; the totals at exit "
                 "are printed either way)")
      ->check(conf::kNonNegativeNumber);
  app.add_option("--stats-json", stats_json, "Write every counter as JSON to this file on exit")
      ->check(conf::kWritableFile);
  app.add_option("--route", routes,
                 "Static route to addresses outside the topology, balanced over ports: "
                 "A.B.C.D/LEN=PORT[,PORT...] (repeatable)");
  app.add_option("--idle-sleep", idle_sleep,
                 "Sleep after empty polls, backing off up to this long (e.g. 2ms): for many "
                 "switch processes on few cores (docs/fabric.md, the namespaced fabric); "
                 "default: busy polling")
      ->check(conf::sleep_cap_check("busy polling"));
  app.add_option("--deep-sleep", deep_sleep,
                 "After 2 s without a frame, sleep up to this long instead (e.g. 100ms): fewer "
                 "wake-ups of an idle switch; the first frame after such a spell waits up to "
                 "that long unless SIGUSR1 wakes the switch first (docs/fabric.md); default: as "
                 "--idle-sleep")
      ->check(conf::sleep_cap_check("as --idle-sleep"));
  app.add_option("--rt-priority", rt_priority,
                 "Run the forwarding lcores in SCHED_RR at this priority (1-49; needs "
                 "--idle-sleep), so that a switch woken for a shaper slot runs before the "
                 "machine's other work (docs/fabric.md); default 0: the fair scheduler")
      ->check(CLI::Range(0, net::kMaxRtPriority));
  app.add_option("--mbufs", mbufs,
                 "Frames in the switch's mbuf pool (default: enough for every port's rings and "
                 "a full egress queue each)")
      ->check(CLI::Range(1024u, 16u << 20));
  app.add_flag("--dump-tables", dump_tables,
               "Print the switch's ports, routes and balancer as JSON and exit");
  metrics.add_to(app);
}

std::vector<std::string> SwitchOptions::to_argv() const {
  const SwitchOptions d;
  std::vector<std::string> argv;
  add_if_set(argv, "--config", config, d.config);
  add_if_set(argv, "--switch", switch_name, d.switch_name);
  add_if_set(argv, "--workers", workers, d.workers);
  add_if_set(argv, "--rx-queues", rx_queues, d.rx_queues);
  add_if_set(argv, "--tx-queues", tx_queues, d.tx_queues);
  add_if_set(argv, "--queue-packets", queue_packets, d.queue_packets);
  add_if_set(argv, "--trim-threshold", trim_threshold, d.trim_threshold);
  add_if_set(argv, "--trim-queue-packets", trim_queue_packets, d.trim_queue_packets);
  add_flag_if_set(argv, "--no-shaping", no_shaping);
  add_if_set(argv, "--tx-coalesce", tx_coalesce, d.tx_coalesce);
  add_flag_if_set(argv, "--no-direct-tx", no_direct_tx);
  add_if_set(argv, "--rx-bursts", rx_bursts, d.rx_bursts);
  add_if_set(argv, "--shaper-slack", shaper_slack, d.shaper_slack);
  add_if_set(argv, "--duration", duration, d.duration);
  add_if_set(argv, "--stats-interval", stats_interval, d.stats_interval);
  add_if_set(argv, "--stats-json", stats_json, d.stats_json);
  for (const std::string& r : routes) argv.insert(argv.end(), {"--route", r});
  add_if_set(argv, "--idle-sleep", idle_sleep, d.idle_sleep);
  add_if_set(argv, "--deep-sleep", deep_sleep, d.deep_sleep);
  add_if_set(argv, "--rt-priority", rt_priority, d.rt_priority);
  add_if_set(argv, "--mbufs", mbufs, d.mbufs);
  add_flag_if_set(argv, "--dump-tables", dump_tables);
  for (std::string& a : metrics.to_argv()) argv.push_back(std::move(a));
  return argv;
}

void apply_trim_threshold(const std::string& text, SwitchTables& t, uint64_t data_frame_bytes) {
  if (text.empty()) return;
  const std::optional<uint64_t> bytes = conf::parse_size_bytes(text);
  if (!bytes) {
    throw std::invalid_argument(
        fmt::format("--trim-threshold {}: expected a size such as 200KB", text));
  }
  if (*bytes > t.buffer_bytes) {
    throw std::invalid_argument(
        fmt::format("--trim-threshold {}: above the buffer ({}, buffer.bytes)", text,
                    conf::format_size(t.buffer_bytes)));
  }
  // What the loader refuses for buffer.trim (conf/buffer_defaults.cpp), refused here too.
  if (t.pfc || t.credit) {
    throw std::invalid_argument(fmt::format(
        "--trim-threshold {}: the experiment's buffer.flow_control ({}) and trimming do not "
        "combine: a lossless buffer never reaches the threshold",
        text, t.pfc ? "pfc" : "credit"));
  }
  if (*bytes < data_frame_bytes || *bytes == 0) {
    throw std::invalid_argument(fmt::format(
        "--trim-threshold {}: less than one data frame ({} B): every data frame would be "
        "trimmed; at least {} B",
        text, data_frame_bytes, std::max<uint64_t>(data_frame_bytes, 1)));
  }
  t.trim = true;
  t.trim_threshold_bytes = *bytes;
}

}  // namespace spraylab::dataplane
