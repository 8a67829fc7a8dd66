#include "monitoring/exposer.h"

#include <CivetServer.h>
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zlib.h>

#include <atomic>
#include <charconv>
#include <chrono>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <thread>

#include "monitoring/text_format.h"

namespace spraylab::monitoring {

std::string Address::to_string() const {
  const bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

Address parse_address(std::string_view text, uint16_t default_port) {
  auto bad = [&](std::string_view why) {
    return std::invalid_argument(
        "metrics address '" + std::string(text) + "': " + std::string(why) +
        " (expected HOST:PORT, e.g. 127.0.0.1:" + std::to_string(default_port) + ")");
  };
  Address a{std::string(kDefaultHost), default_port};
  std::string_view host = text, port;
  if (text.starts_with('[')) {  // [v6]:port
    const size_t close = text.find(']');
    if (close == std::string_view::npos) throw bad("unclosed '['");
    host = text.substr(1, close - 1);
    const std::string_view rest = text.substr(close + 1);
    if (!rest.empty()) {
      if (!rest.starts_with(':')) throw bad("expected ':' after ']'");
      port = rest.substr(1);
      if (port.empty()) throw bad("empty port");
    }
  } else if (const size_t colon = text.rfind(':'); colon != std::string_view::npos) {
    if (text.find(':') != colon) throw bad("an IPv6 address needs brackets");
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
    if (port.empty()) throw bad("empty port");
  }
  if (!host.empty()) a.host = std::string(host);
  if (!port.empty()) {
    unsigned value = 0;
    const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (ec != std::errc() || end != port.data() + port.size() || value > 65535) {
      throw bad("port '" + std::string(port) + "' is not a number in 0..65535");
    }
    a.port = static_cast<uint16_t>(value);
  }
  return a;
}

namespace {

// gzip (RFC 1952) of `in` at zlib's fastest level: the text is repetitive, so level 1 already
// shrinks it about 15 times, at a quarter of the default level's time. False if zlib fails.
bool gzip(const std::string& in, std::string* out) {
  z_stream zs{};
  if (deflateInit2(&zs, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    return false;
  }
  out->resize(deflateBound(&zs, in.size()));
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = reinterpret_cast<Bytef*>(out->data());
  zs.avail_out = static_cast<uInt>(out->size());
  const int rc = deflate(&zs, Z_FINISH);
  out->resize(zs.total_out);
  deflateEnd(&zs);
  return rc == Z_STREAM_END;
}

}  // namespace

// GET /metrics: one scrape of the registry, gzipped when the client accepts it (Prometheus does).
class Exposer::Handler : public CivetHandler {
 public:
  explicit Handler(std::shared_ptr<Registry> registry) : registry_(std::move(registry)) {}

  bool handleGet(CivetServer*, mg_connection* conn) override {
    std::string body;
    try {
      body = registry_->serialize();
    } catch (const std::exception& e) {  // nothing may unwind into civetweb's C code
      mg_printf(conn,
                "HTTP/1.1 500 Internal Server Error\r\nContent-Type: text/plain\r\n"
                "Connection: close\r\n\r\nscrape failed: %s\n",
                e.what());
      return true;
    }
    const char* accept = mg_get_header(conn, "Accept-Encoding");
    std::string packed;
    const bool gzipped =
        accept != nullptr && std::strstr(accept, "gzip") != nullptr && gzip(body, &packed);
    if (gzipped) body.swap(packed);
    mg_printf(conn,
              "HTTP/1.1 200 OK\r\nContent-Type: %s\r\n%sContent-Length: %zu\r\n"
              "Connection: close\r\n\r\n",
              kTextContentType, gzipped ? "Content-Encoding: gzip\r\n" : "", body.size());
    mg_write(conn, body.data(), body.size());
    return true;
  }

 private:
  std::shared_ptr<Registry> registry_;
};

Exposer::Exposer(const Address& address, std::shared_ptr<Registry> registry,
                 const ThreadStarter& start_on)
    : address_(address), handler_(std::make_unique<Handler>(std::move(registry))) {
  std::exception_ptr error;
  auto listen = [&] {
    try {
      // Two server threads: Prometheus and a person with curl may scrape at once.
      server_ = std::make_unique<CivetServer>(
          std::vector<std::string>{"listening_ports", address_.to_string(), "num_threads", "2"});
    } catch (...) {
      error = std::current_exception();
    }
  };
  if (start_on) {
    start_on(listen);
  } else {
    listen();
  }
  if (error || !server_) {
    std::string why = "unknown error";
    try {
      if (error) std::rethrow_exception(error);
    } catch (const std::exception& e) {
      why = e.what();
    }
    throw std::runtime_error("metrics address " + address_.to_string() +
                             ": cannot listen (port in use or address not local?): " + why);
  }
  server_->addHandler("/metrics", handler_.get());
}

namespace {

// Connects to host:port and closes at once; false if nothing listens there.
bool knock(const std::string& host, uint16_t port) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &res) != 0) return false;
  bool ok = false;
  for (addrinfo* a = res; a != nullptr && !ok; a = a->ai_next) {
    const int fd = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
    if (fd < 0) continue;
    ok = connect(fd, a->ai_addr, a->ai_addrlen) == 0;
    close(fd);
  }
  freeaddrinfo(res);
  return ok;
}

}  // namespace

Exposer::~Exposer() {
  // civetweb's listener polls with a 2 s timeout and only then sees that it should stop, so a
  // plain shutdown takes 2 s. Connections wake it: knock until the server is gone.
  std::string host = address_.host;
  if (host == "0.0.0.0" || host.empty()) host = "127.0.0.1";
  if (host == "::") host = "::1";
  const uint16_t port = this->port();
  std::atomic<bool> stopped{false};
  std::thread waker([&] {
    while (!stopped.load()) {
      knock(host, port);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
  server_.reset();
  stopped.store(true);
  waker.join();
}

uint16_t Exposer::port() const {
  const auto ports = server_->getListeningPorts();
  return ports.empty() ? address_.port : static_cast<uint16_t>(ports.front());
}

std::string Exposer::url() const {
  Address a = address_;
  a.port = port();
  return "http://" + a.to_string() + "/metrics";
}

bool is_loopback_host(const std::string& host) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (getaddrinfo(host.c_str(), nullptr, &hints, &res) != 0) return false;
  bool loopback = res != nullptr;
  for (addrinfo* a = res; a != nullptr; a = a->ai_next) {
    if (a->ai_family == AF_INET) {
      const in_addr ip = reinterpret_cast<const sockaddr_in*>(a->ai_addr)->sin_addr;
      loopback = loopback && (ntohl(ip.s_addr) >> 24) == 127;
    } else if (a->ai_family == AF_INET6) {
      const in6_addr& ip = reinterpret_cast<const sockaddr_in6*>(a->ai_addr)->sin6_addr;
      loopback = loopback && (IN6_IS_ADDR_LOOPBACK(&ip) ||
                              (IN6_IS_ADDR_V4MAPPED(&ip) && ip.s6_addr[12] == 127));
    } else {
      loopback = false;
    }
  }
  freeaddrinfo(res);
  return loopback;
}

namespace {

std::string exposure_note(const Exposer& e) {
  return "metrics on " + e.url() +
         " are reachable from other machines (not a loopback address) and have no "
         "authentication";
}

}  // namespace

std::unique_ptr<Exposer> start_exposer(const Address& address, bool is_default,
                                       std::shared_ptr<Registry> registry,
                                       const ThreadStarter& start_on, std::string* note) {
  note->clear();
  try {
    auto e = std::make_unique<Exposer>(address, registry, start_on);
    if (!is_loopback_host(address.host)) *note = exposure_note(*e);
    return e;
  } catch (const std::runtime_error&) {
    if (!is_default) throw;
  }
  Address any = address;
  any.port = 0;
  auto e = std::make_unique<Exposer>(any, registry, start_on);
  *note = "the default metrics address " + address.to_string() +
          " is in use (another process?); serving on " + e->url() +
          " instead (--metrics-address names one)";
  return e;
}

}  // namespace spraylab::monitoring
