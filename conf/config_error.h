// The one exception the experiment loader throws. Its what() is a single line an editor can jump
// to: "file:line:column: key.path: message", line and column 1-based.
#pragma once

#include <stdexcept>
#include <string>

namespace spraylab::conf {

class ConfigError : public std::runtime_error {
 public:
  // line and column are 1-based; 0 means the problem has no position (e.g. file not found).
  // path is the dotted key path ("topology.k", "topology.links[2].a"); empty for the whole file.
  ConfigError(std::string file, int line, int column, std::string path, std::string message)
      : std::runtime_error(format(file, line, column, path, message)),
        file_(std::move(file)),
        line_(line),
        column_(column),
        path_(std::move(path)),
        message_(std::move(message)) {}

  const std::string& file() const { return file_; }
  int line() const { return line_; }
  int column() const { return column_; }
  const std::string& path() const { return path_; }
  const std::string& message() const { return message_; }

 private:
  static std::string format(const std::string& file, int line, int column, const std::string& path,
                            const std::string& message);

  std::string file_;
  int line_;
  int column_;
  std::string path_;
  std::string message_;
};

}  // namespace spraylab::conf
