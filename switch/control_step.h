// What spraylab-switch's main lcore does between (or, alone, inside) the workers' turns: link
// state, depth samples, dead-link reports, the --duration stop and the --stats-interval line.
#pragma once

#include <atomic>
#include <chrono>

#include "switch/control.h"
#include "switch/switch_metrics.h"
#include "switch/switch_options.h"

namespace spraylab::control {

class ControlStep {
 public:
  // `metrics`: nullptr without metrics. Sets `stop` once --duration is over.
  ControlStep(const dataplane::SwitchOptions& o, SwitchControl& ctl,
              dataplane::SwitchCollector* metrics, std::atomic<bool>& stop)
      : o_(o), ctl_(ctl), metrics_(metrics), stop_(stop), next_print_(o.stats_interval) {}

  void operator()();

  // Seconds since the step was made (the switch's forwarding time).
  double elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  const dataplane::SwitchOptions& o_;
  SwitchControl& ctl_;
  dataplane::SwitchCollector* metrics_;
  std::atomic<bool>& stop_;
  const std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  double next_print_;
  double next_link_report_ = 5;  // links get a few seconds to come up before any warning
  double next_depth_sample_ = 0;
};

}  // namespace spraylab::control
