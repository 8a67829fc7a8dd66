// The wall clock of a fabric run, the same in both modes: the --timeout guard and the progress
// callback (FabricOptions). Only these read the wall clock; the fabric's own clock is the mode's.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

#include "fabric/emu/fabric.h"
#include "fabric/run/result.h"
#include "fabric/run/stop_request.h"

namespace spraylab::fabric {

class RunWatch {
 public:
  RunWatch(const Fabric& f, const FabricOptions& opts);

  // Wall time since the run started.
  uint64_t wall_ns() const;
  // Why the run must stop now whatever its workload's state: it has had its wall time
  // (FabricOptions::max_wall_seconds), kTimeout, or a stop was requested, kSignal.
  std::optional<gen::StopReason> guard(uint64_t wall_ns) const {
    if (wall_ns >= wall_limit_ns_) return gen::StopReason::kTimeout;
    if (stop_requested()) return gen::StopReason::kSignal;
    return std::nullopt;
  }
  // Calls the progress callback when its period has passed since the last call, or always when
  // `last`; `clock_ns` is the fabric's clock (its workload starts at Fabric::start_ns()).
  // `events` (virtual time, > 0): events so far; then the share of data packets delivered is
  // read from the engines too (on their own thread only).
  void progress(uint64_t clock_ns, uint64_t wall_ns, bool last = false, uint64_t events = 0);

 private:
  const Fabric& f_;
  const FabricOptions& opts_;
  const std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  const uint64_t wall_limit_ns_;
  uint64_t messages_total_ = 0;
  uint64_t data_packets_ = 0;  // every data packet of the workload once
  uint64_t next_progress_ns_;
};

}  // namespace spraylab::fabric
