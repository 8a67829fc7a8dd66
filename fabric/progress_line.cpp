#include "fabric/progress_line.h"

#include <fmt/format.h>

namespace spraylab::fabric {

std::string format_duration_ns(double ns) {
  if (ns < 1e3) return fmt::format("{:.0f} ns", ns);
  if (ns < 1e6) return fmt::format("{:.1f} us", ns / 1e3);
  if (ns < 1e9) return fmt::format("{:.2f} ms", ns / 1e6);
  return fmt::format("{:.2f} s", ns / 1e9);
}

std::string progress_text(const std::string& label, const Progress& p) {
  return fmt::format("{}: messages {}/{}, clock {}, wall {:.1f} s", label, p.messages_done,
                     p.messages_total, format_duration_ns(static_cast<double>(p.clock_ns)),
                     p.wall_seconds);
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
