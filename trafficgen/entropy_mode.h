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
  kOblivious,
  kBitmap,
  kMixed,
};

struct EntropyModeInfo {
  EntropyMode id;
  std::string_view name;
  std::string_view doc;
};

inline constexpr std::array<EntropyModeInfo, 7> kEntropyModes{{
    {EntropyMode::kFlow, "flow", "one fixed UDP source port per flow: ECMP"},
    {EntropyMode::kPacket, "packet", "a fresh random source port per packet: host-based spraying"},
    {EntropyMode::kReps, "reps", "REPS: recycle the entropies whose ACKs came back unmarked"},
    {EntropyMode::kDrb, "drb",
     "DRB: rotate each destination's packets over the entropy_range values"},
    {EntropyMode::kOblivious, "oblivious",
     "UEC oblivious: each flow cycles its entropy_range values in a per-flow XOR-permuted order"},
    {EntropyMode::kBitmap, "bitmap",
     "UEC bitmap: the oblivious cycle skipping values penalised by ECN, NACKs and timeouts"},
    {EntropyMode::kMixed, "mixed",
     "UEC mixed (the reference's default): recycle values whose ACKs came back unmarked, else "
     "bitmap"},
}};
static_assert(names::in_enum_order(kEntropyModes));

inline constexpr std::array<std::string_view, kEntropyModes.size()> kEntropyModeNames =
    names::names_of(kEntropyModes);
inline constexpr std::array<std::string_view, kEntropyModes.size()> kEntropyModeDocs =
    names::docs_of(kEntropyModes);

// The settings of the varying modes (workload keys entropy_range, reps_buffer, reps_freezing,
// bitmap_ecn_penalty, bitmap_nack_penalty, bitmap_max_penalty). Defaults: the UEC htsim
// reference's (datacenter/main_uec.cpp: path_entropy_size = 64; buffer_reps.cpp: repsBufferSize
// = 8, repsUseFreezing = true; uec_mp.cpp UecMpBitmap: penalties 1 for ECN, 4 for a NACK, and
// _max_penalty = 15, which a timeout adds).
inline constexpr uint32_t kMaxEntropyRange = 16384;  // the IANA ephemeral ports 49152..65535
inline constexpr uint32_t kMaxRepsBuffer = 1024;
struct EntropyParams {
  uint32_t range = 64;              // distinct values a host draws from: paths it can name
  uint32_t reps_buffer = 8;         // reps: good entropies kept per connection
  bool reps_freezing = true;        // reps: a timeout freezes the connection on its kept entropies
  uint8_t bitmap_ecn_penalty = 1;   // bitmap, mixed: added to a value whose ACK echoes ECN
  uint8_t bitmap_nack_penalty = 4;  // bitmap, mixed: added to a value whose packet was trimmed
  uint8_t bitmap_max_penalty = 15;  // bitmap, mixed: the cap, and what a timeout adds
};

constexpr bool is_power_of_two(uint32_t n) { return n != 0 && (n & (n - 1)) == 0; }
// oblivious, bitmap and mixed mask an entropy with range - 1 (uec_mp.cpp: "must be a power of 2").
constexpr bool needs_power_of_two_range(EntropyMode m) {
  return m == EntropyMode::kOblivious || m == EntropyMode::kBitmap || m == EntropyMode::kMixed;
}
// The modes that read the bitmap_* keys.
constexpr bool uses_bitmap(EntropyMode m) {
  return m == EntropyMode::kBitmap || m == EntropyMode::kMixed;
}

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
