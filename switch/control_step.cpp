#include "switch/control_step.h"

#include <fmt/format.h>

namespace spraylab::control {

void ControlStep::operator()() {
  ctl_.poll_links();
  if (metrics_ != nullptr && elapsed() >= next_depth_sample_) {
    metrics_->sample_depths();
    next_depth_sample_ = elapsed() + dataplane::SwitchCollector::kSamplePeriodNs * 1e-9;
  }
  if (elapsed() >= next_link_report_) {
    ctl_.report_dead_links();
    next_link_report_ += 1;
  }
  if (o_.duration > 0 && elapsed() >= o_.duration) stop_.store(true);
  if (o_.stats_interval > 0 && elapsed() >= next_print_) {
    auto s = ctl_.stats();
    fmt::print(stderr, "[{:.1f}s] rx {} tx {} drops {}\n", elapsed(),
               s["totals"]["rx_packets"].get<uint64_t>(), s["totals"]["tx_packets"].get<uint64_t>(),
               s["totals"]["drops"].dump());
    next_print_ += o_.stats_interval;
  }
}

}  // namespace spraylab::control
