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
  X(kReps, "reps", "REPS: recycle the entropies whose ACKs came back unmarked")

enum class EntropyMode : uint8_t {
#define SPRAYLAB_ENUM(id, name, doc) id,
  SPRAYLAB_ENTROPY_MODES(SPRAYLAB_ENUM)
#undef SPRAYLAB_ENUM
};

inline constexpr std::array<std::string_view, 3> kEntropyModeNames = {
#define SPRAYLAB_NAME(id, name, doc) name,
    SPRAYLAB_ENTROPY_MODES(SPRAYLAB_NAME)
#undef SPRAYLAB_NAME
};

inline constexpr std::array<std::string_view, 3> kEntropyModeDocs = {
#define SPRAYLAB_DOC(id, name, doc) doc,
    SPRAYLAB_ENTROPY_MODES(SPRAYLAB_DOC)
#undef SPRAYLAB_DOC
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
