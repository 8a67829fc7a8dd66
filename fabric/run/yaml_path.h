// Dotted key paths into a YAML document, as the loader prints them in errors
// ("workload.message_size", "load_balancer.layers.1.algorithm", "topology.links[2].rate"):
// `spraylab run --sweep` sets values through them, and maps a loader error on the changed
// document back to a position in the file the user wrote.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <variant>
#include <vector>

namespace spraylab::fabric {

// One step of a path: a map key or a list index.
using PathStep = std::variant<std::string, size_t>;

// "a.b[2].c" → {"a", "b", 2, "c"}. Throws std::invalid_argument for an empty step or a
// malformed index.
std::vector<PathStep> parse_key_path(const std::string& path);

// Sets `path` in `root` to `value`, creating maps for missing keys. Throws
// std::invalid_argument when a step crosses a scalar or a list (maps only are created) or an
// index is past a list's end; the message names the step.
void set_path(YAML::Node& root, const std::vector<PathStep>& path, const YAML::Node& value);

// Where `path` is written in `root` (yaml-cpp's 0-based mark); for a path that does not exist,
// where its deepest existing ancestor is. Never throws: unparsable paths give the root's mark.
YAML::Mark mark_of(const YAML::Node& root, const std::string& path);

}  // namespace spraylab::fabric
