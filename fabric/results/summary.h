// What one run of a variant comes to: completion times against the bound, queues, utilisation,
// loss and reordering, computed from the fabric's result (fabric/run/result.h). The summary holds
// nothing that depends on the wall clock, so two virtual-time runs of one experiment give
// byte-identical summary.json files (the determinism acceptance). Keys: docs/runner.md.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "fabric/run/result.h"

namespace spraylab::fabric {

// Queue depths of a set of ports: the exact maxima from the data path, and the 99th
// percentile over every sample of every port in the set.
struct QueueStats {
  uint64_t max_bytes = 0;
  uint64_t max_packets = 0;
  uint64_t p99_bytes = 0;
  uint64_t p99_packets = 0;
  uint64_t ports = 0;
  // The mean over every sample of every port in the set (queue and queue.by_layer only).
  double mean_bytes = 0;
  double mean_packets = 0;
};

// One window of the delivered-throughput series: wire bytes switches sent to hosts between two
// samples over the hosts' line rate for that time (utilisation.csv).
struct UtilisationWindow {
  uint64_t t_ns = 0;  // the window's end
  double utilisation = 0;
};

struct VariantSummary {
  std::string variant;
  // FabricResult::machine_bound: why the numbers measure the machine more than the fabric, or "".
  std::string machine_bound;
  std::string mode;  // mode_name() (run/mode.h)
  std::string algorithm;
  bool completed = false;
  gen::StopReason stopped_by = gen::StopReason::kStalled;
  uint64_t clock_ns = 0;  // the fabric's clock at the end (virtual, or wall in in-process mode)
  uint64_t events = 0;

  // Collectives: the mean over completed collectives (one collective: its own numbers).
  uint64_t collectives = 0;
  uint64_t collectives_completed = 0;
  std::optional<double> cct_ns;
  std::optional<double> cct_max_ns;
  std::optional<double> bound_ns;
  std::optional<double> inflation;  // cct / bound - 1
  // The bound the collectives were judged against (gen::BoundKind's names, several joined by
  // '+' in that list's order; empty: no collective) and whether its capacity is the fabric's
  // (gen::BoundCapacity's names; empty: the generator did not say).
  std::string bound;
  std::string bound_capacity;

  // Messages: nearest-rank percentiles over completed messages.
  uint64_t messages = 0;
  uint64_t messages_completed = 0;
  std::optional<uint64_t> message_cct_p50_ns;
  std::optional<uint64_t> message_cct_p99_ns;
  std::optional<uint64_t> message_cct_max_ns;
  std::optional<double> message_inflation_p50;
  std::optional<double> message_inflation_p99;

  QueueStats queue;                                  // every switch egress port
  std::map<uint32_t, QueueStats> queue_by_level;     // 0 = leaves
  std::map<std::string, QueueStats> queue_by_layer;  // PortSummary::layer

  // Over switch egress ports that sent at least one packet.
  std::optional<double> utilisation_mean;
  std::optional<double> utilisation_max;
  uint64_t active_ports = 0;
  // What the paper plots (Ofan Figure 1): wire bytes delivered into the hosts over their line
  // rate, for the whole run (first packet to last ACK) and the median window of the middle of the
  // run (windows ending between 25% and 75% of it).
  std::optional<double> delivered_mean;
  std::optional<double> delivered_steady;
  uint64_t utilisation_window_ns = 0;
  // FabricResult::queue_sample_halvings: in summary.json (queue.sample_halvings) only when > 0.
  uint32_t queue_sample_halvings = 0;
  std::vector<PortSummary> hottest_ports;  // the few deepest maxima, deepest first

  uint64_t switch_drops = 0;
  uint64_t ecn_marks = 0;
  uint64_t trims = 0;  // buffer.trim: in summary.json when a switch trimmed
  uint64_t nacks = 0;  // NACKs the senders received
  // buffer.flow_control: pfc: in summary.json ("pfc") only then. Switch ports summed, the hosts'
  // NICs apart, and the ports that were paused (head-of-line blocking), longest first.
  bool pfc = false;
  uint64_t pfc_pause_sent = 0, pfc_resume_sent = 0;
  uint64_t pfc_pause_received = 0, pfc_resume_received = 0;
  uint64_t pfc_paused_ns = 0, pfc_headroom_drops = 0;
  HostPfc host_pfc;
  std::vector<PortSummary> paused_ports;
  // buffer.flow_control: credit: in summary.json ("credit") only then. Switch ports summed, the
  // hosts' NICs apart, and the ports that waited for credits, longest first.
  bool credit = false;
  uint64_t credit_frames_sent = 0, credit_frames_received = 0;
  uint64_t credits_consumed = 0, credits_freed = 0, credits_outstanding = 0;
  uint64_t credits_returning = 0;
  uint64_t credit_stalled_ns = 0, credit_overrun_drops = 0;
  HostCredit host_credit;
  std::vector<PortSummary> credit_stalled_ports;
  uint64_t retransmits = 0;
  uint64_t timeouts = 0;
  uint64_t missing_at_end = 0;

  uint64_t received_packets = 0;
  uint64_t out_of_order = 0;
  uint64_t duplicates = 0;
  uint64_t max_reorder_distance = 0;
  std::optional<double> out_of_order_fraction;

  // Accepted throughput (the MRLS paper's "throughput", §5.2): payload bytes delivered in the run's
  // window [0, clock_ns] over what every host's link could carry in it.
  uint64_t delivered_bytes = 0;  // in the window
  uint64_t window_start_ns = 0;  // measurement.warmup (virtual time), else 0
  uint64_t window_ns = 0;
  std::optional<double> accepted_throughput;
  // workload.injection bernoulli: per host, in packets per packet slot of the window (the MRLS
  // paper's load units: 1 is a full data frame in every slot of the host link), the load it
  // offered (its arrivals) and the load it accepted (the payload it received / a packet's
  // payload); their mean (the paper's throughput) and minimum over the hosts.
  struct HostLoads {
    double mean = 0;
    double min = 0;
  };
  std::optional<HostLoads> offered_load;
  std::optional<HostLoads> accepted_load;

  // Path lengths of the data packets received, in switch-to-switch hops (the MRLS paper's k;
  // a packet between two hosts of one leaf has 0): histogram[k] packets, the max, mean and p99.
  std::vector<uint64_t> hops_histogram;
  std::optional<uint64_t> hops_max;
  std::optional<double> hops_mean;
  std::optional<uint64_t> hops_p99;

  // cc dctcp: the generator's congestion_control section as it is (cwnd and α statistics).
  std::optional<nlohmann::ordered_json> congestion_control;
  // The run's link events (FabricResult::link_events); summary.json has them only when there are.
  nlohmann::ordered_json link_events = nlohmann::ordered_json::array();
};

// `mode` is mode_name(result.mode), passed in so this file needs no fabric engine to link.
VariantSummary summarize(const FabricResult& result, const std::string& variant,
                         const std::string& algorithm, const std::string& mode);

nlohmann::ordered_json to_json(const VariantSummary& s);

// The nearest-rank percentile (p in (0, 1]) of `values`, which it reorders; nullopt when empty.
template <class T>
std::optional<T> percentile(std::vector<T>& values, double p) {
  if (values.empty()) return std::nullopt;
  // The epsilon keeps p * n from rounding up past a whole rank (0.07 * 100 = 7.000000000000001).
  const double rank = std::ceil(p * static_cast<double>(values.size()) - 1e-9);
  const size_t index = std::clamp<size_t>(static_cast<size_t>(rank), 1, values.size()) - 1;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(index),
                   values.end());
  return values[index];
}

// The delivered-throughput windows of `result` (FabricResult::delivered), one per sample period.
std::vector<UtilisationWindow> utilisation_windows(const FabricResult& result);

// Completion times of the completed messages, in ns, sorted (the CCT distribution's data).
std::vector<uint64_t> message_ccts(const nlohmann::ordered_json& generator);

}  // namespace spraylab::fabric
