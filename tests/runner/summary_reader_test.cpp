// summary.json read back (fabric/results/summary_reader.h): every value to_json writes comes back,
// so a resumed reproduction's tables show a reused variant exactly as its own run did.
#include "fabric/results/summary_reader.h"

#include <gtest/gtest.h>

namespace spraylab::fabric {
namespace {

using nlohmann::ordered_json;

QueueStats stats(uint64_t base) {
  return {base, base + 1, base + 2, base + 3, base + 4, base + 0.5, base + 1.5};
}

// Every field set to a value of its own, none at its default: a field the reader forgets, or
// reads from the wrong key, changes the JSON written back.
VariantSummary everything() {
  VariantSummary s;
  s.variant = "ofan-seed=3";
  s.machine_bound = "the fabric ran slower than its links";
  s.mode = "virtual";
  s.algorithm = "ofan";
  s.completed = true;
  s.stopped_by = gen::StopReason::kDuration;
  s.clock_ns = 11;
  s.events = 12;
  s.collectives = 13;
  s.collectives_completed = 14;
  s.cct_ns = 15.5;
  s.cct_max_ns = 16.5;
  s.bound_ns = 17.5;
  s.inflation = 0.185;
  s.bound = "per-host+steps";
  s.bound_capacity = "offered";
  s.messages = 19;
  s.messages_completed = 20;
  s.message_cct_p50_ns = 21;
  s.message_cct_p99_ns = 22;
  s.message_cct_max_ns = 23;
  s.message_inflation_p50 = 0.24;
  s.message_inflation_p99 = 0.25;
  s.queue = stats(100);
  s.queue_by_level = {{0, stats(200)}, {2, stats(300)}};
  s.queue_by_layer = {{"edge_up", stats(400)}, {"core_down", stats(500)}};
  s.utilisation_mean = 0.26;
  s.utilisation_max = 0.27;
  s.active_ports = 28;
  s.delivered_mean = 0.29;
  s.delivered_steady = 0.30;
  s.utilisation_window_ns = 31;
  s.queue_sample_halvings = 2;
  PortSummary hot;
  hot.switch_name = "agg3";
  hot.port = 4;
  hot.peer = "core1";
  hot.level = 1;
  hot.max_bytes = 32;
  hot.max_packets = 33;
  hot.p99_bytes = 34;
  hot.utilisation = 0.35;
  hot.drops = 36;
  hot.trims = 37;
  s.hottest_ports = {hot, hot};
  s.hottest_ports[1].switch_name = "edge0";
  s.switch_drops = 38;
  s.ecn_marks = 39;
  s.trims = 40;
  s.nacks = 41;
  s.retransmits = 42;
  s.timeouts = 43;
  s.missing_at_end = 44;
  s.received_packets = 45;
  s.out_of_order = 46;
  s.duplicates = 47;
  s.max_reorder_distance = 48;
  s.out_of_order_fraction = 0.49;
  s.delivered_bytes = 50;
  s.window_start_ns = 51;
  s.window_ns = 52;
  s.accepted_throughput = 0.53;
  s.hops_histogram = {54, 55, 56};
  s.hops_max = 3;
  s.hops_mean = 1.57;
  s.hops_p99 = 2;
  s.congestion_control = ordered_json{{"cc", "nscc"}, {"cwnd_mean", 58.5}, {"alpha", {1, 2}}};
  s.link_events = ordered_json::array({{{"at_ns", 59}, {"link", "edge0:1"}, {"event", "down"}}});
  return s;
}

TEST(SummaryReader, EveryValueToJsonWritesComesBack) {
  const ordered_json written = to_json(everything());
  const VariantSummary read = summary_from_json(written, "summary.json");
  EXPECT_EQ(to_json(read).dump(), written.dump());
  // And in the struct, not only through to_json.
  EXPECT_EQ(read.stopped_by, gen::StopReason::kDuration);
  EXPECT_EQ(read.queue_by_level.at(2).p99_packets, 303u);
  EXPECT_EQ(read.hottest_ports[1].switch_name, "edge0");
  EXPECT_EQ(read.machine_bound, "the fabric ran slower than its links");
}

TEST(SummaryReader, AnIncompleteRunsNullsComeBackAsNone) {
  VariantSummary s;
  s.variant = "ecmp";
  s.mode = "inprocess";
  s.algorithm = "ecmp";
  s.stopped_by = gen::StopReason::kTimeout;
  const ordered_json written = to_json(s);
  const VariantSummary read = summary_from_json(written, "summary.json");
  EXPECT_EQ(to_json(read).dump(), written.dump());
  EXPECT_FALSE(read.cct_ns.has_value());
  EXPECT_FALSE(read.congestion_control.has_value());
  EXPECT_TRUE(read.bound.empty());
}

TEST(SummaryReader, AMissingKeyIsNamedWithItsPath) {
  ordered_json j = to_json(everything());
  j["cct"].erase("inflation");
  try {
    summary_from_json(j, "run/ofan-seed=3/summary.json");
    FAIL() << "a summary without cct.inflation was read";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "run/ofan-seed=3/summary.json.cct: no key 'inflation'");
  }
}

TEST(SummaryReader, AWrongTypeOrAnUnknownStopReasonIsAnError) {
  ordered_json j = to_json(everything());
  j["queue"]["by_level"]["0"]["max_bytes"] = "deep";
  EXPECT_THROW(summary_from_json(j, "s.json"), std::invalid_argument);
  j = to_json(everything());
  j["stopped_by"] = "tired";
  EXPECT_THROW(summary_from_json(j, "s.json"), std::invalid_argument);
  j = to_json(everything());
  j["queue"]["by_level"]["leaf"] = j["queue"]["by_level"]["0"];
  EXPECT_THROW(summary_from_json(j, "s.json"), std::invalid_argument);
  EXPECT_THROW(summary_from_json(ordered_json::array(), "s.json"), std::invalid_argument);
}

}  // namespace
}  // namespace spraylab::fabric
