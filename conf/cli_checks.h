// Command-line checks the programs share (header-only: the conf library itself does not use
// CLI11). CLI11's own CLI::PositiveNumber says "Value 0 not in range 0.000000 to 1797693...",
// the largest double in 309 digits; these say what is wanted.
#pragma once

#include <CLI/CLI.hpp>

#include <cmath>
#include <string>

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

// A path given as '' (an unset shell variable) would silently mean the default.
inline const CLI::Validator kNonEmptyPath(
    [](std::string& text) -> std::string {
      return text.empty() ? "expected a path, found ''" : std::string();
    },
    "PATH");

}  // namespace spraylab::conf
