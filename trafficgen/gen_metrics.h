// The generator's metrics: completion times against the CCT lower bound, latency, goodput,
// retransmissions, reordering and every engine counter, computed at scrape time from the host
// engines' own state (trafficgen/host_engine.h) while their lcores keep running. The engines write
// plain integers; scrapes read them with racy_load (monitoring/families.h). One list:
// SPRAYLAB_GEN_METRICS, and one metric per engine counter of SPRAYLAB_GEN_COUNTERS.
#pragma once

#include <prometheus/collectable.h>

#include <array>
#include <atomic>
#include <functional>
#include <vector>

#include "monitoring/families.h"
#include "trafficgen/host_engine.h"
#include "trafficgen/latency_histogram.h"
#include "trafficgen/schedule.h"

namespace spraylab::gen {

// X(id, name, type, labels, help).
#define SPRAYLAB_GEN_METRICS(X)                                                                \
  X(kMessages, "spraylab_gen_messages", Gauge, "",                                             \
    "Messages this process sends or receives in the whole run")                                \
  X(kMessagesCompleted, "spraylab_gen_messages_completed_total", Counter, "",                  \
    "Messages complete here: sent and acknowledged in full, or received in full")              \
  X(kGoodputBytes, "spraylab_gen_goodput_bytes_total", Counter, "",                            \
    "Bytes of the messages sent from here that are acknowledged in full (goodput = 8 x rate)") \
  X(kReorderedPackets, "spraylab_gen_reordered_packets_total", Counter, "",                    \
    "Data packets that arrived below the highest sequence already seen (RFC 4737)")            \
  X(kMessageCompletion, "spraylab_gen_message_completion_seconds", Histogram, "",              \
    "Completion time of each message sent from here: first packet sent to last ACK")           \
  X(kMessageInflation, "spraylab_gen_message_inflation_ratio", Histogram, "",                  \
    "Message completion time over its lower bound, minus 1")                                   \
  X(kCollectiveCompletion, "spraylab_gen_collective_completion_seconds", Histogram, "",        \
    "Collective completion time (CCT) of the messages sent from here: first sent to last ACK") \
  X(kCollectiveInflation, "spraylab_gen_collective_inflation_ratio", Histogram, "",            \
    "CCT over the collective's lower bound, minus 1 (docs/generator.md)")                      \
  X(kOneWayLatency, "spraylab_gen_one_way_latency_seconds", Histogram, "",                     \
    "One-way latency of data packets at the receiver (TSC timestamps: one machine)")           \
  X(kRtt, "spraylab_gen_rtt_seconds", Histogram, "",                                           \
    "Round-trip time from a data packet to the ACK echoing it, at the sender")

enum class GenMetric : uint8_t {
#define SPRAYLAB_ENUM(id, name, type, labels, help) id,
  SPRAYLAB_GEN_METRICS(SPRAYLAB_ENUM)
#undef SPRAYLAB_ENUM
      kCount,
};

inline constexpr std::array<monitoring::MetricSpec, static_cast<size_t>(GenMetric::kCount)>
    kGenMetrics{{
#define SPRAYLAB_SPEC(id, name, type, labels, help) \
  {name, prometheus::MetricType::type, labels, help},
        SPRAYLAB_GEN_METRICS(SPRAYLAB_SPEC)
#undef SPRAYLAB_SPEC
    }};

// spraylab_gen_<counter>_total{lcore} for every engine counter, in GenCounter order; a counter
// of time (ns) as spraylab_gen_<name>_seconds_total, in seconds.
inline constexpr std::array<monitoring::MetricSpec, kGenCounters> kGenCounterMetrics{{
#define SPRAYLAB_SPEC(id, name, doc) \
  {"spraylab_gen_" name "_total", prometheus::MetricType::Counter, "lcore", doc},
#define SPRAYLAB_NS_SPEC(id, name, doc) \
  {"spraylab_gen_" name "_seconds_total", prometheus::MetricType::Counter, "lcore", doc},
    SPRAYLAB_GEN_COUNTERS(SPRAYLAB_SPEC) SPRAYLAB_GEN_NS_COUNTERS(SPRAYLAB_NS_SPEC)
#undef SPRAYLAB_SPEC
#undef SPRAYLAB_NS_SPEC
}};

inline const monitoring::MetricSpec& spec(GenMetric m) {
  return kGenMetrics[static_cast<size_t>(m)];
}

// One engine's state as the collector reads it; view_of() binds a HostEngine. Tests fill it from
// plain structs.
struct EngineView {
  unsigned lcore = 0;
  const std::vector<SendState>* sends = nullptr;
  const std::vector<RecvState>* recvs = nullptr;
  const LatencyHistogram* one_way = nullptr;
  const LatencyHistogram* rtt = nullptr;
  const std::array<uint64_t, kGenCounters>* counters = nullptr;
  std::function<uint64_t(uint64_t tsc)> ns_of;
  std::function<uint64_t()> messages_done;
  std::function<uint64_t()> acked_bytes;
};

struct GenSource {
  std::vector<EngineView> engines;
  const Schedule* schedule = nullptr;
  uint64_t messages = 0;                    // sent or received here
  std::vector<double> message_bound_ns;     // by message id (messages sent here)
  std::vector<double> collective_bound_ns;  // by collective id (0: none sent here)
};

class GenCollector : public prometheus::Collectable {
 public:
  // Latency buckets: 2^k ns for k in [7, 33] (128 ns .. 8.6 s), on the engines' own log-linear
  // bin edges, so the merge is exact: a bucket counts the samples below its bound.
  static constexpr uint32_t kLatencyMinExp = 7, kLatencyMaxExp = 33;

  explicit GenCollector(GenSource source);
  std::vector<prometheus::MetricFamily> Collect() const override;

  static std::vector<double> completion_bounds();  // seconds: 1, 2, 5 x 10^k, 1 us .. 100 s
  static std::vector<double> inflation_bounds();   // 0, 0.01, 0.02, 0.05 ... 100

 private:
  GenSource src_;
};

// The latency histograms of several engines, merged, as one Prometheus histogram in seconds.
prometheus::ClientMetric::Histogram latency_histogram(
    const std::vector<const LatencyHistogram*>& parts);

inline EngineView view_of(const HostEngine& e, unsigned lcore) {
  EngineView v;
  v.lcore = lcore;
  v.sends = &e.sends();
  v.recvs = &e.recvs();
  v.one_way = &e.one_way();
  v.rtt = &e.rtt();
  v.counters = &e.counters();
  v.ns_of = [&e](uint64_t tsc) { return e.ns_of(tsc); };
  v.messages_done = [&e] { return e.messages_done(); };
  v.acked_bytes = [&e] { return e.acked_bytes(); };
  return v;
}

}  // namespace spraylab::gen
