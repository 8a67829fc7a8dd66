// libFuzzer target: the CSV trace reader (trafficgen/workloads/trace.cpp) on arbitrary text.
// Its documented error is TraceError ("<source>:<line>: <what>"); anything else escaping it, a
// crash, or a schedule that fails the generator's own invariants (gen::validate) is a finding.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <sstream>
#include <string>
#include <typeinfo>

#include "tests/fuzz/fuzz_check.h"
#include "trafficgen/schedule.h"
#include "trafficgen/workloads/trace.h"

namespace {

constexpr uint32_t kRanks = 16;  // enough for the seeds; rank checks see both sides of the bound
const std::string kSource = "fuzz.csv";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  spraylab::gen::Schedule schedule;
  try {
    schedule = spraylab::gen::parse_trace(in, kSource, kRanks);
  } catch (const spraylab::gen::TraceError& e) {
    const std::string what = e.what();
    FUZZ_CHECK(what.rfind(kSource + ":", 0) == 0, "error does not name the source: %s", e.what());
    FUZZ_CHECK(e.line() >= 1, "error without a line: %s", e.what());
    return 0;
  } catch (const std::exception& e) {
    FUZZ_CHECK(false, "%s escaped parse_trace: %s", typeid(e).name(), e.what());
  }
  // A trace that parses is a schedule the generator accepts.
  try {
    spraylab::gen::validate(schedule);
  } catch (const std::exception& e) {
    FUZZ_CHECK(false, "parse_trace accepted a schedule validate() rejects: %s", e.what());
  }
  FUZZ_CHECK(schedule.ranks == kRanks && schedule.collectives.size() == 1, "bad schedule shape");
  return 0;
}
