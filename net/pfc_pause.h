// The paused transmitter of one port under IEEE 802.1Qbb PFC: for each of the eight priority
// classes, until when the peer's last pause frame stops it from starting frames of that class.
//
// A class's quanta count 512 bit times at the port's link rate; a pause counts from the frame's
// arrival and replaces whatever pause the class had (a renewal extends or shortens it), and
// quanta 0 resumes the class at once. A class not enabled in the frame's vector keeps its state.
// The clock is the caller's (ns, TSC cycles, virtual ns): `ticks_per_s` says its rate.
//
// Plain state, no allocation: the generator's rx path feeds it (trafficgen/host_engine.cpp) and
// its tx loop asks paused() before each burst. A reader on another thread (the metrics) reads the
// engine's counters, never this.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>

#include "net/pfc_frame.h"

namespace spraylab::net {

class PfcPause {
 public:
  PfcPause() = default;
  // `rate_bps`: the port's link rate (the quanta's unit); `ticks_per_s`: the caller's clock.
  PfcPause(double rate_bps, double ticks_per_s) : ticks_per_quantum_(
      static_cast<double>(kPfcQuantumBits) * ticks_per_s / rate_bps) {}

  // `quanta` in ticks, rounded up: a pause is never over early.
  uint64_t quanta_ticks(uint16_t quanta) const {
    const double t = static_cast<double>(quanta) * ticks_per_quantum_;
    const auto whole = static_cast<uint64_t>(t);
    return static_cast<double>(whole) < t ? whole + 1 : whole;
  }

  // What a frame did, for the caller's counters.
  struct Effect {
    bool paused = false;   // some enabled class got nonzero quanta
    bool resumed = false;  // some enabled class got quanta 0
  };

  // Frame `f` arrived at `now`.
  Effect on_frame(const PfcFrame& f, uint64_t now) {
    Effect e;
    for (uint8_t c = 0; c < kPfcClasses; ++c) {
      if ((f.class_enable >> c & 1) == 0) continue;
      Class& k = classes_[c];
      const uint16_t q = f.quanta[c];
      if (!k.paused(now)) {  // the last pause (if any) has run out: it counts in full
        k.closed += k.until - k.start;
        k.start = k.until = now;
      }
      if (q == 0) {
        e.resumed = true;
        k.closed += now - k.start;
        k.start = k.until = now;
      } else {
        e.paused = true;
        k.until = now + quanta_ticks(q);
      }
    }
    return e;
  }

  // True while class c may start no frame.
  bool paused(uint8_t c, uint64_t now) const { return classes_[c].paused(now); }
  // When class c's pause ends (or ended): the tx loop's next chance.
  uint64_t paused_until(uint8_t c) const { return classes_[c].until; }
  // The ticks class c was paused, up to `now` (a pause still running counts up to `now`).
  uint64_t paused_ticks(uint8_t c, uint64_t now) const {
    const Class& k = classes_[c];
    return k.closed + (std::min(now, k.until) - std::min(now, k.start));
  }

 private:
  struct Class {
    uint64_t start = 0, until = 0;  // the current (or last) pause: [start, until)
    uint64_t closed = 0;            // ticks of the pauses before it
    bool paused(uint64_t now) const { return now < until; }
  };
  double ticks_per_quantum_ = 0;
  std::array<Class, kPfcClasses> classes_{};
};

}  // namespace spraylab::net
