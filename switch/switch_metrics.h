// The switch's metrics: read from the data path's per-worker counters (switch_runtime.h) and queue
// depths at scrape time, without a lock and without the workers knowing. The one list of them is
// SPRAYLAB_SWITCH_METRICS; drop reasons come from kDropReasonNames (counters.h). Beside the
// data path it reads; monitoring/ gives the building blocks (families.h) and knows no switch.
#pragma once

#include <prometheus/collectable.h>
#include <rte_mempool.h>

#include <array>
#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "monitoring/families.h"
#include "switch/dataplane/counter.h"
#include "switch/dataplane/counters.h"
#include "switch/dataplane/switch_runtime.h"
#include "switch/dataplane/worker.h"

namespace spraylab::dataplane {

// Every switch metric: X(id, name, type, labels, help). Labels: switch (the topology's name), port
// (its number), peer (the node at the other end), lcore (an EAL lcore id), reason (a drop reason),
// algorithm (the load balancer now, also on the depth gauges so maxima group by it).
#define SPRAYLAB_SWITCH_METRICS(X)                                                                 \
  X(kInfo, "spraylab_switch_info", Gauge, "switch,algorithm",                                      \
    "Always 1: the switch and the load balancer it runs now")                                      \
  X(kBufferBytes, "spraylab_switch_buffer_bytes", Gauge, "switch",                                 \
    "Egress buffer of every port (buffer.bytes): tail drop above it")                              \
  X(kPortUp, "spraylab_switch_port_up", Gauge, "switch,port,peer",                                 \
    "1 while the port's link is up and no command took it down")                                   \
  X(kRxPackets, "spraylab_switch_rx_packets_total", Counter, "switch,port,peer",                   \
    "Packets received on the port")                                                                \
  X(kRxBytes, "spraylab_switch_rx_bytes_total", Counter, "switch,port,peer",                       \
    "Bytes received on the port (frames without FCS)")                                             \
  X(kTxPackets, "spraylab_switch_tx_packets_total", Counter, "switch,port,peer",                   \
    "Packets sent on the port")                                                                    \
  X(kTxBytes, "spraylab_switch_tx_bytes_total", Counter, "switch,port,peer",                       \
    "Bytes sent on the port (frames without FCS)")                                                 \
  X(kLbDecisions, "spraylab_switch_lb_decisions_total", Counter, "switch,port,peer",               \
    "Packets the load balancer sent to this port (packets with a choice of next hop)")             \
  X(kEcnMarks, "spraylab_switch_ecn_marks_total", Counter, "switch,port,peer",                     \
    "Packets CE-marked on entering this port's egress queue")                                      \
  X(kTrims, "spraylab_switch_trims_total", Counter, "switch,port,peer",                            \
    "Data packets cut to their headers for this port's priority class (buffer.trim)")              \
  X(kEgressPackets, "spraylab_switch_egress_packets_total", Counter, "switch,port,peer",           \
    "Packets routed to the port's egress queue: each is sent, dropped (queue_full, port_down) or " \
    "still queued")                                                                                \
  X(kDrops, "spraylab_switch_drops_total", Counter, "switch,port,peer,reason",                     \
    "Packets dropped, by reason (switch/dataplane/counters.h)")                                    \
  X(kDepthPackets, "spraylab_switch_queue_depth_packets", Gauge, "switch,port,peer,algorithm",     \
    "Egress queue depth now, in packets")                                                          \
  X(kDepthBytes, "spraylab_switch_queue_depth_bytes", Gauge, "switch,port,peer,algorithm",         \
    "Egress queue depth now, in bytes")                                                            \
  X(kMaxDepthPackets, "spraylab_switch_queue_max_depth_packets", Gauge,                            \
    "switch,port,peer,algorithm", "Largest egress queue depth since the previous scrape, packets") \
  X(kMaxDepthBytes, "spraylab_switch_queue_max_depth_bytes", Gauge, "switch,port,peer,algorithm",  \
    "Largest egress queue depth since the previous scrape, bytes")                                 \
  X(kSampledPackets, "spraylab_switch_queue_depth_sampled_packets", Histogram, "switch,port,peer", \
    "Egress queue depth sampled every millisecond by the control plane, packets")                  \
  X(kPfcFramesSent, "spraylab_switch_pfc_frames_sent_total", Counter, "switch,port,peer,kind",     \
    "PFC frames the port sent its upstream (buffer.flow_control: pfc): kind pause (the port's "    \
    "ingress bytes passed XOFF, or a pause renewed) or resume (back at XON)")                      \
  X(kPfcFramesReceived, "spraylab_switch_pfc_frames_received_total", Counter,                      \
    "switch,port,peer,kind",                                                                       \
    "PFC frames for the data class the port's peer sent: kind pause or "                           \
    "resume")                                                                                      \
  X(kPfcPausedSeconds, "spraylab_switch_pfc_paused_seconds_total", Counter, "switch,port,peer",    \
    "Time the port's transmitter was paused by its peer's PFC frames (ns resolution)")             \
  X(kPfcSendFailures, "spraylab_switch_pfc_send_failures_total", Counter, "switch,port,peer",      \
    "Tries to send an owed PFC frame that found no mbuf in the reserve or the link or tx queue "   \
    "full: the frame stays owed for the next turn")                                                \
  X(kCreditsConsumed, "spraylab_switch_credits_consumed_total", Counter, "switch,port,peer",       \
    "Credits (buffer.credit.unit bytes each) that frames arriving on the port took in its "        \
    "ingress buffer (buffer.flow_control: credit)")                                                \
  X(kCreditsFreed, "spraylab_switch_credits_freed_total", Counter, "switch,port,peer",             \
    "Credits of the port's ingress buffer freed as its frames left, owed back to its sender")      \
  X(kCreditStalledSeconds, "spraylab_switch_credit_stalled_seconds_total", Counter,                \
    "switch,port,peer", "Time the port had a frame to send but not the credits for it")            \
  X(kWorkerRxPackets, "spraylab_switch_worker_rx_packets_total", Counter, "switch,lcore",          \
    "Packets received by the worker on this lcore")                                                \
  X(kWorkerBusySeconds, "spraylab_switch_worker_busy_seconds_total", Counter, "switch,lcore",      \
    "Time the worker spent in loop turns that moved packets")                                      \
  X(kWorkerLoops, "spraylab_switch_worker_loops_total", Counter, "switch,lcore",                   \
    "Turns of the worker's loop")                                                                  \
  X(kMbufsInUse, "spraylab_switch_mbufs_in_use", Gauge, "switch",                                  \
    "Mbufs of the switch's pool held now (rx, egress queues, tx), lcore caches not counted")       \
  X(kMbufsAvailable, "spraylab_switch_mbufs_available", Gauge, "switch",                           \
    "Mbufs of the switch's pool free now, lcore caches included")

// The metrics that are one PortCounters field summed over workers: X(id, field).
#define SPRAYLAB_SWITCH_PORT_COUNTER_FIELDS(X) \
  X(kRxPackets, rx_packets)                    \
  X(kRxBytes, rx_bytes)                        \
  X(kTxPackets, tx_packets)                    \
  X(kTxBytes, tx_bytes)                        \
  X(kLbDecisions, lb_decisions)                \
  X(kEcnMarks, ecn_marks)                      \
  X(kTrims, trims)                             \
  X(kEgressPackets, egress_packets)

enum class SwitchMetric : uint8_t {
#define SPRAYLAB_ENUM(id, name, type, labels, help) id,
  SPRAYLAB_SWITCH_METRICS(SPRAYLAB_ENUM)
#undef SPRAYLAB_ENUM
      kCount,
};

inline constexpr std::array<monitoring::MetricSpec, static_cast<size_t>(SwitchMetric::kCount)>
    kSwitchMetrics{{
#define SPRAYLAB_SPEC(id, name, type, labels, help) \
  {name, prometheus::MetricType::type, labels, help},
        SPRAYLAB_SWITCH_METRICS(SPRAYLAB_SPEC)
#undef SPRAYLAB_SPEC
    }};

inline const monitoring::MetricSpec& spec(SwitchMetric m) {
  return kSwitchMetrics[static_cast<size_t>(m)];
}

struct QueueDepth {
  uint32_t packets = 0;
  uint32_t bytes = 0;
};

// One port's lossless-link counters (buffer.flow_control: pfc or credit), read at a scrape.
struct PfcPortStats {
  uint64_t pause_sent = 0, resume_sent = 0, pause_received = 0, resume_received = 0;
  uint64_t send_failed = 0;
  uint64_t paused_ns = 0;
};
struct CreditPortStats {
  uint64_t consumed = 0, freed = 0;
  uint64_t stalled_ns = 0;
};

struct MbufCount {
  uint32_t in_use = 0;
  uint32_t available = 0;
};

// What the collector reads. The counters are the data path's own; the functions are the control
// plane's reads of the queues (SwitchRuntime's atomics). source_of() binds a running switch.
struct SwitchSource {
  std::string name;
  std::vector<std::string> peers;  // per port
  std::vector<const WorkerCounters*> workers;
  std::vector<unsigned> lcores;  // the EAL lcore of each worker
  double tsc_hz = 1;             // busy cycles to seconds
  uint64_t buffer_bytes = 0;
  std::function<std::string()> algorithm;
  std::function<bool(uint16_t port)> port_up;
  std::function<QueueDepth(uint16_t port)> depth;        // now
  std::function<QueueDepth(uint16_t port)> take_max;     // maximum since the previous scrape
  std::function<MbufCount()> mbufs;                      // the pool now; empty: no samples
  std::function<PfcPortStats(uint16_t port)> pfc;        // empty: no PFC (the families empty)
  std::function<CreditPortStats(uint16_t port)> credit;  // empty: no credits
};

class SwitchCollector : public prometheus::Collectable {
 public:
  // The sampled depth histogram: 0, 1, 2, 4, ... 4096 packets (an egress ring holds at most 4096
  // by default). One per port, in packets only: its bucket lines are most of a scrape, and the
  // depth in bytes is in the gauges.
  static constexpr monitoring::Log2Buckets kPacketBuckets{0, 12};
  static constexpr uint64_t kSamplePeriodNs = 1'000'000;  // how often the control plane samples

  explicit SwitchCollector(SwitchSource source);

  // One depth sample of every port into the sampled histogram. Call from one thread only (the
  // control plane, every kSamplePeriodNs); scrapes read the histogram while it writes.
  void sample_depths();

  // Takes every port's maxima (take_max): a scrape reports the maxima since the previous one,
  // and takes nothing from another reader's (EgressQueues::MaxReader).
  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  // Per port, one writer (sample_depths): counters as in the data path.
  struct DepthSamples {
    std::array<Counter, kPacketBuckets.size() + 1> packets;  // last: +Inf
    Counter packets_sum;
  };

  void collect_ports(std::vector<prometheus::MetricFamily>& out, const std::string& alg) const;
  void collect_samples(std::vector<prometheus::MetricFamily>& out) const;
  void collect_workers(std::vector<prometheus::MetricFamily>& out) const;
  void collect_pool(std::vector<prometheus::MetricFamily>& out) const;
  void collect_pfc(std::vector<prometheus::MetricFamily>& out) const;
  void collect_credit(std::vector<prometheus::MetricFamily>& out) const;
  // What a scrape reports of a time the worker keeps in several words (a pause's start, its end,
  // the sum of those closed): never less than an earlier scrape reported, so a scrape that read
  // them mid-update cannot make the counter go back (Prometheus would take it for a restart).
  static uint64_t monotone(std::atomic<uint64_t>& reported, uint64_t now_value);

  SwitchSource src_;
  std::vector<monitoring::Labels> port_labels_;  // switch, port, peer
  std::unique_ptr<DepthSamples[]> samples_;
  std::vector<double> packet_bounds_;
  std::unique_ptr<std::atomic<uint64_t>[]> paused_reported_, stalled_reported_;  // per port, ns
};

// A running switch as a SwitchSource; `lcores` holds the EAL lcore of each worker. Inline: only
// the switch program (which links the data path) calls it.
inline SwitchSource source_of(SwitchRuntime& rt, std::vector<unsigned> lcores, double tsc_hz,
                              rte_mempool* pool = nullptr) {
  SwitchSource s;
  s.name = rt.tables().name;
  for (const auto& p : rt.tables().ports) s.peers.push_back(p.peer);
  for (uint32_t w = 0; w < rt.workers(); ++w) {
    s.workers.push_back(&static_cast<const SwitchRuntime&>(rt).counters(w));
  }
  s.lcores = std::move(lcores);
  s.tsc_hz = tsc_hz;
  s.buffer_bytes = rt.tables().buffer_bytes;
  s.algorithm = [&rt] { return rt.algorithm(); };
  s.port_up = [&rt](uint16_t p) { return rt.port_up(p); };
  s.depth = [&rt](uint16_t p) {
    return QueueDepth{rt.depth_packets_now(p), rt.depth_bytes_now(p)};
  };
  s.take_max = [&rt](uint16_t p) {
    const auto [packets, bytes] = rt.take_max_depth(p, SwitchRuntime::MaxReader::kScrape);
    return QueueDepth{packets, bytes};
  };
  if (const Pfc* pfc = rt.pfc()) {
    s.pfc = [pfc, clock = TscClock()](uint16_t p) {
      const PfcPortCounters& c = pfc->counters(p);
      return PfcPortStats{c.pause_sent.get(),     c.resume_sent.get(),
                          c.pause_received.get(), c.resume_received.get(),
                          c.send_failed.get(),    pfc->paused_ns_seen(p, clock.now_ns())};
    };
  }
  if (const Credits* credits = rt.credits()) {
    s.credit = [credits, clock = TscClock()](uint16_t p) {
      return CreditPortStats{credits->consumed_seen(p), credits->freed_seen(p),
                             credits->stalled_ns_seen(p, clock.now_ns())};
    };
  }
  if (pool != nullptr) {
    s.mbufs = [pool] {
      return MbufCount{rte_mempool_in_use_count(pool), rte_mempool_avail_count(pool)};
    };
  }
  return s;
}

}  // namespace spraylab::dataplane
