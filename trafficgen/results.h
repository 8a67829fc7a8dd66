// The generator's results as JSON (keys documented in docs/generator.md): per message and per
// collective completion time against the CCT lower bound, latency percentiles, goodput, loss and
// reordering, and every engine counter.
#pragma once

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "trafficgen/bounds/collective_bound.h"
#include "trafficgen/host_engine.h"
#include "trafficgen/host_plan.h"
#include "trafficgen/stop_reason.h"

namespace spraylab::gen {

struct RunInfo {
  std::string config;
  uint64_t start_ns = 0;  // the engines' start (TSC ns)
  uint64_t end_ns = 0;    // when the loop stopped
  bool completed = false;
  StopReason stopped_by = StopReason::kCompleted;  // set when the loop stops
  // "messages" lists every message's whole record; false: only what a run's summary reads of each
  // (completion_ns and inflation, when it completed), for a run whose outputs leave the list out
  // (measurement.outputs): at 1296 hosts the records were a tenth of a variant's time.
  bool message_records = true;
};

// The figures of a run, computed from the engines once they stopped, before any of them is
// written out: per message, per collective, latency, goodput, loss and reordering.
struct MessageFigures {
  MessageId id = 0;
  uint32_t src = 0, dst = 0;  // ranks
  uint64_t bytes = 0;
  uint32_t collective = 0;
  uint32_t packets = 0;
  uint32_t hops = 0;
  bool completed = false;
  uint64_t tx_packets = 0, retransmits = 0, ecn_echoes = 0;
  bool sent = false;           // first_tx_ns is set
  uint64_t first_tx_ns = 0;    // the first packet's transmission
  uint64_t last_ack_ns = 0;    // completed: the last ACK
  uint64_t completion_ns = 0;  // completed: last ACK - first transmission
  double inflation = 0;        // completed: completion over the bound, - 1
  double bound_ns = 0;         // the message's CCT lower bound
};

struct CollectiveFigures {
  uint32_t id = 0;
  std::string name;
  uint32_t iteration = 0;
  uint64_t messages = 0, completed_messages = 0, bytes = 0;  // of those sent from here
  uint32_t hops = 1;                                         // the longest path
  CollectiveBound bound;
  // Every message completed (cct_ns and inflation are set):
  bool completed = false;
  uint64_t first_tx_ns = UINT64_MAX, last_ack_ns = 0, cct_ns = 0;
  double inflation = 0;
};

struct GoodputFigures {
  uint64_t acked_bytes = 0;  // of completed messages
  uint64_t first_tx_ns = 0, last_ack_ns = 0;
  double bps = 0;  // acked bytes over first transmission .. last ACK
  // Payload bytes that reached their receivers, each packet once (duplicates not counted),
  // complete messages or not: what a run stopped by its duration delivered in its window.
  uint64_t delivered_bytes = 0;
};

struct LossFigures {
  uint64_t injected_data_drops = 0, injected_ack_drops = 0, retransmits = 0, timeouts = 0;
  double retransmit_fraction = 0;  // of data packets sent
  uint64_t missing_at_end = 0;     // packets of received messages that never arrived
};

struct ReorderFigures {
  uint64_t messages_received = 0, messages_complete = 0;
  uint64_t received = 0, unique = 0, out_of_order = 0, duplicates = 0, max_distance = 0;
  std::array<uint64_t, ReorderTracker::kBuckets> distance_histogram_log2{};
};

// A cc with a window: the flows' windows at the end of the run and over it (docs/generator.md).
struct CongestionFigures {
  bool enabled = false;  // cc dctcp, nscc, mswift: the results have a congestion_control section
  std::string_view algorithm = "dctcp";  // its name (cc_mode.h)
  uint64_t flows = 0;
  uint64_t initial_window_min = 0, initial_window_max = 0;  // bytes
  double final_cwnd_min = 0, final_cwnd_mean = 0, final_cwnd_max = 0;
  double lowest_cwnd = 0, highest_cwnd = 0;  // over the run, any flow
  double final_alpha_mean = 0, final_alpha_max = 0, highest_alpha = 0;
  uint64_t window_cuts = 0, alpha_updates = 0, timeouts = 0;
  uint64_t flows_cut = 0;  // flows whose window was cut at least once
};

struct RunFigures {
  std::vector<MessageFigures> messages;        // engine by engine, in each engine's send order
  std::vector<CollectiveFigures> collectives;  // by id; only those with a message sent here
  LatencyHistogram one_way, rtt;
  GoodputFigures goodput;
  LossFigures loss;
  ReorderFigures reordering;
  CongestionFigures congestion;
  // Data packets received by the switches on their path (HostEngine::path_switches), summed.
  std::array<uint64_t, kSentTtl + 1> path_switches{};
  std::array<uint64_t, kGenCounters> counters{};  // summed over engines
  uint64_t busy_cycles = 0;
};

RunFigures run_figures(const RunPlan& plan, const std::vector<const HostEngine*>& engines);

// The results JSON of a run: the plan's hosts and settings, the run's times and the figures.
nlohmann::ordered_json results_json(const RunPlan& plan, const RunInfo& run,
                                    const RunFigures& figures);
// The same, figures computed from `engines`.
nlohmann::ordered_json results_json(const RunPlan& plan,
                                    const std::vector<const HostEngine*>& engines,
                                    const RunInfo& run);

// Every counter, summed over engines, by its name.
nlohmann::ordered_json counters_json(const std::vector<const HostEngine*>& engines);

// The lower bound of each collective (by id) for the messages `engines` send, the one its
// workload calls for (trafficgen/bounds/collective_bound.h, docs/workloads.md). Zero for a
// collective with none sent here.
std::vector<CollectiveBound> collective_bounds(const RunPlan& plan,
                                               const std::vector<const HostEngine*>& engines);

}  // namespace spraylab::gen
