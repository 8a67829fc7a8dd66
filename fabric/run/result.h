// What a run of an experiment's variant gives, in every mode (run/mode.h): the options a run
// takes, its progress, the queue-depth and delivery series, one summary per switch egress port and
// the generator's results. The emulated fabric (emu/run_fabric.h) and the namespaced one
// (namespaced/run_namespaced.h) both fill a FabricResult; the results (results/) read only it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "conf/experiment.h"
#include "fabric/run/mode.h"
#include "trafficgen/stop_reason.h"

namespace spraylab::dataplane {
class SwitchRuntime;  // switch/dataplane/switch_runtime.h: what a metrics hook reads
}

namespace spraylab::fabric {

// In-process: called with every switch's runtime once the fabric is built, before it runs; what it
// returns (a metrics endpoint serving them, fabric/cli/run_cli.cpp) is released after the run,
// before the switches go.
using SwitchMetricsHook = std::function<std::shared_ptr<void>(
    const std::vector<dataplane::SwitchRuntime*>& switches)>;

// The in-process fabric's default link rate: what the nodes of a small fabric sustain on this
// 2-CPU machine (docs/fabric.md).
inline constexpr double kInProcessRateBps = 1e9;

struct Progress {
  uint64_t messages_done = 0;
  uint64_t messages_total = 0;
  uint64_t clock_ns = 0;  // the fabric's clock since start (virtual or wall)
  double wall_seconds = 0;
  // Virtual time: events run so far, and the share of the workload's data packets that have
  // arrived (retransmissions count too; capped at 1), from which the time left is estimated.
  // 0 and -1 when unknown (in-process).
  uint64_t events = 0;
  double done_fraction = -1;
};

struct FabricOptions {
  Mode mode = Mode::kVirtual;
  // Stop when the fabric's clock passes this (0: the experiment's measurement.duration, or
  // until the workload completes); a wall-clock guard for the in-process mode. In the experiment's
  // time: an in-process run that is slowed down (time_scale) stops at this x time_scale.
  uint64_t max_clock_ns = 0;
  double max_wall_seconds = 600;
  // In-process: worker lcores to use (0: every EAL worker lcore). With one, the fabric's clock
  // stands still while the lcore is descheduled (FabricResult::stalled_ns), so a busy machine
  // does not show in the results; with several, give them otherwise idle CPUs (docs/fabric.md).
  uint32_t lcores = 0;
  // Virtual time: threads, one partition of the fabric each (emu/partition.h: its pods, or its
  // leaves; at most that many). 0: min(this machine's CPUs, partitions); 1: one event queue.
  // Results do not depend on it (docs/fabric.md, "A parallel virtual time").
  uint32_t threads = 0;
  // In-process: the rate of the fastest link (a 2-CPU machine cannot carry 100-800 Gb/s links in
  // real time; docs/fabric.md says what fits). An experiment with faster links runs k times
  // slower, k = fastest / this: every rate divided by k, every time constant (link delays, the
  // retransmission timeout, the queue sample period, the duration) multiplied by k, so buffers
  // and bandwidth-delay products keep their size in packets. FabricResult::time_scale is k.
  // 0: the experiment's own rates. Virtual time always runs the experiment as written.
  double inprocess_rate_bps = kInProcessRateBps;
  // Virtual time: the most queue samples a run keeps (24 B each; 2^24 is 400 MB). A run that never
  // completes — a host cut off by failed links retransmits for ever — would otherwise add one
  // sample per switch port per measurement.queue_sample until its duration: 52 KB per µs on 432
  // hosts, 9 GB after some 170 ms. Past the limit every other sampling time is dropped and the
  // period doubles (FabricResult::queue_sample_halvings), so the series stays evenly spaced.
  size_t max_queue_samples = size_t{1} << 24;
  // Called about every `progress_period_ns` of wall time from the thread that called run_fabric.
  std::function<void(const Progress&)> progress;
  uint64_t progress_period_ns = 200'000'000;
  // In-process: serves the switches' metrics while the run lasts (empty: none).
  SwitchMetricsHook switch_metrics;
};

// One row of the queue-depth time series (measurement.queue_sample apart, on the fabric clock).
struct QueueSample {
  uint64_t t_ns = 0;
  uint32_t port_index = 0;  // into FabricResult::ports
  uint32_t packets = 0;
  uint32_t bytes = 0;
};

// Wire bytes (frames plus preamble and inter-frame gap) every switch had sent to hosts by `t_ns`,
// taken with each queue sample: the delivered-throughput series behind utilisation.csv.
struct DeliverySample {
  uint64_t t_ns = 0;
  uint64_t wire_bytes = 0;
};

// One switch egress port over the whole run.
struct PortSummary {
  std::string switch_name;
  uint16_t port = 0;
  std::string peer;
  uint32_t level = 0;  // the switch's level (0 = leaf)
  // The paper's layer (Ofan §3.3): the switch's role and the way the port sends, edge_up, agg_up,
  // core_down, agg_down, edge_down (3 levels); leaf_up, spine_down, leaf_down (2 levels).
  std::string layer;
  uint64_t max_packets = 0;  // exact maxima, from the data path
  uint64_t max_bytes = 0;
  uint64_t p99_bytes = 0;  // over the samples
  uint64_t tx_packets = 0;
  uint64_t tx_bytes = 0;
  double utilisation = 0;  // wire bytes sent / (link rate x clock_ns)
  uint64_t drops = 0;      // all reasons
  uint64_t ecn_marks = 0;
  uint64_t trims = 0;  // data packets cut to their headers (buffer.trim)
  // buffer.flow_control: pfc (switch/dataplane/pfc.h): PFC frames this port sent its peer (as
  // the receiver of the peer's traffic) and received from it (as the sender), the time its
  // transmitter was paused (head-of-line blocking: every frame queued here waited), and the
  // frames its ingress dropped beyond XOFF + headroom (counted at the egress they were bound for).
  uint64_t pause_sent = 0, resume_sent = 0;
  uint64_t pause_received = 0, resume_received = 0;
  uint64_t paused_ns = 0;
  uint64_t headroom_drops = 0;
  // buffer.flow_control: credit (switch/dataplane/credit.h), in credits of buffer.credit.unit:
  // as the receiver of its peer's traffic, the credits its frames were charged (consumed) and
  // given back (freed) in the credit frames it sent; as the sender, the credit frames its peer
  // sent, the credits it spent, those its peer had not freed at the end (outstanding: in the
  // peer's buffer or on the wire as data; 0 when every one came back) and those the peer had
  // freed but whose credit frame was still on the wire (returning: the last frames' credits,
  // on their way when the workload completed), and the time it had a frame but not the credits.
  uint64_t credit_frames_sent = 0, credit_frames_received = 0;
  uint64_t credits_consumed = 0, credits_freed = 0;
  uint64_t credits_spent = 0, credits_outstanding = 0, credits_returning = 0;
  uint64_t credit_stalled_ns = 0;
  uint64_t credit_overrun_drops = 0;
};

// buffer.flow_control: pfc: the hosts' NICs, summed (their leaves pause them).
struct HostPfc {
  uint64_t pause_received = 0, resume_received = 0;
  uint64_t paused_ns = 0;
  uint64_t bad_control = 0;  // MAC control frames that were no PFC (consumed)
};

// buffer.flow_control: credit: the hosts' NICs, summed, as PortSummary's credit fields (as
// senders to their leaves and receivers of them).
struct HostCredit {
  uint64_t frames_sent = 0, frames_received = 0;
  uint64_t consumed = 0, freed = 0;
  uint64_t spent = 0, outstanding = 0, returning = 0;
  uint64_t stalled_ns = 0;
  uint64_t overruns = 0;     // frames beyond the NIC's buffer (a leaf that ignored credits)
  uint64_t bad_control = 0;  // malformed credit frames, and MAC control frames (consumed)
};

// Which virtual-time engine gave a result: raised whenever a change makes one experiment and seed
// give other numbers (an event order, a rounding), so that `--resume` never mixes two engines'
// runs in one table (fabric/runner/resume.h). 1: ties at one ns in scheduling order (to session
// 21); 2: ties by (node, tag), the partitioned engine of issue 40 (session 22).
inline constexpr uint32_t kVirtualTimeEngine = 2;

struct FabricResult {
  Mode mode = Mode::kVirtual;
  // In-process: how many times slower than written the experiment ran (FabricOptions::
  // inprocess_rate_bps); its clock, the generator's times and the samples are in that slower time.
  double time_scale = 1;
  bool completed = false;  // every message delivered and acknowledged
  // Completed, duration or timeout; virtual time also stalled (nothing left to happen but the
  // workload not done: only possible if a frame is lost with no retransmission to follow).
  gen::StopReason stopped_by = gen::StopReason::kStalled;
  uint64_t clock_ns = 0;  // fabric clock at the end, from the workload's start
  double wall_seconds = 0;
  uint64_t events = 0;   // virtual: events processed; in-process: node polls
  uint32_t threads = 1;  // virtual: the threads (partitions) it ran on
  // In-process with one worker lcore: how long it was off its CPU (descheduled). The fabric's
  // clock stood still meanwhile (every node stood still alike), so clock_ns leaves it out.
  uint64_t stalled_ns = 0;
  // The generator's results, exactly as spraylab-gen writes them (trafficgen/results.h):
  // collective and per-message CCT, the lower bound and inflation, latency, loss, reordering.
  nlohmann::ordered_json generator;
  std::vector<PortSummary> ports;    // every switch egress port
  bool pfc = false;                  // buffer.flow_control: pfc (the PortSummary PFC fields)
  HostPfc host_pfc;
  bool credit = false;  // buffer.flow_control: credit (the PortSummary credit fields)
  HostCredit host_credit;
  std::vector<QueueSample> samples;  // time series of every port in `ports`
  // What switches delivered to hosts, sampled with the queues, and those ports' summed line rate.
  std::vector<DeliverySample> delivered;
  double host_capacity_bps = 0;
  // measurement.warmup (virtual time): the throughput window's start and the payload bytes
  // delivered before it; 0 and 0 without a warm-up (the window is the whole run).
  uint64_t warmup_at_ns = 0;
  uint64_t delivered_at_warmup = 0;
  // workload.injection bernoulli, with a warm-up: per host (the generator's hosts' order) its
  // arrivals and the payload bytes it had received then (RunOutcome's).
  std::vector<uint64_t> arrivals_at_warmup;
  std::vector<uint64_t> host_delivered_at_warmup;
  // Times the queue and delivery samples were thinned to every other sampling time because the
  // run reached FabricOptions::max_queue_samples: the period is queue_sample · 2^this.
  uint32_t queue_sample_halvings = 0;
  // Virtual time: the frames the run's pools had grown to at its end (all partitions'; a pool
  // outlives a run, so a later run of one process starts from what an earlier one grew), and
  // how many of their 2 MB pieces were filled inside a window rather than at its start
  // (mbuf_pool.h, PoolGrower). Not results: run.json's frame_pool.
  uint64_t pool_frames = 0;
  uint32_t pool_grown_in_window = 0;
  // The experiment's link events as they happened (Fabric::link_events_json); empty without.
  nlohmann::ordered_json link_events = nlohmann::ordered_json::array();
  // Why the numbers measure this machine more than the fabric (run/machine_bound.h), or "".
  std::string machine_bound;
};

}  // namespace spraylab::fabric
