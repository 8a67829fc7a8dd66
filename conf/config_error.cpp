#include "conf/config_error.h"

#include <fmt/format.h>

namespace spraylab::conf {
namespace {

// what() must stay one line whatever the YAML held: a quoted scalar the message quotes, or a
// yaml-cpp message that ends with the offending character, may carry a newline or another
// control character. They are written as C escapes (found by tests/fuzz/loader_fuzz.cpp).
std::string one_line(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      out += fmt::format("\\x{:02x}", c);
    } else {
      out += ch;
    }
  }
  return out;
}

}  // namespace

std::string ConfigError::format(const std::string& file, int line, int column,
                                const std::string& path, const std::string& message) {
  const std::string where = line > 0 ? fmt::format("{}:{}:{}", file, line, column) : file;
  return one_line(path.empty() ? fmt::format("{}: {}", where, message)
                               : fmt::format("{}: {}: {}", where, path, message));
}

}  // namespace spraylab::conf
