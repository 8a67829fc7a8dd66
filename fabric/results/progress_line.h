// The runner's progress on stderr: on a terminal one line rewritten in place, otherwise (a log,
// a pipe, CI) plain lines.
#pragma once

#include <cstdio>
#include <mutex>
#include <string>

#include "fabric/run/result.h"

namespace spraylab::fabric {

// "850 ns", "84.2 us", "1.25 ms", "2.50 s".
std::string format_duration_ns(double ns);

// "[2/7] ofan: messages 12/16, clock 84.2 us, wall 0.4 s"
std::string progress_text(const std::string& label, const Progress& p);

class ProgressLine {
 public:
  ProgressLine(FILE* out, bool terminal) : out_(out), terminal_(terminal) {}

  bool terminal() const { return terminal_; }
  void update(const std::string& label, const Progress& p);
  // A line that stays (a variant's result, a warning): clears the progress line first.
  void print(const std::string& line);

 private:
  FILE* out_;
  bool terminal_;
  bool dirty_ = false;  // a progress line is on screen
  std::mutex mutex_;    // variants may report from several threads (--jobs)
};

}  // namespace spraylab::fabric
