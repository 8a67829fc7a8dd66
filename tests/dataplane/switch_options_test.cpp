#include "switch/switch_options.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "switch/dataplane/switch_tables.h"

namespace spraylab::dataplane {
namespace {

// add_to's parse of to_argv's command line.
SwitchOptions parsed(const std::vector<std::string>& argv) {
  SwitchOptions o;
  CLI::App app;
  o.add_to(app);
  std::vector<std::string> reversed(argv.rbegin(), argv.rend());  // CLI11 takes them in reverse
  app.parse(reversed);
  return o;
}

TEST(SwitchOptions, DefaultsWriteOnlyTheRequiredOptions) {
  SwitchOptions o;
  o.config = "/dev/null";
  o.switch_name = "leaf0";
  EXPECT_EQ(o.to_argv(), (std::vector<std::string>{"--config", "/dev/null", "--switch", "leaf0"}));
}

TEST(SwitchOptions, EveryOptionSetSurvivesToArgvAndAddTo) {
  SwitchOptions o;
  o.config = "/dev/null";
  o.switch_name = "leaf0";
  o.workers = 2;
  o.rx_queues = 3;
  o.tx_queues = 4;
  o.queue_packets = 512;
  o.trim_threshold = "200KB";
  o.trim_queue_packets = 256;
  o.shaper_slack = "9KB";
  o.no_shaping = true;
  o.tx_coalesce = 0;
  o.no_direct_tx = true;
  o.rx_bursts = 2;
  o.duration = 1.5;
  o.stats_interval = 0.25;
  o.stats_json = "/tmp/s.json";
  o.routes = {"10.9.0.0/16=0,1", "10.8.0.0/16=2"};
  o.idle_sleep = "2ms";
  o.deep_sleep = "100ms";
  o.rt_priority = 1;
  o.mbufs = 12288;
  o.dump_tables = true;
  o.metrics.set_address("0.0.0.0:9561");
  const SwitchOptions p = parsed(o.to_argv());
  EXPECT_EQ(p.to_argv(), o.to_argv());
  EXPECT_EQ(p.config, o.config);
  EXPECT_EQ(p.switch_name, o.switch_name);
  EXPECT_EQ(p.workers, o.workers);
  EXPECT_EQ(p.rx_queues, o.rx_queues);
  EXPECT_EQ(p.tx_queues, o.tx_queues);
  EXPECT_EQ(p.queue_packets, o.queue_packets);
  EXPECT_EQ(p.trim_threshold, o.trim_threshold);
  EXPECT_EQ(p.trim_queue_packets, o.trim_queue_packets);
  EXPECT_EQ(p.shaper_slack, o.shaper_slack);
  EXPECT_EQ(p.no_shaping, o.no_shaping);
  EXPECT_EQ(p.tx_coalesce, o.tx_coalesce);
  EXPECT_EQ(p.no_direct_tx, o.no_direct_tx);
  EXPECT_EQ(p.rx_bursts, o.rx_bursts);
  EXPECT_EQ(p.duration, o.duration);
  EXPECT_EQ(p.stats_interval, o.stats_interval);
  EXPECT_EQ(p.stats_json, o.stats_json);
  EXPECT_EQ(p.routes, o.routes);
  EXPECT_EQ(p.idle_sleep, o.idle_sleep);
  EXPECT_EQ(p.deep_sleep, o.deep_sleep);
  EXPECT_EQ(p.rt_priority, o.rt_priority);
  EXPECT_EQ(p.mbufs, o.mbufs);
  EXPECT_EQ(p.dump_tables, o.dump_tables);
  EXPECT_EQ(p.metrics.to_argv(), o.metrics.to_argv());
}

TEST(SwitchOptions, IdleSleepOutsideOneMicrosecondToOneSecondIsRefused) {
  SwitchOptions o;
  CLI::App app;
  o.add_to(app);
  EXPECT_THROW(app.parse("--config /dev/null --switch s --idle-sleep 5s", false),
               CLI::ValidationError);
}

}  // namespace
}  // namespace spraylab::dataplane

namespace spraylab::dataplane {
namespace {

TEST(SwitchOptions, TrimThresholdTurnsTrimmingOnUpToTheBuffer) {
  SwitchTables t;
  t.buffer_bytes = 100'000;
  apply_trim_threshold("", t, 4178);
  EXPECT_FALSE(t.trim);
  apply_trim_threshold("40KB", t, 4178);
  EXPECT_TRUE(t.trim);
  EXPECT_EQ(t.trim_threshold_bytes, 40'000u);
  try {
    apply_trim_threshold("200KB", t, 4178);
    FAIL() << "a threshold above the buffer was taken";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "--trim-threshold 200KB: above the buffer (100KB, buffer.bytes)");
  }
  EXPECT_THROW(apply_trim_threshold("lots", t, 4178), std::invalid_argument);
  EXPECT_EQ(t.trim_threshold_bytes, 40'000u);
}

}  // namespace
}  // namespace spraylab::dataplane

namespace spraylab::dataplane {
namespace {

// What the loader refuses with buffer.trim is refused for --trim-threshold too (a review ran a
// PFC switch with it, and a threshold of 0).
TEST(SwitchOptions, TrimThresholdKeepsTheLoadersRules) {
  for (const bool pfc : {true, false}) {
    SwitchTables t;
    t.buffer_bytes = 100'000;
    t.pfc = pfc;
    t.credit = !pfc;
    try {
      apply_trim_threshold("40KB", t, 4178);
      FAIL() << "trimming taken with a lossless buffer";
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()),
                std::string("--trim-threshold 40KB: the experiment's buffer.flow_control (") +
                    (pfc ? "pfc" : "credit") +
                    ") and trimming do not combine: a lossless buffer never reaches the threshold");
    }
    EXPECT_FALSE(t.trim);
  }
  SwitchTables t;
  t.buffer_bytes = 100'000;
  EXPECT_THROW(apply_trim_threshold("0", t, 4178), std::invalid_argument);
  try {
    apply_trim_threshold("100B", t, 4178);  // the loader refuses it in buffer.trim_threshold
    FAIL() << "a threshold below one data frame was taken";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "--trim-threshold 100B: less than one data frame (4178 B): every data frame "
                 "would be trimmed; at least 4178 B");
  }
  EXPECT_FALSE(t.trim);
  apply_trim_threshold("4178B", t, 4178);
  EXPECT_TRUE(t.trim);
}

// --tx-coalesce, --rx-bursts and --no-direct-tx act on unshaped ports only: refused without
// --no-shaping instead of silently ignored.
TEST(SwitchOptions, UnshapedPortOptionsNeedNoShaping) {
  const std::vector<std::string> base = {"--config", "/dev/null", "--switch", "leaf0"};
  for (const std::vector<std::string>& more :
       {std::vector<std::string>{"--tx-coalesce", "0"}, {"--rx-bursts", "2"}, {"--no-direct-tx"}}) {
    std::vector<std::string> argv = base;
    argv.insert(argv.end(), more.begin(), more.end());
    EXPECT_THROW(parsed(argv), CLI::RequiresError) << more[0];
    argv.push_back("--no-shaping");
    EXPECT_NO_THROW(parsed(argv)) << more[0];
  }
}

// The ring size is rounded up to a power of two; above 2^31 that looped forever.
TEST(SwitchOptions, QueuePacketsOutsideItsRangeIsRefused) {
  const auto with = [](const char* n) {
    return std::vector<std::string>{"--config", "/dev/null", "--switch", "leaf0",
                                    "--queue-packets", n};
  };
  EXPECT_EQ(parsed(with("1048576")).queue_packets, 1u << 20);
  for (const char* n : {"0", "1048577", "3000000000"}) {
    EXPECT_THROW(parsed(with(n)), CLI::ValidationError) << n;
  }
}

// A static route is for addresses outside the topology: one the topology's routes cover would
// replace their ports in the LPM table (rte_lpm_add of an existing prefix replaces it); host bits
// beyond the length are a typo. A prefix around the topology's is fine (the longest match wins).
TEST(StaticRoutes, InsideTheTopologyOrWithHostBitsAreRefused) {
  SwitchTables t;
  t.name = "leaf0";
  t.ports.resize(2);
  t.groups.push_back({1});
  t.routes.push_back({{0x0A000100, 24}, 0, 0, 1, false});  // 10.0.1.0/24, a leaf's hosts
  try {
    add_static_route(t, parse_static_route("10.0.1.0/24=0"));
    FAIL() << "a topology prefix was taken";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "static route 10.0.1.0/24: inside 10.0.1.0/24, which switch leaf0 already "
                 "routes: a static route is for addresses outside the topology");
  }
  EXPECT_THROW(add_static_route(t, parse_static_route("10.0.1.128/25=0")), std::invalid_argument);
  try {
    parse_static_route("10.0.0.1/8=1");
    FAIL() << "host bits were taken";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "--route 10.0.0.1/8=1: host bits set beyond /8 (did you mean 10.0.0.0/8?) "
                 "(expected A.B.C.D/LEN=PORT[,PORT...])");
  }
  add_static_route(t, parse_static_route("10.0.0.0/8=0"));      // around the topology's
  add_static_route(t, parse_static_route("198.18.0.0/15=0,1"));  // outside it
  EXPECT_EQ(t.routes.size(), 3u);
  EXPECT_THROW(add_static_route(t, parse_static_route("198.18.0.0/16=1")), std::invalid_argument);
}

}  // namespace
}  // namespace spraylab::dataplane
