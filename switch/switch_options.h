// spraylab-switch's options (docs/switch.md), declared once with their defaults and help: the
// switch parses its command line into them (add_to), and the namespaced launcher and the
// containerlab export write a switch's command line from them (to_argv), never from the names.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "monitoring/metrics_options.h"
#include "switch/dataplane/switch_tables.h"

namespace spraylab::dataplane {

struct SwitchOptions {
  std::string config;               // --config: the experiment file
  std::string switch_name;          // --switch: the switch's name in the topology
  uint32_t workers = 0;             // 0: every lcore but the main one, at least 1
  uint16_t rx_queues = 0;           // per port; 0: one per worker
  uint16_t tx_queues = 1;           // per port, taken in turn by egress bursts
  uint32_t queue_packets = 0;       // egress ring slots per port; 0: buffer / 64 B, at most 4096
  std::string trim_threshold;       // as given ("200KB"); empty: the experiment's buffer.trim
  uint32_t trim_queue_packets = 0;  // priority ring slots per trimming port; 0: 1024
  std::string shaper_slack;         // as given ("9KB"); empty: a burst of MTU frames
  bool no_shaping = false;
  uint32_t tx_coalesce = 32;  // with no_shaping: loop turns a thin egress port waits
  bool no_direct_tx = false;
  uint32_t rx_bursts = 0;  // with no_shaping; 0: one per egress port, at most 4
  double duration = 0;     // seconds; 0: until SIGINT/SIGTERM
  double stats_interval = 0;
  std::string stats_json;
  std::vector<std::string> routes;  // static routes, A.B.C.D/LEN=PORT[,PORT...]
  std::string idle_sleep;           // as given; empty: busy polling
  std::string deep_sleep;           // as given; empty: as idle_sleep
  int rt_priority = 0;              // the data path's SCHED_RR priority; 0: the fair class
  uint32_t mbufs = 0;               // 0: enough for every port's rings and a full egress queue
  bool dump_tables = false;
  monitoring::MetricsOptions metrics{monitoring::kSwitchPort};

  void add_to(CLI::App& app);
  // The options that differ from their defaults, as the command line after EAL's `--` that
  // add_to parses back into these values.
  std::vector<std::string> to_argv() const;
};

// --trim-threshold (not empty): trimming on, beyond that depth, whatever the experiment's
// buffer.trim says. Throws std::invalid_argument naming the option for a text that is no size or
// a depth above the buffer.
// `data_frame_bytes`: the workload's smallest whole data frame (the loader's bound for
// buffer.trim_threshold, conf/buffer_defaults.cpp): a threshold below it trims every data frame.
void apply_trim_threshold(const std::string& text, SwitchTables& t, uint64_t data_frame_bytes);

}  // namespace spraylab::dataplane
