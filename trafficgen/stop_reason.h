// The one list of reasons a run stops: spraylab-gen's loop, the fabric's virtual and in-process
// runs, results.json, summary.json and the docs test (docs/runner.md) read it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "conf/name_list.h"

namespace spraylab::gen {

enum class StopReason : uint8_t {
  kCompleted,
  kDuration,
  kTimeout,
  kSignal,
  kStalled,
};

struct StopReasonInfo {
  StopReason id;
  std::string_view name;
  std::string_view doc;
};

inline constexpr std::array<StopReasonInfo, 5> kStopReasons{{
    {StopReason::kCompleted, "completed", "every message of the workload was acknowledged"},
    {StopReason::kDuration, "duration", "measurement.duration (or --duration) elapsed"},
    {StopReason::kTimeout, "timeout", "the wall-clock or fabric-clock guard passed"},
    {StopReason::kSignal, "signal", "spraylab-gen received SIGINT or SIGTERM"},
    {StopReason::kStalled, "stalled",
     "virtual time: nothing left to happen but messages are not done"},
}};
static_assert(names::in_enum_order(kStopReasons));

inline constexpr std::array<std::string_view, 5> kStopReasonNames = names::names_of(kStopReasons);
inline constexpr std::array<std::string_view, 5> kStopReasonDocs = names::docs_of(kStopReasons);

constexpr std::string_view to_string(StopReason r) {
  return kStopReasonNames[static_cast<size_t>(r)];
}

}  // namespace spraylab::gen
