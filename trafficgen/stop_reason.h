// The one list of reasons a run stops: spraylab-gen's loop, the fabric's virtual and in-process
// runs, results.json, summary.json and the docs test (docs/runner.md) read it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace spraylab::gen {

#define SPRAYLAB_STOP_REASONS(X)                                               \
  X(kCompleted, "completed", "every message of the workload was acknowledged") \
  X(kDuration, "duration", "measurement.duration (or --duration) elapsed")     \
  X(kTimeout, "timeout", "the wall-clock or fabric-clock guard passed")        \
  X(kSignal, "signal", "spraylab-gen received SIGINT or SIGTERM")              \
  X(kStalled, "stalled", "virtual time: nothing left to happen but messages are not done")

enum class StopReason : uint8_t {
#define SPRAYLAB_ENUM(id, name, doc) id,
  SPRAYLAB_STOP_REASONS(SPRAYLAB_ENUM)
#undef SPRAYLAB_ENUM
};

inline constexpr std::array<std::string_view, 5> kStopReasonNames = {
#define SPRAYLAB_NAME(id, name, doc) name,
    SPRAYLAB_STOP_REASONS(SPRAYLAB_NAME)
#undef SPRAYLAB_NAME
};

inline constexpr std::array<std::string_view, 5> kStopReasonDocs = {
#define SPRAYLAB_DOC(id, name, doc) doc,
    SPRAYLAB_STOP_REASONS(SPRAYLAB_DOC)
#undef SPRAYLAB_DOC
};

constexpr std::string_view to_string(StopReason r) {
  return kStopReasonNames[static_cast<size_t>(r)];
}

}  // namespace spraylab::gen
