// Virtual time: a discrete-event loop on one thread. The clock is a counter in ns that jumps to
// the next event: a frame's arrival at the end of a link, a switch port's shaper letting the next
// frame go, a host engine's next_wake() (its pacer, a message start, a retransmission deadline),
// or the queue sampler. Nothing reads the wall clock but the progress report and the wall-time
// guard, and ties are broken by the order events were scheduled: one seed, one result.
#pragma once

#include <vector>

#include "fabric/emu/fabric.h"
#include "fabric/run/result.h"

namespace spraylab::fabric {

struct RunOutcome {
  bool completed = false;
  gen::StopReason stopped_by = gen::StopReason::kStalled;
  uint64_t end_ns = 0;  // fabric clock when it stopped
  uint64_t events = 0;
  uint64_t stalled_ns = 0;  // in-process: FabricResult::stalled_ns
  std::vector<QueueSample> samples;
  std::vector<DeliverySample> delivered;
  // measurement.warmup: when the throughput window opened (ns after the start; 0 = at the start)
  // and the payload bytes the hosts had received by then.
  uint64_t warmup_at_ns = 0;
  uint64_t delivered_at_warmup = 0;
  // workload.injection bernoulli: per host (the plan's order) its arrivals and the payload it
  // had received at the warm-up; empty without a warm-up or without bernoulli.
  std::vector<uint64_t> arrivals_at_warmup;
  std::vector<uint64_t> host_delivered_at_warmup;
  uint32_t queue_sample_halvings = 0;  // FabricResult::queue_sample_halvings
  uint64_t pool_frames = 0;            // FabricResult::pool_frames
  uint32_t pool_grown_in_window = 0;   // FabricResult::pool_grown_in_window
};

// Runs `f` (built for Mode::kVirtual) until its workload completes or a limit. `limit_ns`: how
// long after the workload's start it may run on the fabric clock (UINT64_MAX: no limit but
// opts.max_wall_seconds), as in run_inprocess.
RunOutcome run_virtual(Fabric& f, const FabricOptions& opts, uint64_t limit_ns);

}  // namespace spraylab::fabric
