// Command-line checks the programs share (header-only: the conf library itself does not use
// CLI11). CLI11's own CLI::PositiveNumber says "Value 0 not in range 0.000000 to 1797693...",
// the largest double in 309 digits; these say what is wanted.
#pragma once

#include <CLI/CLI.hpp>

#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "conf/units.h"

namespace spraylab::conf {

inline const CLI::Validator kPositiveNumber(
    [](std::string& text) -> std::string {
      double v = 0;
      if (CLI::detail::lexical_cast(text, v) && std::isfinite(v) && v > 0) return {};
      return "expected a positive number, found " + text;
    },
    "POSITIVE");

inline const CLI::Validator kNonNegativeNumber(
    [](std::string& text) -> std::string {
      double v = 0;
      if (CLI::detail::lexical_cast(text, v) && std::isfinite(v) && v >= 0) return {};
      return "expected a number >= 0, found " + text;
    },
    "NONNEGATIVE");

// A whole number from `min` to `max` written in full: CLI11 reads "0" where a count must be at
// least 1, and clamps a number past 2^64 - 1 to it silently; these say so, as the loader does
// for the same keys ("expected an integer in [1, 4294967295], found 0").
inline CLI::Validator integer_in(uint64_t min, uint64_t max) {
  return CLI::Validator(
      [min, max](std::string& text) -> std::string {
        uint64_t v = 0;
        const char* end = text.data() + text.size();
        const auto [ptr, ec] = std::from_chars(text.data(), end, v);
        if (!text.empty() && ec == std::errc() && ptr == end && v >= min && v <= max) return {};
        return "expected an integer in [" + std::to_string(min) + ", " + std::to_string(max) +
               "], found " + text;
      },
      "");  // the option's type already says UINT in --help
}

// A file a program writes at its end (--results, --stats-json): its folder must exist and be
// writable now, not found missing after a run of minutes (the file was then silently not
// written). Checked on the folder, so that nothing is created before the run.
inline const CLI::Validator kWritableFile(
    [](std::string& text) -> std::string {
      namespace fs = std::filesystem;
      if (text.empty()) return "expected a file path, found ''";
      std::error_code ec;
      const fs::path path(text);
      if (fs::is_directory(path, ec)) return text + " is a folder; expected a file path";
      const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
      if (!fs::is_directory(dir, ec)) {
        return "the folder " + dir.string() + " of " + text + " does not exist";
      }
      if (::access(dir.c_str(), W_OK) != 0) {
        return "the folder " + dir.string() + " of " + text + " is not writable";
      }
      if (fs::exists(path, ec) && ::access(path.c_str(), W_OK) != 0) {
        return text + " is not writable";
      }
      return {};
    },
    "FILE");

// Writes `text` to `path`; returns what went wrong, naming `option` and the path (empty when
// written): a write that failed (a full disk, a folder removed since the start) was silent.
// Not an exception: the programs write these on their way out.
inline std::string write_output_file(const std::string& path, const std::string& text,
                                     std::string_view option) {
  std::ofstream out(path);
  out << text;
  out.close();
  if (out) return {};
  return std::string(option) + " " + path + ": could not be written: " + std::strerror(errno);
}

// A path given as '' (an unset shell variable) would silently mean the default.
inline const CLI::Validator kNonEmptyPath(
    [](std::string& text) -> std::string {
      return text.empty() ? "expected a path, found ''" : std::string();
    },
    "PATH");

// The longest sleep of a polling process after empty polls (--idle-sleep, --deep-sleep of
// spraylab-switch and spraylab-gen, and of `spraylab fabric up|export`, which pass them on): a
// time from 1 us to 1 s, or '' for none. Checked by this one function, so that a value the
// launcher accepts is one every process accepts. Returns the time in ns (0 for ''), or nullopt.
inline std::optional<uint64_t> sleep_cap_ns(std::string_view text) {
  if (text.empty()) return 0;
  const std::optional<double> ns = parse_time_ns(text);
  if (!ns || *ns < 1e3 || *ns > 1e9) return std::nullopt;
  return static_cast<uint64_t>(*ns);
}

// sleep_cap_ns as a CLI11 check; `empty_means` says what '' does ("busy polling").
inline CLI::Validator sleep_cap_check(const std::string& empty_means) {
  return CLI::Validator(
      [empty_means](std::string& text) -> std::string {
        if (sleep_cap_ns(text)) return {};
        return "expected a time from 1us to 1s, e.g. 2ms, or '' for " + empty_means + "; found " +
               text;
      },
      "TIME");
}

}  // namespace spraylab::conf
