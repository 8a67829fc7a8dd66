// spraylab-gen's main lcore once the engines run (trafficgen/spraylab_gen.cpp): it polls its own
// engine if it has one and, every 100 us, watches links, prints progress, looks for a stop reason
// and writes the results.
#pragma once

#include <rte_cycles.h>

#include <atomic>
#include <cstdint>
#include <optional>

#include "trafficgen/engine_lcores.h"
#include "trafficgen/engines.h"
#include "trafficgen/gen_options.h"
#include "trafficgen/host_plan.h"
#include "trafficgen/port_links.h"
#include "trafficgen/results.h"
#include "trafficgen/send_progress.h"
#include "trafficgen/stop_reason.h"

namespace spraylab::gen {

// What the process's signal handler and --hold's standard input tell the loop.
struct RunFlags {
  const std::atomic<bool>* signal;    // SIGINT / SIGTERM
  const std::atomic<bool>* quiesce;   // --hold: a "quiesce" line: stop all polling, ports open
  const std::atomic<bool>* released;  // --hold: standard input closed
};

// The main lcore: polls its engine if it has one and, every 100 µs, watches links, prints
// progress and looks for a stop reason. A run that finished with --hold or --linger writes its
// results at once and goes on answering peers until released, the linger is over or a signal
// comes; --hold's "quiesce" stops all polling meanwhile.
class RunLoop {
 public:
  RunLoop(const GenOptions& cli, const RunFlags& flags, const RunPlan& plan, const Engines& engines,
          EngineLcores& lcores, LinkLog& link_log, uint64_t start_tsc)
      : cli_(cli),
        flags_(flags),
        plan_(plan),
        engines_(engines),
        lcores_(lcores),
        link_log_(link_log),
        hz_(rte_get_tsc_hz()),
        start_tsc_(start_tsc),
        control_every_(hz_ / 10000),  // 100 µs
        linger_cycles_(linger_cycles(cli, plan, hz_)),
        progress_(cli.progress, start_tsc, hz_) {
    info_.config = cli.config;
    info_.start_ns = engines.list[0]->ns_of(start_tsc);
  }

  void run();

  // After the engines stopped: the results, unless written at the finish and still true.
  void finish();

  StopReason stopped_by() const { return info_.stopped_by; }
  uint64_t finish_tsc() const { return finish_tsc_; }

 private:
  static uint64_t linger_cycles(const GenOptions& cli, const RunPlan& plan, uint64_t hz);

  void quiesce();

  // One control turn; false when the run is over.
  bool control(uint64_t now);

  std::optional<StopReason> stop_reason(double elapsed) const;

  // The run stopped for `reason`: true if it goes on answering peers (--hold, --linger).
  bool stop(uint64_t now, StopReason reason);

  // --results' file, and one JSON line on standard output.
  void write_results();

  const GenOptions& cli_;
  const RunFlags flags_;
  const RunPlan& plan_;
  const Engines& engines_;
  EngineLcores& lcores_;
  LinkLog& link_log_;
  const uint64_t hz_, start_tsc_, control_every_, linger_cycles_;
  SendProgress progress_;
  RunInfo info_;
  uint64_t finish_tsc_ = 0;
  bool reported_ = false, results_written_ = false;
};

}  // namespace spraylab::gen
