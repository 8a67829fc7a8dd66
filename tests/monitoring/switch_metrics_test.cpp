// The switch collector reads the data path's own per-worker counters (WorkerCounters) and queue
// depths at scrape time: sums over workers, labels, drop reasons, maxima, sampled histograms.
#include <gtest/gtest.h>
#include <prometheus/check_names.h>
#include <prometheus/text_serializer.h>

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "monitoring/registry.h"
#include "monitoring/text_format.h"
#include "switch/switch_metrics.h"
#include "tests/monitoring/test_util.h"

namespace spraylab::monitoring {
namespace {

using dataplane::DropReason;
using dataplane::kSwitchMetrics;
using dataplane::CreditPortStats;
using dataplane::MbufCount;
using dataplane::PfcPortStats;
using dataplane::QueueDepth;
using dataplane::SwitchCollector;
using dataplane::SwitchSource;
using dataplane::WorkerCounters;

// A switch of three ports and two workers whose counters the test writes, as the workers would.
struct FakeSwitch {
  std::vector<std::unique_ptr<WorkerCounters>> workers;
  std::vector<QueueDepth> depth{3};
  std::vector<QueueDepth> max{3};
  std::vector<int> max_reads = std::vector<int>(3, 0);
  std::string algorithm = "ofan";
  MbufCount mbufs{300, 7892};
  std::vector<PfcPortStats> pfc{3};
  std::vector<CreditPortStats> credit{3};

  FakeSwitch() {
    workers.push_back(std::make_unique<WorkerCounters>());
    workers.push_back(std::make_unique<WorkerCounters>());
  }
  SwitchSource source() {
    SwitchSource s;
    s.name = "leaf0";
    s.peers = {"h0", "h1", "spine0"};
    for (const auto& w : workers) s.workers.push_back(w.get());
    s.lcores = {1, 3};
    s.tsc_hz = 2e9;
    s.buffer_bytes = 800'000;
    s.algorithm = [this] { return algorithm; };
    s.port_up = [](uint16_t p) { return p != 2; };
    s.depth = [this](uint16_t p) { return depth[p]; };
    s.take_max = [this](uint16_t p) {
      ++max_reads[p];
      const QueueDepth m = max[p];
      max[p] = depth[p];  // as SwitchRuntime::take_max_depth: the next interval starts at now
      return m;
    };
    s.mbufs = [this] { return mbufs; };
    s.pfc = [this](uint16_t p) { return pfc[p]; };
    s.credit = [this](uint16_t p) { return credit[p]; };
    return s;
  }
};

TEST(SwitchCollector, PortCountersAreSummedOverWorkersWithSwitchPortAndPeerLabels) {
  FakeSwitch sw;
  sw.workers[0]->port[1].rx_packets.add(10);
  sw.workers[1]->port[1].rx_packets.add(32);
  sw.workers[0]->port[2].tx_bytes.add(1500);
  sw.workers[1]->port[2].tx_bytes.add(64);
  sw.workers[1]->port[2].lb_decisions.add(7);
  sw.workers[0]->port[0].ecn_marks.add(2);
  sw.workers[0]->port[2].trims.add(3);
  sw.workers[1]->port[2].trims.add(4);
  SwitchCollector c(sw.source());
  const auto fs = c.Collect();

  const auto* rx = find_family(fs, "spraylab_switch_rx_packets_total");
  ASSERT_NE(rx, nullptr);
  EXPECT_EQ(rx->type, prometheus::MetricType::Counter);
  ASSERT_EQ(rx->metric.size(), 3u);  // one per port
  const auto& m = sample(*rx, {{"port", "1"}});
  EXPECT_EQ(labels_of(m), (std::map<std::string, std::string>{
                              {"switch", "leaf0"}, {"port", "1"}, {"peer", "h1"}}));
  EXPECT_EQ(m.counter.value, 42);
  EXPECT_EQ(sample(*rx, {{"port", "0"}}).counter.value, 0);
  EXPECT_EQ(
      sample(*find_family(fs, "spraylab_switch_tx_bytes_total"), {{"port", "2"}}).counter.value,
      1564);
  EXPECT_EQ(sample(*find_family(fs, "spraylab_switch_lb_decisions_total"), {{"peer", "spine0"}})
                .counter.value,
            7);
  EXPECT_EQ(
      sample(*find_family(fs, "spraylab_switch_ecn_marks_total"), {{"port", "0"}}).counter.value,
      2);
  // buffer.trim: trims per port, summed over workers.
  const auto* trims = find_family(fs, "spraylab_switch_trims_total");
  ASSERT_NE(trims, nullptr);
  EXPECT_EQ(sample(*trims, {{"port", "2"}}).counter.value, 7);
  EXPECT_EQ(sample(*trims, {{"port", "1"}}).counter.value, 0);
}

TEST(SwitchCollector, EveryDropReasonOfEveryPortIsASeries) {
  FakeSwitch sw;
  sw.workers[0]->port[2].drops[static_cast<size_t>(DropReason::kQueueFull)].add(5);
  sw.workers[1]->port[2].drops[static_cast<size_t>(DropReason::kQueueFull)].add(6);
  sw.workers[1]->port[0].drops[static_cast<size_t>(DropReason::kNoRoute)].add(1);
  SwitchCollector c(sw.source());
  const auto fs = c.Collect();
  const auto* drops = find_family(fs, "spraylab_switch_drops_total");
  ASSERT_NE(drops, nullptr);
  EXPECT_EQ(drops->metric.size(), 3 * dataplane::kDropReasons);
  for (std::string_view reason : dataplane::kDropReasonNames) {
    EXPECT_EQ(sample(*drops, {{"port", "1"}, {"reason", std::string(reason)}}).counter.value, 0);
  }
  EXPECT_EQ(sample(*drops, {{"port", "2"}, {"reason", "queue_full"}}).counter.value, 11);
  EXPECT_EQ(sample(*drops, {{"port", "0"}, {"reason", "no_route"}}).counter.value, 1);
}

TEST(SwitchCollector, DepthNowAndMaximaSinceTheLastScrapeCarryTheAlgorithm) {
  FakeSwitch sw;
  sw.depth[1] = {3, 4500};
  sw.max[1] = {40, 60'000};
  SwitchCollector c(sw.source());
  auto fs = c.Collect();
  const std::map<std::string, std::string> port1 = {{"port", "1"}, {"algorithm", "ofan"}};
  EXPECT_EQ(sample(*find_family(fs, "spraylab_switch_queue_depth_packets"), port1).gauge.value, 3);
  EXPECT_EQ(sample(*find_family(fs, "spraylab_switch_queue_depth_bytes"), port1).gauge.value, 4500);
  EXPECT_EQ(sample(*find_family(fs, "spraylab_switch_queue_max_depth_packets"), port1).gauge.value,
            40);
  EXPECT_EQ(sample(*find_family(fs, "spraylab_switch_queue_max_depth_bytes"), port1).gauge.value,
            60'000);
  EXPECT_EQ(sw.max_reads, (std::vector<int>{1, 1, 1}));  // one reset per port per scrape
  // The next scrape reports the maximum of the new interval, and the algorithm of now.
  sw.algorithm = "psp";
  fs = c.Collect();
  EXPECT_EQ(sample(*find_family(fs, "spraylab_switch_queue_max_depth_packets"),
                   {{"port", "1"}, {"algorithm", "psp"}})
                .gauge.value,
            3);
  EXPECT_EQ(sample(*find_family(fs, "spraylab_switch_info"), {}).gauge.value, 1);
  EXPECT_EQ(labels_of(find_family(fs, "spraylab_switch_info")->metric[0]).at("algorithm"), "psp");
}

TEST(SwitchCollector, TheSampledDepthHistogramCountsEachSampleInItsBucket) {
  FakeSwitch sw;
  SwitchCollector c(sw.source());
  // Port 0 samples: 0, 1, 3, 5000 packets.
  const std::vector<QueueDepth> seq = {{0, 0}, {1, 1000}, {3, 3000}, {5000, 20'000'000}};
  for (const QueueDepth& d : seq) {
    sw.depth[0] = d;
    c.sample_depths();
  }
  const auto fs = c.Collect();
  const auto* packets = find_family(fs, "spraylab_switch_queue_depth_sampled_packets");
  ASSERT_NE(packets, nullptr);
  EXPECT_EQ(packets->type, prometheus::MetricType::Histogram);
  const auto& h = sample(*packets, {{"port", "0"}}).histogram;
  const std::vector<double> bounds = SwitchCollector::kPacketBuckets.bounds();
  ASSERT_EQ(h.bucket.size(), bounds.size() + 1);
  for (size_t i = 0; i < bounds.size(); ++i) EXPECT_EQ(h.bucket[i].upper_bound, bounds[i]);
  std::vector<uint64_t> want(bounds.size() + 1, 0);
  want[0] = 1;              // 0
  want[1] = 1;              // 1
  want[3] = 1;              // 3 <= 4
  want[bounds.size()] = 1;  // 5000 > 4096: +Inf
  EXPECT_EQ(bucket_counts(h), want);
  EXPECT_EQ(h.sample_count, 4u);
  EXPECT_EQ(h.sample_sum, 5004);
  // Every port is sampled each time, idle ones at 0.
  EXPECT_EQ(sample(*packets, {{"port", "2"}}).histogram.bucket[0].cumulative_count, 4u);
}

TEST(SwitchCollector, WorkersAreLabelledByLcoreWithBusySeconds) {
  FakeSwitch sw;
  sw.workers[1]->busy_cycles.add(3'000'000'000);  // 1.5 s at 2 GHz
  sw.workers[1]->loops.add(99);
  sw.workers[1]->port[0].rx_packets.add(4);
  sw.workers[1]->port[2].rx_packets.add(5);
  SwitchCollector c(sw.source());
  const auto fs = c.Collect();
  EXPECT_DOUBLE_EQ(
      sample(*find_family(fs, "spraylab_switch_worker_busy_seconds_total"), {{"lcore", "3"}})
          .counter.value,
      1.5);
  EXPECT_EQ(sample(*find_family(fs, "spraylab_switch_worker_loops_total"), {{"lcore", "3"}})
                .counter.value,
            99);
  EXPECT_EQ(sample(*find_family(fs, "spraylab_switch_worker_rx_packets_total"), {{"lcore", "3"}})
                .counter.value,
            9);
  EXPECT_EQ(sample(*find_family(fs, "spraylab_switch_worker_rx_packets_total"), {{"lcore", "1"}})
                .counter.value,
            0);
  EXPECT_EQ(sample(*find_family(fs, "spraylab_switch_port_up"), {{"port", "2"}}).gauge.value, 0);
  EXPECT_EQ(sample(*find_family(fs, "spraylab_switch_port_up"), {{"port", "0"}}).gauge.value, 1);
  EXPECT_EQ(sample(*find_family(fs, "spraylab_switch_buffer_bytes"), {}).gauge.value, 800'000);
}

TEST(SwitchCollector, TheMbufPoolIsReadAtEachScrape) {
  FakeSwitch sw;
  SwitchCollector c(sw.source());
  EXPECT_EQ(sample(*find_family(c.Collect(), "spraylab_switch_mbufs_in_use"), {}).gauge.value, 300);
  sw.mbufs = {12, 8180};
  const auto fs = c.Collect();
  EXPECT_EQ(sample(*find_family(fs, "spraylab_switch_mbufs_in_use"), {}).gauge.value, 12);
  EXPECT_EQ(sample(*find_family(fs, "spraylab_switch_mbufs_available"), {}).gauge.value, 8180);
}

TEST(SwitchCollector, EgressPacketsAreAPortCounter) {
  FakeSwitch sw;
  sw.workers[0]->port[0].egress_packets.add(5);
  sw.workers[1]->port[0].egress_packets.add(6);
  SwitchCollector c(sw.source());
  EXPECT_EQ(
      sample(*find_family(c.Collect(), "spraylab_switch_egress_packets_total"), {{"port", "0"}})
          .counter.value,
      11);
}

TEST(SwitchCollector, PfcFramesByKindPausedSecondsAndSendFailuresArePerPort) {
  FakeSwitch sw;
  sw.pfc[0] = {.pause_sent = 4, .resume_sent = 3, .send_failed = 2};
  sw.pfc[2] = {.pause_received = 5, .resume_received = 1, .paused_ns = 1'500'000'000};
  SwitchCollector c(sw.source());
  const auto fs = c.Collect();
  const auto* sent = find_family(fs, "spraylab_switch_pfc_frames_sent_total");
  const auto* received = find_family(fs, "spraylab_switch_pfc_frames_received_total");
  ASSERT_NE(sent, nullptr);
  ASSERT_NE(received, nullptr);
  EXPECT_EQ(sample(*sent, {{"port", "0"}, {"peer", "h0"}, {"kind", "pause"}}).counter.value, 4);
  EXPECT_EQ(sample(*sent, {{"port", "0"}, {"kind", "resume"}}).counter.value, 3);
  EXPECT_EQ(sample(*sent, {{"port", "2"}, {"kind", "pause"}}).counter.value, 0);
  EXPECT_EQ(sample(*received, {{"port", "2"}, {"kind", "pause"}}).counter.value, 5);
  EXPECT_EQ(sample(*received, {{"port", "2"}, {"kind", "resume"}}).counter.value, 1);
  EXPECT_EQ(sample(*find_family(fs, "spraylab_switch_pfc_paused_seconds_total"), {{"port", "2"}})
                .counter.value,
            1.5);
  EXPECT_EQ(sample(*find_family(fs, "spraylab_switch_pfc_send_failures_total"), {{"port", "0"}})
                .counter.value,
            2);
}

TEST(SwitchCollector, PausedAndStalledTimesNeverGoBackBetweenScrapes) {
  // A scrape that read a pause's words mid-update may see a sum that a later one does not: the
  // counter keeps the larger, as Prometheus needs of a counter.
  FakeSwitch sw;
  sw.pfc[1].paused_ns = 2'000'000'000;
  sw.credit[1].stalled_ns = 3'000'000'000;
  SwitchCollector c(sw.source());
  static_cast<void>(c.Collect());
  sw.pfc[1].paused_ns = 1'000'000'000;
  sw.credit[1].stalled_ns = 1'000'000'000;
  auto fs = c.Collect();
  EXPECT_EQ(sample(*find_family(fs, "spraylab_switch_pfc_paused_seconds_total"), {{"port", "1"}})
                .counter.value,
            2);
  EXPECT_EQ(sample(*find_family(fs, "spraylab_switch_credit_stalled_seconds_total"),
                   {{"port", "1"}})
                .counter.value,
            3);
  sw.pfc[1].paused_ns = 2'500'000'000;
  fs = c.Collect();
  EXPECT_EQ(sample(*find_family(fs, "spraylab_switch_pfc_paused_seconds_total"), {{"port", "1"}})
                .counter.value,
            2.5);
}

TEST(SwitchCollector, CreditsConsumedAndFreedArePerPort) {
  FakeSwitch sw;
  sw.credit[0] = {.consumed = 700, .freed = 650};
  SwitchCollector c(sw.source());
  const auto fs = c.Collect();
  EXPECT_EQ(sample(*find_family(fs, "spraylab_switch_credits_consumed_total"), {{"port", "0"}})
                .counter.value,
            700);
  EXPECT_EQ(sample(*find_family(fs, "spraylab_switch_credits_freed_total"), {{"port", "0"}})
                .counter.value,
            650);
}

TEST(SwitchCollector, WithoutLosslessLinksTheirFamiliesAreEmpty) {
  FakeSwitch sw;
  SwitchSource s = sw.source();
  s.pfc = nullptr;
  s.credit = nullptr;
  SwitchCollector c(std::move(s));
  const auto fs = c.Collect();
  EXPECT_TRUE(find_family(fs, "spraylab_switch_pfc_frames_sent_total")->metric.empty());
  EXPECT_TRUE(find_family(fs, "spraylab_switch_credits_freed_total")->metric.empty());
}

TEST(SwitchCollector, ExposesExactlyTheDeclaredMetricsWithTheirLabelsAndValidNames) {
  FakeSwitch sw;
  SwitchCollector c(sw.source());
  const auto fs = c.Collect();
  ASSERT_EQ(fs.size(), kSwitchMetrics.size());
  for (size_t i = 0; i < fs.size(); ++i) {
    const MetricSpec& spec = kSwitchMetrics[i];
    SCOPED_TRACE(std::string(spec.name));
    const auto* f = find_family(fs, std::string(spec.name));
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->type, spec.type);
    EXPECT_TRUE(prometheus::CheckMetricName(f->name));
    EXPECT_EQ(f->name.ends_with("_total"), spec.type == prometheus::MetricType::Counter);
    ASSERT_FALSE(f->metric.empty());
    std::string labels;
    for (const auto& l : f->metric[0].label) labels += (labels.empty() ? "" : ",") + l.name;
    EXPECT_EQ(labels, spec.labels);
  }
}

TEST(SwitchCollector, ItsTextIsWhatPrometheusCppWouldWrite) {
  FakeSwitch sw;
  sw.workers[0]->port[1].tx_bytes.add(123456789012);
  sw.depth[1] = {7, 9000};
  SwitchCollector c(sw.source());
  c.sample_depths();
  const auto fs = c.Collect();
  std::string text;
  write_text(text, fs);
  EXPECT_EQ(text, prometheus::TextSerializer().Serialize(fs));
}

TEST(SwitchCollector, ScrapesThroughTheRegistryAsPrometheusText) {
  FakeSwitch sw;
  sw.workers[0]->port[2].drops[static_cast<size_t>(DropReason::kQueueFull)].add(3);
  Registry r;
  r.add(std::make_shared<SwitchCollector>(sw.source()));
  const std::string text = r.serialize();
  EXPECT_NE(text.find("# TYPE spraylab_switch_drops_total counter"), std::string::npos);
  EXPECT_NE(text.find("spraylab_switch_drops_total{switch=\"leaf0\",port=\"2\",peer=\"spine0\","
                      "reason=\"queue_full\"} 3"),
            std::string::npos)
      << text.substr(0, 2000);
}

}  // namespace
}  // namespace spraylab::monitoring
