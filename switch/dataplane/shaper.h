// Drains a port at its link rate. The port is modelled as a serialiser: it is busy until
// `busy_until_ns`, and each frame keeps it busy for its wire time (frame + FCS + preamble + gap).
// A frame may start while the port is busy by at most `slack_ns`, so bursts of a poll's worth of
// frames leave together while the long-run rate stays exact. Works on any clock (TSC or virtual).
#pragma once

#include <algorithm>
#include <cstdint>

#include "net/wire.h"

namespace spraylab::dataplane {

class Shaper {
 public:
  Shaper() = default;
  // rate_bps = 0: no shaping (the device's own rate).
  Shaper(double rate_bps, uint64_t slack_ns)
      : ns_per_byte_(rate_bps > 0 ? 8e9 / rate_bps : 0), slack_ns_(slack_ns) {}

  bool shaping() const { return ns_per_byte_ > 0; }
  // True if a frame may start now; then call sent().
  bool may_send(uint64_t now_ns) const {
    return !shaping() || busy_until_ns_ <= now_ns + slack_ns_;
  }
  void sent(uint32_t frame_bytes, uint64_t now_ns) {
    if (!shaping()) return;
    const double start = std::max(busy_until_, static_cast<double>(now_ns));
    busy_until_ = start + (frame_bytes + net::kWireOverhead) * ns_per_byte_;
    busy_until_ns_ = static_cast<uint64_t>(busy_until_);
  }
  uint64_t busy_until_ns() const { return busy_until_ns_; }
  // The earliest moment may_send() is true again: the slack before the port is free. A poller
  // that sleeps until then may wake up to the slack late and the port loses no time.
  uint64_t next_start_ns() const {
    return busy_until_ns_ > slack_ns_ ? busy_until_ns_ - slack_ns_ : 0;
  }
  // A new rate from the next frame on (a link event); the frame on the wire keeps its time.
  void set_rate(double rate_bps) { ns_per_byte_ = rate_bps > 0 ? 8e9 / rate_bps : 0; }

 private:
  double ns_per_byte_ = 0;
  uint64_t slack_ns_ = 0;
  double busy_until_ = 0;  // exact, so rounding never accumulates
  uint64_t busy_until_ns_ = 0;
};

}  // namespace spraylab::dataplane
