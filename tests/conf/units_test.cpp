#include "conf/units.h"

#include <gtest/gtest.h>

namespace spraylab::conf {
namespace {

TEST(Units, RatesTakeDecimalPrefixesWithOrWithoutBps) {
  EXPECT_DOUBLE_EQ(*parse_rate_bps("100Gbps"), 100e9);
  EXPECT_DOUBLE_EQ(*parse_rate_bps("800G"), 800e9);
  EXPECT_DOUBLE_EQ(*parse_rate_bps("10Mbps"), 10e6);
  EXPECT_DOUBLE_EQ(*parse_rate_bps("1.6Tbps"), 1.6e12);
  EXPECT_DOUBLE_EQ(*parse_rate_bps("25 Gbps"), 25e9);
}

TEST(Units, PlainRateIsBitsPerSecond) {
  EXPECT_DOUBLE_EQ(*parse_rate_bps("5000000000"), 5e9);
  EXPECT_DOUBLE_EQ(*parse_rate_bps("5e9"), 5e9);
}

TEST(Units, TimesConvertToNanoseconds) {
  EXPECT_DOUBLE_EQ(*parse_time_ns("500ns"), 500);
  EXPECT_DOUBLE_EQ(*parse_time_ns("0.5us"), 500);
  EXPECT_DOUBLE_EQ(*parse_time_ns("1ms"), 1e6);
  EXPECT_DOUBLE_EQ(*parse_time_ns("2s"), 2e9);
  EXPECT_DOUBLE_EQ(*parse_time_ns("750"), 750);
}

TEST(Units, SizesUseDecimalKbAndBinaryKib) {
  EXPECT_EQ(*parse_size_bytes("800KB"), 800'000u);
  EXPECT_EQ(*parse_size_bytes("1MiB"), 1'048'576u);
  EXPECT_EQ(*parse_size_bytes("1MB"), 1'000'000u);
  EXPECT_EQ(*parse_size_bytes("4096"), 4096u);
  EXPECT_EQ(*parse_size_bytes("1.5KB"), 1500u);
}

TEST(Units, SizeMustBeWholeBytes) { EXPECT_FALSE(parse_size_bytes("1.5B")); }

TEST(Units, PercentNeedsTheSign) {
  EXPECT_DOUBLE_EQ(*parse_percent("10%"), 10);
  EXPECT_DOUBLE_EQ(*parse_percent("2.5 %"), 2.5);
  EXPECT_FALSE(parse_percent("10"));
}

TEST(Units, RejectsUnknownUnitsNegativesAndWords) {
  EXPECT_FALSE(parse_rate_bps("100Gbs"));
  EXPECT_FALSE(parse_rate_bps("fast"));
  EXPECT_FALSE(parse_time_ns("-1ms"));
  EXPECT_FALSE(parse_time_ns("1h"));
  EXPECT_FALSE(parse_time_ns("inf"));
  EXPECT_FALSE(parse_size_bytes("1Kb"));  // kilobits are not a size
  EXPECT_FALSE(parse_size_bytes(""));
}

TEST(Units, ValuesThatOverflowToInfinityAreRejected) {
  EXPECT_FALSE(parse_rate_bps("1e300T"));
  EXPECT_FALSE(parse_time_ns("1e300s"));
  EXPECT_FALSE(parse_size_bytes("1e300GiB"));
  EXPECT_TRUE(parse_time_ns("1e300ns"));  // large, but finite
}

TEST(Units, FormattedValuesParseBackToThemselves) {
  EXPECT_EQ(format_rate(100e9), "100Gbps");
  EXPECT_EQ(format_rate(1.6e12), "1.6Tbps");
  EXPECT_EQ(format_time(500), "500ns");
  EXPECT_EQ(format_time(1500), "1.5us");
  EXPECT_EQ(format_time(0), "0ns");
  EXPECT_EQ(format_size(800'000), "800KB");
  EXPECT_EQ(format_size(1'048'576), "1MiB");
  EXPECT_EQ(format_size(4096), "4096");
  for (double rate : {10e6, 100e9, 1.6e12, 123.0}) {
    EXPECT_DOUBLE_EQ(*parse_rate_bps(format_rate(rate)), rate);
  }
  for (uint64_t size : {0ull, 1ull, 4096ull, 800'000ull, 1ull << 30}) {
    EXPECT_EQ(*parse_size_bytes(format_size(size)), size);
  }
}

}  // namespace
}  // namespace spraylab::conf
