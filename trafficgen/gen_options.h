// spraylab-gen's options (docs/generator.md), declared once with their defaults and help: the
// generator parses its command line into them (add_to), and the namespaced launcher and the
// containerlab export write a generator's command line from them (to_argv), never from the names.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "monitoring/metrics_options.h"

namespace spraylab::gen {

struct GenOptions {
  // What the hosts send and how they acknowledge; "" or 0: the experiment's value.
  std::string config;      // --config: the experiment file
  std::string hosts;       // --hosts: h0,h1 or ranges h0-h3
  std::string port_map;    // DPDK port of each host, comma-separated; "": host i on port i
  std::string rate;        // per host: a fraction of the link rate, a rate or 'unlimited'
  uint32_t ack_every = 0;  // ACK every n-th data packet
  std::string entropy;     // a name of kEntropyModeNames
  std::string rto;         // --retransmit-timeout, a time
  double loss = 0;         // drop probability for arriving packets (tests)
  uint32_t payload = 0;    // payload bytes per data packet
  bool back_to_back = false;
  // When the run starts and stops, and what it writes.
  double duration = 0;     // seconds; stop even if not done (exit 0); 0: none
  double timeout = 0;      // seconds; give up if not done (exit 1); 0: none
  double start_at = 0;     // UNIX time; 0: as soon as every link is up
  std::string start_file;  // wait for it, then start at the UNIX time it holds
  std::string idle_sleep;  // as given; empty: busy polling
  int rt_priority = 0;     // the engines' SCHED_RR priority; 0: the fair class
  int64_t warmup = -1;     // frames per port; -1: 2048 on memif ports, none elsewhere
  double link_wait = 10;   // seconds for every link to come up
  double linger = -1;      // seconds; -1: 3 retransmit timeouts, at least 0.1
  bool hold = false;
  std::string results;  // the results JSON
  bool progress = false;
  std::string stats_json;
  monitoring::MetricsOptions metrics{monitoring::kGenPort};

  void add_to(CLI::App& app);
  // The options that differ from their defaults, as the command line after EAL's `--` that
  // add_to parses back into these values.
  std::vector<std::string> to_argv() const;
};

}  // namespace spraylab::gen
