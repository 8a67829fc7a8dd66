// A variant's summary from a fabric result built by hand: the numbers the table and the plots
// show, and nothing that depends on the wall clock.
#include "fabric/results/summary.h"

#include <gtest/gtest.h>

namespace spraylab::fabric {
namespace {

using nlohmann::ordered_json;

PortSummary port(const char* sw, uint16_t p, uint32_t level, uint64_t max_bytes,
                 uint64_t max_packets, uint64_t tx_packets, double utilisation, uint64_t drops) {
  PortSummary s;
  s.switch_name = sw;
  s.port = p;
  s.peer = "peer";
  s.level = level;
  s.max_bytes = max_bytes;
  s.max_packets = max_packets;
  s.tx_packets = tx_packets;
  s.utilisation = utilisation;
  s.drops = drops;
  return s;
}

// Three ports: two on a leaf (one idle), one on a spine.
FabricResult three_ports() {
  FabricResult r;
  r.mode = Mode::kVirtual;
  r.completed = true;
  r.stopped_by = gen::StopReason::kCompleted;
  r.clock_ns = 123'000;
  r.wall_seconds = 1.5;
  r.events = 4242;
  r.ports = {port("leaf0", 0, 0, 9000, 3, 10, 0.5, 1), port("leaf0", 1, 0, 0, 0, 0, 0, 0),
             port("spine0", 0, 1, 20000, 5, 20, 0.9, 2)};
  r.ports[2].ecn_marks = 3;
  // 100 samples per port: leaf0/0 holds 100, 200, ..., 10000 bytes; leaf0/1 stays empty;
  // spine0/0 holds 7 bytes throughout.
  for (uint32_t i = 1; i <= 100; ++i) {
    r.samples.push_back({i * 1000, 0, i, i * 100});
    r.samples.push_back({i * 1000, 1, 0, 0});
    r.samples.push_back({i * 1000, 2, 1, 7});
  }
  r.generator = {
      {"collectives",
       {{{"id", 0}, {"cct_ns", 1000}, {"bound_ns", 800}, {"inflation", 0.25}},
        {{"id", 1}, {"cct_ns", 3000}, {"bound_ns", 2000}, {"inflation", 0.5}},
        {{"id", 2}, {"bound_ns", 900}}}},  // incomplete: no cct
      {"messages",
       {{{"id", 0}, {"completion_ns", 400}, {"inflation", 0.4}},
        {{"id", 1}, {"completion_ns", 100}, {"inflation", 0.1}},
        {{"id", 2}, {"completion_ns", 300}, {"inflation", 0.3}},
        {{"id", 3}, {"bound_ns", 50}}}},
      {"loss", {{"retransmits", 5}, {"timeouts", 1}, {"missing_at_end", 2}}},
      {"reordering",
       {{"received", 200}, {"out_of_order", 50}, {"duplicates", 4}, {"max_distance", 9}}}};
  return r;
}

TEST(Summary, CollectiveCctIsTheMeanOverCompletedCollectives) {
  const VariantSummary s = summarize(three_ports(), "v", "ofan", "virtual");
  EXPECT_EQ(s.collectives, 3u);
  EXPECT_EQ(s.collectives_completed, 2u);
  EXPECT_DOUBLE_EQ(*s.cct_ns, (1000 + 3000) / 2.0);
  EXPECT_DOUBLE_EQ(*s.cct_max_ns, 3000);
  EXPECT_DOUBLE_EQ(*s.bound_ns, (800 + 2000) / 2.0);
  EXPECT_DOUBLE_EQ(*s.inflation, (0.25 + 0.5) / 2);
}

TEST(Summary, NamesEachBoundItsCollectivesUsedOnceInTheListsOrder) {
  FabricResult r = three_ports();
  r.generator["collectives"][0]["bound_kind"] = "steps";
  r.generator["collectives"][1]["bound_kind"] = "per-host";
  r.generator["collectives"][2]["bound_kind"] = "steps";
  r.generator["path_model"] = {{"bound_capacity", "not-modelled"}};
  const VariantSummary s = summarize(r, "v", "ofan", "virtual");
  EXPECT_EQ(s.bound, "per-host+steps");
  EXPECT_EQ(s.bound_capacity, "not-modelled");
  const auto j = to_json(s);
  EXPECT_EQ(j["cct"]["bound"], "per-host+steps");
  EXPECT_EQ(j["cct"]["bound_capacity"], "not-modelled");
}

TEST(Summary, AGeneratorThatNamesNoBoundGivesNull) {
  const auto j = to_json(summarize(three_ports(), "v", "ofan", "virtual"));
  EXPECT_TRUE(j["cct"]["bound"].is_null());
  EXPECT_TRUE(j["cct"]["bound_capacity"].is_null());
}

TEST(Summary, MessagePercentilesAreNearestRankOverCompletedMessages) {
  const VariantSummary s = summarize(three_ports(), "v", "ofan", "virtual");
  EXPECT_EQ(s.messages, 4u);
  EXPECT_EQ(s.messages_completed, 3u);
  // Sorted 100, 300, 400: rank ceil(0.5 * 3) = 2 and ceil(0.99 * 3) = 3.
  EXPECT_EQ(*s.message_cct_p50_ns, 300u);
  EXPECT_EQ(*s.message_cct_p99_ns, 400u);
  EXPECT_EQ(*s.message_cct_max_ns, 400u);
  EXPECT_DOUBLE_EQ(*s.message_inflation_p50, 0.3);
}

TEST(Summary, QueueMaximaComeFromPortsAndPercentilesFromSamples) {
  const VariantSummary s = summarize(three_ports(), "v", "ofan", "virtual");
  EXPECT_EQ(s.queue.max_bytes, 20000u);
  EXPECT_EQ(s.queue.max_packets, 5u);
  EXPECT_EQ(s.queue.ports, 3u);
  // 300 samples: 100 zeros, 100 sevens, then 100..10000; rank ceil(0.99 * 300) = 297 is the
  // 97th of the last hundred.
  EXPECT_EQ(s.queue.p99_bytes, 9700u);
  ASSERT_EQ(s.queue_by_level.size(), 2u);
  const QueueStats& leaves = s.queue_by_level.at(0);
  EXPECT_EQ(leaves.max_bytes, 9000u);
  EXPECT_EQ(leaves.ports, 2u);
  EXPECT_EQ(leaves.p99_bytes, 9800u);  // 200 samples: rank 198, the 98th of 100..10000
  EXPECT_EQ(s.queue_by_level.at(1).p99_bytes, 7u);
  EXPECT_EQ(s.queue_by_level.at(1).p99_packets, 1u);
}

TEST(Summary, UtilisationCountsOnlyPortsThatSent) {
  const VariantSummary s = summarize(three_ports(), "v", "ofan", "virtual");
  EXPECT_EQ(s.active_ports, 2u);
  EXPECT_DOUBLE_EQ(*s.utilisation_mean, (0.5 + 0.9) / 2);
  EXPECT_DOUBLE_EQ(*s.utilisation_max, 0.9);
}

TEST(Summary, LossAndReorderingAddUp) {
  const VariantSummary s = summarize(three_ports(), "v", "ofan", "virtual");
  EXPECT_EQ(s.switch_drops, 3u);
  EXPECT_EQ(s.ecn_marks, 3u);
  EXPECT_EQ(s.retransmits, 5u);
  EXPECT_EQ(s.missing_at_end, 2u);
  EXPECT_DOUBLE_EQ(*s.out_of_order_fraction, 50.0 / 200);
  EXPECT_EQ(s.max_reorder_distance, 9u);
}

TEST(Summary, HottestPortsAreTheDeepestAndSkipEmptyOnes) {
  const VariantSummary s = summarize(three_ports(), "v", "ofan", "virtual");
  ASSERT_EQ(s.hottest_ports.size(), 2u);
  EXPECT_EQ(s.hottest_ports[0].switch_name, "spine0");
  EXPECT_EQ(s.hottest_ports[1].switch_name, "leaf0");
}

TEST(Summary, JsonHoldsNoWallClockValue) {
  FabricResult a = three_ports(), b = three_ports();
  b.wall_seconds = 99.25;
  const std::string ja = to_json(summarize(a, "v", "ofan", "virtual")).dump();
  EXPECT_EQ(ja, to_json(summarize(b, "v", "ofan", "virtual")).dump());
  EXPECT_EQ(ja.find("wall"), std::string::npos);
}

TEST(Summary, AnIncompleteRunHasNullsNotZeros) {
  FabricResult r;
  r.completed = false;
  r.stopped_by = gen::StopReason::kTimeout;
  const ordered_json j = to_json(summarize(r, "v", "ecmp", "inprocess"));
  EXPECT_TRUE(j["cct"]["collective_ns"].is_null());
  EXPECT_TRUE(j["cct"]["message_p99_ns"].is_null());
  EXPECT_TRUE(j["utilisation"]["mean"].is_null());
  EXPECT_EQ(j["stopped_by"], "timeout");
  EXPECT_EQ(j["mode"], "inprocess");
}

TEST(Percentile, NearestRankOfOneToOneHundred) {
  std::vector<int> v;
  for (int i = 100; i >= 1; --i) v.push_back(i);
  EXPECT_EQ(*percentile(v, 0.99), 99);
  EXPECT_EQ(*percentile(v, 0.5), 50);
  EXPECT_EQ(*percentile(v, 1.0), 100);
  EXPECT_EQ(*percentile(v, 0.001), 1);
  EXPECT_EQ(*percentile(v, 0.07), 7);  // 0.07 * 100 is 7.000000000000001 in doubles
  std::vector<int> empty;
  EXPECT_FALSE(percentile(empty, 0.5).has_value());
}

}  // namespace
}  // namespace spraylab::fabric
