// The --metrics-address and --no-metrics options of every spraylab process that serves metrics
// (spraylab-switch, spraylab-gen): declared once, with the role's default port. The default host
// is loopback; serving to other machines takes an address given on purpose.
#pragma once

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "monitoring/exposer.h"

namespace spraylab::monitoring {

class MetricsOptions {
 public:
  explicit MetricsOptions(uint16_t default_port) : default_port_(default_port) {}

  void add_to(CLI::App& app) {
    app.add_option("--metrics-address", address_,
                   fmt::format("Serve Prometheus metrics at HOST:PORT/metrics (default {}:{}: "
                               "this machine only, or any free port with a warning when that one "
                               "is taken; port 0: any free port, printed at start-up). "
                               "0.0.0.0 or a NIC's address lets other machines scrape it, "
                               "without authentication (docs/monitoring.md)",
                               kDefaultHost, default_port_));
    app.add_flag("--no-metrics", off_, "Serve no Prometheus metrics");
  }
  // Where to serve, or nothing with --no-metrics. Throws std::invalid_argument for a bad address.
  std::optional<Address> address() const {
    if (off_) return std::nullopt;
    return parse_address(address_, default_port_);
  }
  // No address was given: start_exposer may fall back to a free port if the default is taken.
  bool is_default() const { return address_.empty(); }

  // As --metrics-address HOST:PORT sets it (a launcher writing a process's command line).
  void set_address(std::string address) { address_ = std::move(address); }
  // The options that differ from their defaults, as add_to parses them back.
  std::vector<std::string> to_argv() const {
    std::vector<std::string> argv;
    if (!address_.empty()) argv.insert(argv.end(), {"--metrics-address", address_});
    if (off_) argv.push_back("--no-metrics");
    return argv;
  }

 private:
  uint16_t default_port_;
  std::string address_;
  bool off_ = false;
};

}  // namespace spraylab::monitoring
