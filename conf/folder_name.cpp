#include "conf/folder_name.h"

#include <fmt/format.h>

namespace spraylab::conf {
namespace {

// NAME_MAX of Linux file systems: a longer name fails only when the folder is created, after
// the run.
constexpr size_t kMaxFolderName = 255;

bool is_control(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u < 0x20 || u == 0x7f;
}

}  // namespace

std::string printable(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (is_control(c)) {
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
    } else {
      out += c;
    }
  }
  return out;
}

std::optional<std::string> folder_name_problem(std::string_view name) {
  if (name.empty()) return "is empty";
  // A leading '.' covers '.' and '..' (the folder itself, its parent) and hidden names.
  if (name.front() == '.') return "starts with '.'";
  for (char c : name) {
    if (c == '/') return "contains '/'";
    if (is_control(c)) return "contains the control character " + printable(std::string(1, c));
  }
  if (name.size() > kMaxFolderName) {
    return fmt::format("is longer than {} bytes ({})", kMaxFolderName, name.size());
  }
  return std::nullopt;
}

}  // namespace spraylab::conf
