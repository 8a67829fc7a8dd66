// Writing the text files every part of the fabric leaves behind (results, exports), one way.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace spraylab::fabric {

// The JSON as files are written here: two-space indent, a final newline.
std::string json_text(const nlohmann::ordered_json& j);

// Writes `text` to `path` (creating its folder), or throws std::runtime_error naming the path
// and the reason.
void write_file(const std::string& path, const std::string& text);

// The whole of the file at `path`, or nullopt if it cannot be opened (absent, unreadable).
std::optional<std::string> read_file(const std::string& path);

}  // namespace spraylab::fabric
