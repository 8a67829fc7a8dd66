#include "conf/config_error.h"

#include <fmt/format.h>

namespace spraylab::conf {

std::string ConfigError::format(const std::string& file, int line, int column,
                                const std::string& path, const std::string& message) {
  const std::string where = line > 0 ? fmt::format("{}:{}:{}", file, line, column) : file;
  return path.empty() ? fmt::format("{}: {}", where, message)
                      : fmt::format("{}: {}: {}", where, path, message);
}

}  // namespace spraylab::conf
