// Replay of a recorded or hand-written trace, one message per CSV row:
//
//   start_ns,src,dst,bytes,depends_on
//   0,0,1,1048576,
//   0,1,0,1048576,
//   500,1,2,65536,0;1
//
// The header line is required; blank lines and lines starting with '#' are skipped. Row ids count
// data rows from 0 and are the message ids. depends_on is empty or a ';'-separated list of row ids
// (earlier or later rows; cycles are an error). A row starts start_ns after it becomes ready: after
// its dependencies complete, or after the run starts if it has none (Message::start_ns).
#pragma once

#include <cstdint>
#include <istream>
#include <string>

#include "trafficgen/schedule.h"

namespace spraylab::gen {

// A bad trace: what() is "<source>:<line>: <what is wrong>".
class TraceError : public WorkloadError {
 public:
  TraceError(const std::string& source, int line, const std::string& what)
      : WorkloadError(located(source, line, what)), line_(line) {}
  int line() const { return line_; }

 private:
  // "source:line: what", or "source: what" for the file as a whole (line 0).
  static std::string located(const std::string& source, int line, const std::string& what) {
    std::string text = source;
    if (line > 0) {
      text += ':';  // not ":" + std::to_string(): GCC 12 -O3 warns falsely (-Wrestrict)
      text += std::to_string(line);
    }
    text += ": ";
    text += what;
    return text;
  }

  int line_;
};

// Parses a trace for `ranks` ranks; `source` names it in errors. One collective, "trace".
Schedule parse_trace(std::istream& in, const std::string& source, uint32_t ranks);
// Opens and parses `path`; throws TraceError (line 0) if it cannot be read.
Schedule load_trace(const std::string& path, uint32_t ranks);

}  // namespace spraylab::gen
