#include "conf/units.h"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <cmath>
#include <utility>

namespace spraylab::conf {
namespace {

using Unit = std::pair<std::string_view, double>;

constexpr std::array kRateUnits{
    Unit{"", 1},       Unit{"bps", 1},    Unit{"K", 1e3},  Unit{"k", 1e3},
    Unit{"Kbps", 1e3}, Unit{"kbps", 1e3}, Unit{"M", 1e6},  Unit{"Mbps", 1e6},
    Unit{"G", 1e9},    Unit{"Gbps", 1e9}, Unit{"T", 1e12}, Unit{"Tbps", 1e12},
};
constexpr std::array kTimeUnits{
    Unit{"", 1}, Unit{"ns", 1}, Unit{"us", 1e3}, Unit{"µs", 1e3}, Unit{"ms", 1e6}, Unit{"s", 1e9},
};
constexpr std::array kSizeUnits{
    Unit{"", 1},         Unit{"B", 1},           Unit{"KB", 1e3},
    Unit{"kB", 1e3},     Unit{"MB", 1e6},        Unit{"GB", 1e9},
    Unit{"KiB", 1024.0}, Unit{"MiB", 1048576.0}, Unit{"GiB", 1073741824.0},
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

// A non-negative finite number followed by one of `units` (an optional space between).
template <size_t N>
std::optional<double> parse_with_units(std::string_view text, const std::array<Unit, N>& units) {
  text = trim(text);
  if (text.empty() || text.front() == '-') return std::nullopt;
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || !std::isfinite(value)) return std::nullopt;
  std::string_view suffix = trim(text.substr(end - text.data()));
  for (const auto& [name, scale] : units) {
    if (suffix != name) continue;
    // A finite number times its unit may overflow ("1e300s"): infinity is no rate or time.
    const double scaled = value * scale;
    if (!std::isfinite(scaled)) return std::nullopt;
    return scaled;
  }
  return std::nullopt;
}

// value in the largest of `units` (largest first) that it reaches, written with the shortest
// decimal that reads back exactly ("1.5us", "100Gbps").
template <size_t N>
std::string largest_unit(double value, const std::array<Unit, N>& units) {
  for (const auto& [name, scale] : units) {
    if (value >= scale || scale == units.back().second) {
      return fmt::format("{}{}", value / scale, name);
    }
  }
  return fmt::format("{}", value);
}

}  // namespace

std::optional<double> parse_rate_bps(std::string_view text) {
  return parse_with_units(text, kRateUnits);
}

std::optional<double> parse_time_ns(std::string_view text) {
  return parse_with_units(text, kTimeUnits);
}

std::optional<uint64_t> parse_size_bytes(std::string_view text) {
  auto bytes = parse_with_units(text, kSizeUnits);
  // 2^64 is not representable as uint64_t; anything at or above it is not a size.
  if (!bytes || *bytes != std::floor(*bytes) || *bytes >= 18446744073709551616.0) {
    return std::nullopt;
  }
  return static_cast<uint64_t>(*bytes);
}

std::optional<double> parse_percent(std::string_view text) {
  text = trim(text);
  if (text.empty() || text.back() != '%') return std::nullopt;
  return parse_with_units(text.substr(0, text.size() - 1), std::array{Unit{"", 1}});
}

std::string format_rate(double bps) {
  return largest_unit(bps, std::array{Unit{"Tbps", 1e12}, Unit{"Gbps", 1e9}, Unit{"Mbps", 1e6},
                                      Unit{"Kbps", 1e3}, Unit{"bps", 1}});
}

std::string format_time(double ns) {
  return largest_unit(ns,
                      std::array{Unit{"s", 1e9}, Unit{"ms", 1e6}, Unit{"us", 1e3}, Unit{"ns", 1}});
}

std::string format_size(uint64_t bytes) {
  // Prefer the unit that divides exactly, so the text parses back to the same number.
  constexpr std::array kUnits{
      std::pair<uint64_t, std::string_view>{1'000'000'000, "GB"},
      std::pair<uint64_t, std::string_view>{1ull << 30, "GiB"},
      std::pair<uint64_t, std::string_view>{1'000'000, "MB"},
      std::pair<uint64_t, std::string_view>{1ull << 20, "MiB"},
      std::pair<uint64_t, std::string_view>{1'000, "KB"},
  };
  for (const auto& [scale, unit] : kUnits) {
    if (bytes != 0 && bytes % scale == 0) return fmt::format("{}{}", bytes / scale, unit);
  }
  return std::to_string(bytes);
}

}  // namespace spraylab::conf
