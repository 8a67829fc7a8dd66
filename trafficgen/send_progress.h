// spraylab-gen's --progress line (trafficgen/spraylab_gen.cpp).
#pragma once

#include <fmt/format.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>

#include "trafficgen/engines.h"

namespace spraylab::gen {

// --progress: messages done/total, send rate, elapsed; rewritten in place five times a second on
// a terminal, else one line a second.
class SendProgress {
 public:
  SendProgress(bool on, uint64_t start_tsc, uint64_t hz)
      : on_(on), tty_(isatty(STDERR_FILENO)), hz_(hz), next_(start_tsc), last_tsc_(start_tsc) {}
  void update(uint64_t now, double elapsed, const Engines& engines) {
    if (!on_ || now < next_) return;
    const uint64_t b = engines.tx_bytes();
    const double dt = static_cast<double>(now - last_tsc_) / static_cast<double>(hz_);
    const double gbps = dt > 0 ? static_cast<double>(b - last_bytes_) * 8 / dt / 1e9 : 0;
    fmt::print(stderr, "{}messages {}/{}  sending {:.2f} Gb/s  elapsed {:.1f} s{}",
               tty_ ? "\r" : "", engines.done(), engines.total(), gbps, elapsed,
               tty_ ? "   " : "\n");
    last_bytes_ = b;
    last_tsc_ = now;
    next_ = now + (tty_ ? hz_ / 5 : hz_);
  }
  // Ends the line being rewritten on a terminal.
  void end_line() const {
    if (on_ && tty_) fmt::print(stderr, "\n");
  }

 private:
  bool on_, tty_;
  uint64_t hz_, next_, last_tsc_, last_bytes_ = 0;
};

}  // namespace spraylab::gen
