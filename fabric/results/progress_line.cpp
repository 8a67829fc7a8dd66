#include "fabric/results/progress_line.h"

#include <fmt/format.h>

namespace spraylab::fabric {

std::string format_duration_ns(double ns) {
  if (ns < 1e3) return fmt::format("{:.0f} ns", ns);
  if (ns < 1e6) return fmt::format("{:.1f} us", ns / 1e3);
  if (ns < 1e9) return fmt::format("{:.2f} ms", ns / 1e6);
  return fmt::format("{:.2f} s", ns / 1e9);
}

std::string progress_text(const std::string& label, const Progress& p) {
  std::string text = fmt::format(
      "{}: messages {}/{}, clock {}, wall {:.1f} s", label, p.messages_done, p.messages_total,
      format_duration_ns(static_cast<double>(p.clock_ns)), p.wall_seconds);
  if (p.events > 0 && p.wall_seconds > 0) {
    text += fmt::format(", events {:.2f} M ({:.2f} M/s)", static_cast<double>(p.events) * 1e-6,
                        static_cast<double>(p.events) * 1e-6 / p.wall_seconds);
  }
  // Time left at the rate so far: a guess (a run stalled on retransmission timeouts, or one
  // whose last packets wait behind deep queues, takes longer than its share of packets says).
  if (p.done_fraction > 0 && p.done_fraction < 1) {
    text += fmt::format(", {:.0f}% of packets, ETA {:.0f} s", p.done_fraction * 100,
                        p.wall_seconds * (1 - p.done_fraction) / p.done_fraction);
  }
  return text;
}

void ProgressLine::update(const std::string& label, const Progress& p) {
  const std::lock_guard lock(mutex_);
  if (terminal_) {
    // \r and erase-to-end-of-line: the line is rewritten where it stands.
    fmt::print(out_, "\r\033[K{}", progress_text(label, p));
    dirty_ = true;
  } else {
    fmt::print(out_, "{}\n", progress_text(label, p));
  }
  std::fflush(out_);
}

void ProgressLine::print(const std::string& line) {
  const std::lock_guard lock(mutex_);
  if (dirty_) fmt::print(out_, "\r\033[K");
  dirty_ = false;
  fmt::print(out_, "{}\n", line);
  std::fflush(out_);
}

}  // namespace spraylab::fabric
