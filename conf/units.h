// Quantities written with units in experiment files: rates, times, sizes, percentages.
// Parsers return nullopt for text that is not such a quantity; the loader turns that into a
// ConfigError that names the key. Formatters write a value the way a user would, so defaults
// and resolved configs read like the files that produce them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace spraylab::conf {

// Bits per second: "100Gbps", "800G", "10Mbps", "1.6Tbps", or a plain number ("5e9").
std::optional<double> parse_rate_bps(std::string_view text);
// Nanoseconds: "500ns", "0.5us", "1ms", "2s", or a plain number ("500").
std::optional<double> parse_time_ns(std::string_view text);
// Bytes: "800KB" (x1000), "1MiB" (x1024), "1MB", "4096". Fractions must come out whole.
std::optional<uint64_t> parse_size_bytes(std::string_view text);
// A percentage "10%" as 10; only text ending in '%' is a percentage.
std::optional<double> parse_percent(std::string_view text);

std::string format_rate(double bps);      // 100e9 -> "100Gbps"
std::string format_time(double ns);       // 500 -> "500ns", 1500 -> "1.5us"
std::string format_size(uint64_t bytes);  // 800000 -> "800KB", 1048576 -> "1MiB", 4096 -> "4096"

}  // namespace spraylab::conf
