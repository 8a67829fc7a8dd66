#include "fabric/run/mode.h"

#include <stdexcept>

namespace spraylab::fabric {

const char* mode_name(Mode m) {
  for (const ModeInfo& i : kModes) {
    if (i.id == m) return i.name.data();  // the table's literals are NUL-terminated
  }
  return "?";
}

std::optional<Mode> find_mode(std::string_view name) { return names::find(kModes, name); }

std::string mode_choices() {
  std::string out;
  for (size_t i = 0; i < kModes.size(); ++i) {
    if (i > 0) out += i + 1 == kModes.size() ? " or " : ", ";
    out += kModes[i].name;
  }
  return out;
}

Mode parse_mode(const std::string& text) {
  if (const auto m = find_mode(text)) return *m;
  throw std::invalid_argument("mode '" + text + "': expected " + mode_choices());
}

}  // namespace spraylab::fabric
