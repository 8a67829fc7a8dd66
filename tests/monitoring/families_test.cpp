// The building blocks: power-of-two buckets, cumulative histograms, addresses, the registry.
#include <gtest/gtest.h>
#include <prometheus/check_names.h>

#include <cmath>
#include <memory>

#include "monitoring/exposer.h"
#include "monitoring/families.h"
#include "monitoring/registry.h"
#include "tests/monitoring/test_util.h"

namespace spraylab::monitoring {
namespace {

TEST(Log2Buckets, EachValueGoesToTheFirstBoundAtOrAboveIt) {
  constexpr Log2Buckets b(0, 3);  // bounds 0, 1, 2, 4, 8; index 5 = +Inf
  EXPECT_EQ(b.size(), 5u);
  EXPECT_EQ(b.bounds(), (std::vector<double>{0, 1, 2, 4, 8}));
  const std::vector<std::pair<uint64_t, uint32_t>> cases = {
      {0, 0}, {1, 1}, {2, 2}, {3, 3}, {4, 3}, {5, 4}, {8, 4}, {9, 5}, {1u << 20, 5}};
  for (const auto& [v, i] : cases) EXPECT_EQ(b.index(v), i) << v;
}

TEST(Log2Buckets, TheFirstNonZeroBoundTakesEverythingBelowIt) {
  constexpr Log2Buckets b(10, 12);  // 0, 1024, 2048, 4096
  EXPECT_EQ(b.index(1), 1u);
  EXPECT_EQ(b.index(1024), 1u);
  EXPECT_EQ(b.index(1025), 2u);
  EXPECT_EQ(b.index(4096), 3u);
  EXPECT_EQ(b.index(4097), 4u);
  EXPECT_EQ(b.bounds(0.5), (std::vector<double>{0, 512, 1024, 2048}));
}

TEST(MakeHistogram, CumulatesCountsAndEndsWithInfinity) {
  const std::vector<double> bounds = {1, 2, 4};
  const std::vector<uint64_t> counts = {3, 0, 2, 5};
  const auto h = make_histogram(bounds, counts, 42.5);
  ASSERT_EQ(h.bucket.size(), 4u);
  EXPECT_EQ(h.bucket[0].cumulative_count, 3u);
  EXPECT_EQ(h.bucket[1].cumulative_count, 3u);
  EXPECT_EQ(h.bucket[2].cumulative_count, 5u);
  EXPECT_EQ(h.bucket[3].cumulative_count, 10u);
  EXPECT_TRUE(std::isinf(h.bucket[3].upper_bound));
  EXPECT_EQ(h.sample_count, 10u);
  EXPECT_DOUBLE_EQ(h.sample_sum, 42.5);
}

TEST(ParseAddress, HostPortAndDefaults) {
  auto a = parse_address("127.0.0.1:9000", kSwitchPort);
  EXPECT_EQ(a.host, "127.0.0.1");
  EXPECT_EQ(a.port, 9000);
  a = parse_address("", kSwitchPort);
  EXPECT_EQ(a.to_string(), "127.0.0.1:9561");
  a = parse_address(":0", kGenPort);
  EXPECT_EQ(a.to_string(), "127.0.0.1:0");
  a = parse_address("0.0.0.0", kGenPort);
  EXPECT_EQ(a.to_string(), "0.0.0.0:9562");
  a = parse_address("[::1]:9100", kGenPort);
  EXPECT_EQ(a.host, "::1");
  EXPECT_EQ(a.to_string(), "[::1]:9100");
}

TEST(ParseAddress, RejectsWhatIsNotAnAddressAndSaysWhy) {
  for (const char* bad :
       {"127.0.0.1:", "127.0.0.1:70000", "127.0.0.1:9x", "::1:9000", "[::1", "[::1]9000"}) {
    try {
      parse_address(bad, kSwitchPort);
      ADD_FAILURE() << bad << " accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("HOST:PORT"), std::string::npos) << e.what();
    }
  }
}

class Fixed : public prometheus::Collectable {
 public:
  Fixed(std::string name, double v) : name_(std::move(name)), v_(v) {}
  std::vector<prometheus::MetricFamily> Collect() const override {
    auto f = make_family({name_, prometheus::MetricType::Gauge, "", "a test gauge"});
    add_value(f, {{"k", "v"}}, v_);
    return {f};
  }

 private:
  std::string name_;
  double v_;
};

TEST(Registry, CollectsEveryCollectorInOrderAndSerializesText) {
  Registry r;
  r.add(std::make_shared<Fixed>("first_gauge", 1));
  r.add(std::make_shared<Fixed>("second_gauge", 2.5));
  const auto fs = r.Collect();
  ASSERT_EQ(fs.size(), 2u);
  EXPECT_EQ(fs[0].name, "first_gauge");
  EXPECT_EQ(fs[1].name, "second_gauge");
  const std::string text = r.serialize();
  EXPECT_NE(text.find("# TYPE second_gauge gauge"), std::string::npos) << text;
  EXPECT_NE(text.find("second_gauge{k=\"v\"} 2.5"), std::string::npos) << text;
}

}  // namespace
}  // namespace spraylab::monitoring
