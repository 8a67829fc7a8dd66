#include "fabric/run/text_file.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace spraylab::fabric {

std::string json_text(const nlohmann::ordered_json& j) { return j.dump(2) + "\n"; }

void write_file(const std::string& path, const std::string& text) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  std::error_code error;
  if (!parent.empty()) std::filesystem::create_directories(parent, error);
  if (error) {
    throw std::runtime_error(fmt::format("cannot create {}: {}", parent.string(), error.message()));
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (out) out << text;
  if (!out)
    throw std::runtime_error(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
}

std::optional<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace spraylab::fabric
