// The --metrics-address and --no-metrics options of every spraylab process that serves metrics
// (spraylab-switch, spraylab-gen): declared once, with the role's default port. The default host
// is loopback; serving to other machines takes an address given on purpose.
#pragma once

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>

#include "monitoring/exposer.h"

namespace spraylab::monitoring {

class MetricsOptions {
 public:
  explicit MetricsOptions(uint16_t default_port) : default_port_(default_port) {}

  void add_to(CLI::App& app) {
    app.add_option("--metrics-address", address_,
                   fmt::format("Serve Prometheus metrics at HOST:PORT/metrics (default {}:{}: "
                               "this machine only; port 0: any free port, printed at start-up). "
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

 private:
  uint16_t default_port_;
  std::string address_;
  bool off_ = false;
};

}  // namespace spraylab::monitoring
