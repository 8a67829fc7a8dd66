// The paused transmitter of one port under IEEE 802.1Qbb PFC: for each of the eight priority
// classes, until when the peer's last pause frame stops it from starting frames of that class.
//
// A class's quanta count 512 bit times at the port's link rate; a pause counts from the frame's
// arrival and replaces whatever pause the class had (a renewal extends or shortens it), and
// quanta 0 resumes the class at once. A class not enabled in the frame's vector keeps its state.
// The clock is the caller's (ns, TSC cycles, virtual ns): `ticks_per_s` says its rate.
//
// PfcClassPause is that rule for one class, written once: the generator keeps a PfcPause per
// port (trafficgen/host_engine.cpp: its rx path feeds it, its tx loop asks paused() before each
// burst), a switch one PfcClassPause per port and class (switch/dataplane/pfc.h, which converts
// the quanta itself and counts the frames per class).
//
// Plain state, no allocation. The generator's metrics read the engine's counters, never this;
// the switch's read paused_ticks() with a relaxed load (its `load` argument).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>

#include "net/pfc_frame.h"

namespace spraylab::net {

// One class's pause: [start, until) the current (or last) pause, closed the ticks of those before.
class PfcClassPause {
 public:
  // A pause of `ticks` (nonzero quanta, converted by the caller) arrived at `now`: it replaces the
  // current one, or starts a new one when the last has run out.
  void pause(uint64_t ticks, uint64_t now) {
    close_if_over(now);
    until_ = now + ticks;
  }
  // A resume (quanta 0) arrived at `now`: a running pause ends there.
  void resume(uint64_t now) {
    close_if_over(now);
    closed_ += now - start_;
    start_ = until_ = now;
  }

  // True while the class may start no frame.
  bool paused(uint64_t now) const { return now < until_; }
  // When the pause ends (or ended): the transmitter's next chance.
  uint64_t until() const { return until_; }
  // The ticks the class was paused up to `now` (a pause still running counts up to `now`).
  uint64_t paused_ticks(uint64_t now) const {
    return paused_ticks(now, [](const uint64_t& v) { return v; });
  }
  // The same with `load` reading each word: a reader on another thread passes a relaxed atomic load
  // and may see the words of two pauses, which count as none running (never a negative time).
  template <typename Load>
  uint64_t paused_ticks(uint64_t now, Load load) const {
    const uint64_t start = load(start_), until = load(until_);
    const uint64_t open = start < until && start < now ? std::min(now, until) - start : 0;
    return load(closed_) + open;
  }

 private:
  // The last pause (if any) has run out: it counts in full, and the next starts at `now`.
  void close_if_over(uint64_t now) {
    if (paused(now)) return;
    closed_ += until_ - start_;
    start_ = until_ = now;
  }

  uint64_t start_ = 0, until_ = 0;
  uint64_t closed_ = 0;
};

class PfcPause {
 public:
  PfcPause() = default;
  // `rate_bps`: the port's link rate (the quanta's unit); `ticks_per_s`: the caller's clock.
  PfcPause(double rate_bps, double ticks_per_s)
      : ticks_per_quantum_(static_cast<double>(kPfcQuantumBits) * ticks_per_s / rate_bps) {}

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
      const uint16_t q = f.quanta[c];
      if (q == 0) {
        e.resumed = true;
        classes_[c].resume(now);
      } else {
        e.paused = true;
        classes_[c].pause(quanta_ticks(q), now);
      }
    }
    return e;
  }

  // True while class c may start no frame.
  bool paused(uint8_t c, uint64_t now) const { return classes_[c].paused(now); }
  // When class c's pause ends (or ended): the tx loop's next chance.
  uint64_t paused_until(uint8_t c) const { return classes_[c].until(); }
  // The ticks class c was paused, up to `now` (a pause still running counts up to `now`).
  uint64_t paused_ticks(uint8_t c, uint64_t now) const { return classes_[c].paused_ticks(now); }

 private:
  double ticks_per_quantum_ = 0;
  std::array<PfcClassPause, kPfcClasses> classes_{};
};

}  // namespace spraylab::net
