// fabric/namespaced/generator_merge.h: two generators' results as one, as the namespaced runner
// hands them to the summary.
#include "fabric/namespaced/generator_merge.h"

#include <gtest/gtest.h>

namespace spraylab::fabric {
namespace {

using nlohmann::ordered_json;

// One generator's results with one message of collective 0 (trafficgen/results.h's keys).
ordered_json part(uint32_t rank, uint64_t first_tx, uint64_t last_ack, double bound, bool done) {
  ordered_json m = {{"id", rank}, {"src", rank}, {"dst", rank + 1}, {"completed", done}};
  ordered_json c = {{"id", 0},
                    {"name", "permutation"},
                    {"iteration", 0},
                    {"messages", 1},
                    {"completed_messages", done ? 1 : 0},
                    {"bytes", 1000},
                    {"hops", 3},
                    {"bound_ns", bound},
                    {"bound", {{"packets", 1}}},
                    {"first_tx_ns", first_tx}};
  if (done) {
    m["completion_ns"] = last_ack - first_tx;
    c["last_ack_ns"] = last_ack;
    c["cct_ns"] = last_ack - first_tx;
    c["inflation"] = static_cast<double>(last_ack - first_tx) / bound - 1;
  }
  return {
      {"config", "x.yaml"},
      {"completed", done},
      {"stopped_by", done ? "completed" : "timeout"},
      {"hosts", ordered_json::array({{{"name", "h"}, {"rank", rank}}})},
      {"settings", {{"link_rate_bps", 1e9}}},
      {"start_ns", first_tx - 10},
      {"end_ns", last_ack + 5},
      {"collectives", ordered_json::array({c})},
      {"latency_ns",
       {{"one_way", {{"samples", 10}, {"min", 5.0}, {"mean", 10.0}, {"p99", 20.0}, {"max", 30.0}}},
        {"rtt", {{"samples", 0}}}}},
      {"goodput",
       {{"acked_bytes", done ? 1000 : 0},
        {"first_tx_ns", first_tx},
        {"last_ack_ns", last_ack},
        {"delivered_bytes", 1000}}},
      {"loss", {{"retransmits", 2}, {"timeouts", 1}, {"missing_at_end", 0}}},
      {"reordering",
       {{"received", 100},
        {"out_of_order", 3},
        {"max_distance", rank + 2},
        {"distance_histogram_log2", ordered_json::array({1, 2})}}},
      {"path_switches", {{"histogram", ordered_json::array({0, 0, 0, 50 + rank})}}},
      {"busy_cycles", 7},
      {"counters", {{"tx_data_packets", 100}, {"retransmits", 2}}},
      {"messages", ordered_json::array({m})}};
}

TEST(GeneratorMerge, ACollectiveSpansEveryGenerator) {
  const ordered_json j =
      merge_generator_results({part(2, 1000, 5000, 2000, true), part(0, 1500, 7000, 2500, true)});
  EXPECT_TRUE(j["completed"].get<bool>());
  ASSERT_EQ(j["hosts"].size(), 2u);
  EXPECT_EQ(j["hosts"][0]["rank"], 0);  // by rank
  EXPECT_EQ(j["start_ns"], 990u);
  EXPECT_EQ(j["end_ns"], 7005u);
  ASSERT_EQ(j["collectives"].size(), 1u);
  const ordered_json& c = j["collectives"][0];
  EXPECT_EQ(c["messages"], 2u);
  EXPECT_EQ(c["completed_messages"], 2u);
  EXPECT_EQ(c["cct_ns"], 6000u);  // first send of one to the last ACK of the other
  EXPECT_DOUBLE_EQ(c["bound_ns"].get<double>(), 2500);
  EXPECT_DOUBLE_EQ(c["inflation"].get<double>(), 6000.0 / 2500 - 1);
  EXPECT_EQ(j["messages"].size(), 2u);
  EXPECT_EQ(j["counters"]["tx_data_packets"], 200u);
  EXPECT_EQ(j["loss"]["retransmits"], 4u);
  EXPECT_DOUBLE_EQ(j["loss"]["retransmit_fraction"].get<double>(), 0.02);
  EXPECT_EQ(j["reordering"]["received"], 200u);
  EXPECT_EQ(j["reordering"]["max_distance"], 4u);
  EXPECT_EQ(j["reordering"]["distance_histogram_log2"], ordered_json::array({2, 4}));
  EXPECT_EQ(j["path_switches"]["histogram"], ordered_json::array({0, 0, 0, 102}));
  EXPECT_EQ(j["goodput"]["acked_bytes"], 2000u);
  EXPECT_EQ(j["goodput"]["delivered_bytes"], 2000u);
  EXPECT_EQ(j["latency_ns"]["one_way"]["samples"], 20u);
  EXPECT_EQ(j["generators"], 2u);
}

TEST(GeneratorMerge, AnIncompleteGeneratorLeavesTheCollectiveIncomplete) {
  const ordered_json j =
      merge_generator_results({part(0, 1000, 5000, 2000, true), part(1, 1500, 7000, 2000, false)});
  EXPECT_FALSE(j["completed"].get<bool>());
  EXPECT_EQ(j["stopped_by"], "timeout");
  EXPECT_FALSE(j["collectives"][0].contains("cct_ns"));
  EXPECT_EQ(j["collectives"][0]["completed_messages"], 1u);
}

}  // namespace
}  // namespace spraylab::fabric
