// The three fabric modes (docs/architecture.md, "Three modes"): the one list of their names, read
// by the runner, the command line, run.json and the docs.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "conf/name_list.h"

namespace spraylab::fabric {

// kVirtual    a counter advanced by an event loop (the next link arrival, shaper departure or
//             host timer); single-threaded and deterministic: one seed, one result (emu/).
// kInProcess  the TSC; nodes spread over the EAL worker lcores, each polled in turn (emu/).
// kNamespaced one spraylab-switch / spraylab-gen process per node in network namespaces
//             (namespaced/).
enum class Mode { kVirtual, kInProcess, kNamespaced };

struct ModeInfo {
  Mode id;
  std::string_view name;  // `spraylab run --mode NAME`, run.json's "mode"
};

inline constexpr std::array<ModeInfo, 3> kModes{{
    {Mode::kVirtual, "virtual"},
    {Mode::kInProcess, "inprocess"},
    {Mode::kNamespaced, "namespaced"},
}};
static_assert(names::in_enum_order(kModes));

const char* mode_name(Mode m);
std::optional<Mode> find_mode(std::string_view name);
// find_mode, or std::invalid_argument naming the choices.
Mode parse_mode(const std::string& text);
// "virtual, inprocess or namespaced", for messages and --help.
std::string mode_choices();

}  // namespace spraylab::fabric
