// The one list of path-entropy modes (`workload.entropy`, spraylab-gen's --entropy): the schema,
// the generator's CLI, the results and the docs test read it (entropy.h implements the modes).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "conf/name_list.h"

namespace spraylab::gen {

enum class EntropyMode : uint8_t {
  kFlow,
  kPacket,
  kReps,
  kDrb,
};

struct EntropyModeInfo {
  EntropyMode id;
  std::string_view name;
  std::string_view doc;
};

inline constexpr std::array<EntropyModeInfo, 4> kEntropyModes{{
    {EntropyMode::kFlow, "flow", "one fixed UDP source port per flow: ECMP"},
    {EntropyMode::kPacket, "packet", "a fresh random source port per packet: host-based spraying"},
    {EntropyMode::kReps, "reps", "REPS: recycle the entropies whose ACKs came back unmarked"},
    {EntropyMode::kDrb, "drb",
     "DRB: rotate each destination's packets over the entropy_range values"},
}};
static_assert(names::in_enum_order(kEntropyModes));

inline constexpr std::array<std::string_view, 4> kEntropyModeNames = names::names_of(kEntropyModes);
inline constexpr std::array<std::string_view, 4> kEntropyModeDocs = names::docs_of(kEntropyModes);

// The settings of the varying modes (workload keys entropy_range, reps_buffer, reps_freezing).
// Defaults: the UEC htsim reference's (datacenter/main_uec.cpp: path_entropy_size = 64;
// buffer_reps.cpp: repsBufferSize = 8, repsUseFreezing = true).
inline constexpr uint32_t kMaxEntropyRange = 16384;  // the IANA ephemeral ports 49152..65535
inline constexpr uint32_t kMaxRepsBuffer = 1024;
struct EntropyParams {
  uint32_t range = 64;        // distinct values a host draws from: paths it can name
  uint32_t reps_buffer = 8;   // reps: good entropies kept per connection
  bool reps_freezing = true;  // reps: a timeout freezes the connection on its kept entropies
};

constexpr std::string_view to_string(EntropyMode m) {
  return kEntropyModeNames[static_cast<size_t>(m)];
}

constexpr std::optional<EntropyMode> entropy_mode_from_name(std::string_view name) {
  for (size_t i = 0; i < kEntropyModeNames.size(); ++i) {
    if (kEntropyModeNames[i] == name) return static_cast<EntropyMode>(i);
  }
  return std::nullopt;
}

}  // namespace spraylab::gen
