// The one list of path-entropy modes (`workload.entropy`, spraylab-gen's --entropy): the schema,
// the generator's CLI, the results and the docs test read it (entropy.h implements the modes).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace spraylab::gen {

#define SPRAYLAB_ENTROPY_MODES(X)                                                    \
  X(kFlow, "flow", "one fixed UDP source port per flow: ECMP")                       \
  X(kPacket, "packet", "a fresh random source port per packet: host-based spraying") \
  X(kReps, "reps", "REPS: recycle the entropies whose ACKs came back unmarked")      \
  X(kDrb, "drb", "DRB: rotate each destination's packets over the entropy_range values")

enum class EntropyMode : uint8_t {
#define SPRAYLAB_ENUM(id, name, doc) id,
  SPRAYLAB_ENTROPY_MODES(SPRAYLAB_ENUM)
#undef SPRAYLAB_ENUM
};

inline constexpr std::array<std::string_view, 4> kEntropyModeNames = {
#define SPRAYLAB_NAME(id, name, doc) name,
    SPRAYLAB_ENTROPY_MODES(SPRAYLAB_NAME)
#undef SPRAYLAB_NAME
};

inline constexpr std::array<std::string_view, 4> kEntropyModeDocs = {
#define SPRAYLAB_DOC(id, name, doc) doc,
    SPRAYLAB_ENTROPY_MODES(SPRAYLAB_DOC)
#undef SPRAYLAB_DOC
};

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
