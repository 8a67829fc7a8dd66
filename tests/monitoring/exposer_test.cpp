// The exposer serves the registry over HTTP at /metrics, on the port asked for or one the OS picks,
// and says which address it could not listen on.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zlib.h>

#include <memory>
#include <string>
#include <thread>

#include "monitoring/exposer.h"
#include "monitoring/families.h"
#include "monitoring/registry.h"

namespace spraylab::monitoring {
namespace {

class Counting : public prometheus::Collectable {
 public:
  std::vector<prometheus::MetricFamily> Collect() const override {
    auto f = make_family({"test_scrapes_total", prometheus::MetricType::Counter, "", "scrapes"});
    add_value(f, {}, static_cast<double>(++scrapes_));
    return {f};
  }

 private:
  mutable int scrapes_ = 0;
};

// GET path over HTTP/1.0; returns the whole response.
std::string http_get(uint16_t port, const std::string& path, const std::string& headers = "") {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
    close(fd);
    return "";
  }
  const std::string req = "GET " + path + " HTTP/1.0\r\nHost: localhost\r\n" + headers + "\r\n";
  if (write(fd, req.data(), req.size()) != static_cast<ssize_t>(req.size())) {
    close(fd);
    return "";
  }
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = read(fd, buf, sizeof(buf))) > 0;) out.append(buf, static_cast<size_t>(n));
  close(fd);
  return out;
}

TEST(Exposer, ServesTheRegistryOnAPortTheOsChose) {
  auto registry = std::make_shared<Registry>();
  registry->add(std::make_shared<Counting>());
  bool started_on_thread = false;
  std::thread::id caller = std::this_thread::get_id(), ran_on;
  ThreadStarter on_thread = [&](const std::function<void()>& fn) {
    std::thread t([&] {
      ran_on = std::this_thread::get_id();
      fn();
    });
    t.join();
    started_on_thread = true;
  };
  Exposer e(parse_address("127.0.0.1:0", kSwitchPort), registry, on_thread);
  EXPECT_TRUE(started_on_thread);
  EXPECT_NE(ran_on, caller);
  ASSERT_NE(e.port(), 0);
  EXPECT_EQ(e.url(), "http://127.0.0.1:" + std::to_string(e.port()) + "/metrics");
  const std::string first = http_get(e.port(), "/metrics");
  EXPECT_NE(first.find("200 OK"), std::string::npos) << first;
  EXPECT_NE(first.find("test_scrapes_total 1"), std::string::npos) << first;
  // Each request is a fresh scrape.
  EXPECT_NE(http_get(e.port(), "/metrics").find("test_scrapes_total 2"), std::string::npos);
}

std::string gunzip(const std::string& in) {
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 16) != Z_OK) return "";
  std::string out(in.size() * 64 + 1024, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  const int rc = inflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  inflateEnd(&zs);
  return rc == Z_STREAM_END ? out : "";
}

TEST(Exposer, GzipsForClientsThatAcceptItAsPrometheusDoes) {
  auto registry = std::make_shared<Registry>();
  for (int i = 0; i < 50; ++i) {
    registry->add(std::make_shared<Counting>());  // a body worth compressing
  }
  Exposer e(parse_address("127.0.0.1:0", kSwitchPort), registry);
  const std::string r = http_get(e.port(), "/metrics", "Accept-Encoding: gzip\r\n");
  const size_t split = r.find("\r\n\r\n");
  ASSERT_NE(split, std::string::npos) << r;
  const std::string head = r.substr(0, split), body = r.substr(split + 4);
  EXPECT_NE(head.find("Content-Encoding: gzip"), std::string::npos) << head;
  EXPECT_NE(head.find("Content-Type: text/plain; version=0.0.4"), std::string::npos) << head;
  EXPECT_NE(head.find("Content-Length: " + std::to_string(body.size())), std::string::npos) << head;
  const std::string text = gunzip(body);
  EXPECT_LT(body.size() * 3, text.size());
  EXPECT_NE(text.find("# TYPE test_scrapes_total counter\ntest_scrapes_total 1\n"),
            std::string::npos)
      << text;
  // Without Accept-Encoding the text comes as it is.
  const std::string plain = http_get(e.port(), "/metrics");
  EXPECT_EQ(plain.find("Content-Encoding"), std::string::npos);
  EXPECT_NE(plain.find("test_scrapes_total 2"), std::string::npos);
}

TEST(Exposer, APortInUseIsAnErrorNamingTheAddress) {
  auto registry = std::make_shared<Registry>();
  Exposer first(parse_address("127.0.0.1:0", kGenPort), registry);
  const std::string taken = "127.0.0.1:" + std::to_string(first.port());
  try {
    Exposer second(parse_address(taken, kGenPort), registry);
    ADD_FAILURE() << "a second exposer listened on " << taken;
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(taken), std::string::npos) << e.what();
  }
}

TEST(StartExposer, ABusyDefaultAddressFallsBackToAnyPortAndSaysSo) {
  auto registry = std::make_shared<Registry>();
  registry->add(std::make_shared<Counting>());
  Exposer holder(parse_address("127.0.0.1:0", kGenPort), registry);
  const Address taken = parse_address(":" + std::to_string(holder.port()), kGenPort);
  std::string note;
  auto e = start_exposer(taken, /*is_default=*/true, registry, {}, &note);
  ASSERT_NE(e, nullptr);
  EXPECT_NE(e->port(), holder.port());
  EXPECT_NE(note.find(taken.to_string()), std::string::npos) << note;
  EXPECT_NE(note.find(e->url()), std::string::npos) << note;
  EXPECT_NE(http_get(e->port(), "/metrics").find("test_scrapes_total"), std::string::npos);
  // A free default address is used as it is, without a note.
  auto free = start_exposer(parse_address(":0", kGenPort), true, registry, {}, &note);
  EXPECT_TRUE(note.empty()) << note;
  // An address the user named must be free.
  EXPECT_THROW(start_exposer(taken, /*is_default=*/false, registry, {}, &note), std::runtime_error);
}

TEST(Exposure, TheDefaultAddressIsLoopbackOnly) {
  EXPECT_TRUE(is_loopback_host(std::string(kDefaultHost)));
  for (const char* text : {"", ":0", ":9561"}) {
    EXPECT_EQ(parse_address(text, kSwitchPort).host, kDefaultHost) << "'" << text << "'";
  }
}

TEST(Exposure, OnlyLoopbackAddressesCountAsLocal) {
  for (const char* host : {"127.0.0.1", "127.3.2.1", "::1", "::ffff:127.0.0.1"}) {
    EXPECT_TRUE(is_loopback_host(host)) << host;
  }
  for (const char* host :
       {"0.0.0.0", "::", "10.0.0.1", "192.168.1.7", "::ffff:10.0.0.1", "fe80::1"}) {
    EXPECT_FALSE(is_loopback_host(host)) << host;
  }
}

TEST(Exposure, ANonLoopbackAddressIsServedWithANoteThatSaysSo) {
  auto registry = std::make_shared<Registry>();
  std::string note;
  auto local = start_exposer(parse_address("127.0.0.1:0", kSwitchPort), false, registry, {}, &note);
  EXPECT_TRUE(note.empty()) << note;
  auto wide = start_exposer(parse_address("0.0.0.0:0", kSwitchPort), false, registry, {}, &note);
  EXPECT_NE(note.find("reachable from other machines"), std::string::npos) << note;
  EXPECT_NE(note.find(wide->url()), std::string::npos) << note;
}

}  // namespace
}  // namespace spraylab::monitoring
