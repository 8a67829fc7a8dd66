// The HTTP endpoint Prometheus scrapes: GET /metrics on a configurable address, serving the
// process's registry. Default ports per role (docs/monitoring.md): switch 9561, generator 9562,
// the spraylab tool 9563; port 0 lets the OS choose (port() says which).
//
// It serves with civetweb, the HTTP server prometheus-cpp's own Exposer uses, but writes the
// text with text_format.h and gzips at zlib's fastest level: prometheus-cpp 1.0.1's Exposer
// serializes through an ostream and gzips at the default level, 4-6 ms for a 64-port switch's
// scrape on this project's test machine, against about 1 ms here (docs/BENCHMARKS.md).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "monitoring/registry.h"

class CivetServer;

namespace spraylab::monitoring {

inline constexpr std::string_view kDefaultHost = "127.0.0.1";
inline constexpr uint16_t kSwitchPort = 9561;
inline constexpr uint16_t kGenPort = 9562;
inline constexpr uint16_t kToolPort = 9563;

struct Address {
  std::string host;  // an IPv4 address, a name, or an IPv6 address without brackets
  uint16_t port = 0;
  std::string to_string() const;  // "127.0.0.1:9561", "[::1]:9561"
};

// "HOST:PORT", "HOST" (the default port), ":PORT" (the default host) or "[IPV6]:PORT". Throws
// std::invalid_argument naming the text and what was expected.
Address parse_address(std::string_view text, uint16_t default_port);

// Runs a function on a thread of the caller's choosing and returns when it has returned. The
// exposer creates its server threads inside it, so they inherit that thread's CPU affinity (a DPDK
// process passes run_on_control_thread from eal_thread.h: off the data-path lcores).
using ThreadStarter = std::function<void(const std::function<void()>&)>;

class Exposer {
 public:
  // Listens now; throws std::runtime_error naming the address when it cannot (port in use).
  Exposer(const Address& address, std::shared_ptr<Registry> registry,
          const ThreadStarter& start_on = {});
  ~Exposer();
  Exposer(const Exposer&) = delete;
  Exposer& operator=(const Exposer&) = delete;

  uint16_t port() const;  // the port it listens on
  std::string url() const;

 private:
  class Handler;

  Address address_;
  std::unique_ptr<Handler> handler_;  // outlives the server that calls it
  std::unique_ptr<CivetServer> server_;
};

// True when every address `host` resolves to is a loopback one (127.0.0.0/8, ::1, ::ffff:127.x):
// only processes on this machine can connect. False for a wildcard (0.0.0.0, ::), any other
// address, and a name that does not resolve.
bool is_loopback_host(const std::string& host);

// Starts an exposer on `address`. When the address is only the role's default (the user named
// none) and another process already listens there, it listens on a port the OS picks instead and
// says so in `*note`: several processes of one role on a machine all serve metrics. An address
// the user named must be free (std::runtime_error). The default is loopback; an address that is
// not (0.0.0.0, a NIC's) is the user's explicit choice, and `*note` then says that other machines
// can reach the endpoint. `*note` is empty when there is nothing to say.
std::unique_ptr<Exposer> start_exposer(const Address& address, bool is_default,
                                       std::shared_ptr<Registry> registry,
                                       const ThreadStarter& start_on, std::string* note);

}  // namespace spraylab::monitoring
