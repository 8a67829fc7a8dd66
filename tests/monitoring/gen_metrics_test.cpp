// The generator collector computes completion times, inflation, latency, reordering and the
// engine counters from the engines' own state (here plain structs an engine would hold).
#include <gtest/gtest.h>
#include <prometheus/check_names.h>
#include <prometheus/text_serializer.h>

#include <cmath>
#include <string>
#include <vector>

#include "monitoring/text_format.h"
#include "tests/monitoring/test_util.h"
#include "trafficgen/gen_metrics.h"

namespace spraylab::monitoring {
namespace {

using gen::EngineView;
using gen::GenCollector;
using gen::GenCounter;
using gen::GenSource;
using gen::kGenCounterMetrics;
using gen::kGenMetrics;

// One engine's state: sends, receives, latency and counters, with TSC = ns (ns_of = identity).
struct FakeEngine {
  std::vector<gen::SendState> sends;
  std::vector<gen::RecvState> recvs;
  gen::LatencyHistogram one_way, rtt;
  std::array<uint64_t, gen::kGenCounters> counters{};

  EngineView view(unsigned lcore) const {
    EngineView v;
    v.lcore = lcore;
    v.sends = &sends;
    v.recvs = &recvs;
    v.one_way = &one_way;
    v.rtt = &rtt;
    v.counters = &counters;
    v.ns_of = [](uint64_t tsc) { return tsc; };
    v.messages_done = [] { return uint64_t{3}; };
    v.acked_bytes = [] { return uint64_t{5000}; };
    return v;
  }
};

gen::SendState send(gen::MessageId id, uint64_t first, uint64_t done_at) {
  gen::SendState s;
  s.id = id;
  s.first_tx_tsc = first;
  s.done = done_at != 0;
  s.done_tsc = done_at;
  return s;
}

// Collective 0: messages 0, 1 (both sent here); collective 1: message 2 (not finished).
gen::Schedule schedule() {
  gen::Schedule s;
  s.ranks = 3;
  const uint32_t a = s.add_collective("a");
  const uint32_t b = s.add_collective("b");
  s.add_message(0, 1, 1000, a);
  s.add_message(1, 2, 1000, a);
  s.add_message(0, 2, 1000, b);
  return s;
}

GenSource source(const gen::Schedule& sch, const std::vector<const FakeEngine*>& engines) {
  GenSource src;
  for (size_t e = 0; e < engines.size(); ++e) src.engines.push_back(engines[e]->view(e + 2));
  src.schedule = &sch;
  src.messages = 3;
  src.message_bound_ns = {10'000, 40'000, 10'000};
  src.collective_bound_ns = {50'000, 10'000};
  return src;
}

TEST(GenCollector, CompletionTimesAndInflationOfMessagesAndCompleteCollectives) {
  const gen::Schedule sch = schedule();
  FakeEngine e0, e1;
  e0.sends = {send(0, 1'000, 20'000), send(2, 5'000, 0)};  // 19 us; message 2 still running
  e1.sends = {send(1, 3'000, 61'000)};                     // 58 us, on another engine
  GenCollector c(source(sch, {&e0, &e1}));
  const auto fs = c.Collect();

  const auto& msg =
      find_family(fs, "spraylab_gen_message_completion_seconds")->metric.at(0).histogram;
  EXPECT_EQ(msg.sample_count, 2u);
  EXPECT_NEAR(msg.sample_sum, 77e-6, 1e-12);
  // 19 us in (10 us, 20 us]; 58 us in (50 us, 100 us].
  auto count_le = [&](const prometheus::ClientMetric::Histogram& h, double le) {
    for (const auto& b : h.bucket) {
      if (std::abs(b.upper_bound - le) < le * 1e-9) return b.cumulative_count;
    }
    ADD_FAILURE() << "no bucket le=" << le;
    return uint64_t{0};
  };
  EXPECT_EQ(count_le(msg, 10e-6), 0u);
  EXPECT_EQ(count_le(msg, 20e-6), 1u);
  EXPECT_EQ(count_le(msg, 50e-6), 1u);
  EXPECT_EQ(count_le(msg, 100e-6), 2u);

  // Inflation: 19/10 - 1 = 0.9 and 58/40 - 1 = 0.45.
  const auto& infl =
      find_family(fs, "spraylab_gen_message_inflation_ratio")->metric.at(0).histogram;
  EXPECT_EQ(infl.sample_count, 2u);
  EXPECT_NEAR(infl.sample_sum, 1.35, 1e-9);
  EXPECT_EQ(count_le(infl, 0.2), 0u);
  EXPECT_EQ(count_le(infl, 0.5), 1u);
  EXPECT_EQ(count_le(infl, 1), 2u);

  // Collective a spans both engines: 1 us to 61 us = 60 us, bound 50 us; b is not complete.
  const auto& cct =
      find_family(fs, "spraylab_gen_collective_completion_seconds")->metric.at(0).histogram;
  EXPECT_EQ(cct.sample_count, 1u);
  EXPECT_NEAR(cct.sample_sum, 60e-6, 1e-12);
  const auto& cinfl =
      find_family(fs, "spraylab_gen_collective_inflation_ratio")->metric.at(0).histogram;
  EXPECT_EQ(cinfl.sample_count, 1u);
  EXPECT_NEAR(cinfl.sample_sum, 0.2, 1e-9);
  EXPECT_EQ(count_le(cinfl, 0.1), 0u);
  EXPECT_EQ(count_le(cinfl, 0.2), 1u);
}

TEST(GenCollector, AMessageMarkedDoneBeforeItsTimestampIsNotCountedYet) {
  const gen::Schedule sch = schedule();
  FakeEngine e;
  e.sends = {send(0, 1'000, 0), send(1, 2'000, 9'000)};
  e.sends[0].done = true;  // the lcore sets done, then done_tsc: a scrape may fall in between
  GenCollector c(source(sch, {&e}));
  const auto fs = c.Collect();
  EXPECT_EQ(find_family(fs, "spraylab_gen_message_completion_seconds")
                ->metric.at(0)
                .histogram.sample_count,
            1u);
  EXPECT_EQ(find_family(fs, "spraylab_gen_collective_completion_seconds")
                ->metric.at(0)
                .histogram.sample_count,
            0u);
}

TEST(GenCollector, LatencyBucketsArePowersOfTwoNanosecondsMergedOverEngines) {
  const gen::Schedule sch = schedule();
  FakeEngine e0, e1;
  e0.one_way.record(100);             // < 128 ns: the first bucket
  e0.one_way.record(1000);            // < 1024 ns
  e1.one_way.record(1024);            // [1024, 2048): le 2048 ns
  e1.one_way.record(20'000'000'000);  // 20 s: above 2^33 ns, +Inf
  e1.rtt.record(3000);
  GenCollector c(source(sch, {&e0, &e1}));
  const auto fs = c.Collect();
  const auto& h = find_family(fs, "spraylab_gen_one_way_latency_seconds")->metric.at(0).histogram;
  const uint32_t n = GenCollector::kLatencyMaxExp - GenCollector::kLatencyMinExp + 1;
  ASSERT_EQ(h.bucket.size(), n + 1);
  EXPECT_DOUBLE_EQ(h.bucket[0].upper_bound, 128e-9);
  EXPECT_DOUBLE_EQ(h.bucket[3].upper_bound, 1024e-9);
  std::vector<uint64_t> want(n + 1, 0);
  want[0] = 1;
  want[3] = 1;  // 1000 ns
  want[4] = 1;  // 1024 ns
  want[n] = 1;
  EXPECT_EQ(bucket_counts(h), want);
  EXPECT_EQ(h.sample_count, 4u);
  EXPECT_NEAR(h.sample_sum, (100 + 1000 + 1024 + 20e9) * 1e-9, 1e-9);
  const auto& rtt = find_family(fs, "spraylab_gen_rtt_seconds")->metric.at(0).histogram;
  EXPECT_EQ(rtt.sample_count, 1u);
  EXPECT_EQ(rtt.bucket[5].cumulative_count, 1u);  // 3000 ns < 4096 ns
  EXPECT_EQ(rtt.bucket[4].cumulative_count, 0u);
}

TEST(GenCollector, ReorderedPacketsGoodputAndEngineCountersPerLcore) {
  const gen::Schedule sch = schedule();
  FakeEngine e0, e1;
  e0.recvs.resize(2);
  for (uint32_t seq : {0, 2, 1, 5, 3, 4}) e0.recvs[0].reorder.on_packet(seq);  // 1, 3, 4 late
  for (uint32_t seq : {1, 0, 0}) e0.recvs[1].reorder.on_packet(seq);  // 0 late, then a duplicate
  e0.counters[static_cast<size_t>(GenCounter::kRetransmits)] = 7;
  e1.counters[static_cast<size_t>(GenCounter::kRetransmits)] = 2;
  e1.counters[static_cast<size_t>(GenCounter::kTxBytes)] = 123456;
  GenCollector c(source(sch, {&e0, &e1}));
  const auto fs = c.Collect();
  EXPECT_EQ(find_family(fs, "spraylab_gen_reordered_packets_total")->metric.at(0).counter.value, 4);
  EXPECT_EQ(find_family(fs, "spraylab_gen_goodput_bytes_total")->metric.at(0).counter.value, 10000);
  EXPECT_EQ(find_family(fs, "spraylab_gen_messages_completed_total")->metric.at(0).counter.value,
            6);
  EXPECT_EQ(find_family(fs, "spraylab_gen_messages")->metric.at(0).gauge.value, 3);
  const auto* retx = find_family(fs, "spraylab_gen_retransmits_total");
  ASSERT_NE(retx, nullptr);
  EXPECT_EQ(sample(*retx, {{"lcore", "2"}}).counter.value, 7);
  EXPECT_EQ(sample(*retx, {{"lcore", "3"}}).counter.value, 2);
  EXPECT_EQ(sample(*find_family(fs, "spraylab_gen_tx_bytes_total"), {{"lcore", "3"}}).counter.value,
            123456);
}

TEST(GenCollector, ItsTextIsWhatPrometheusCppWouldWrite) {
  const gen::Schedule sch = schedule();
  FakeEngine e;
  e.sends = {send(0, 1'000, 20'000), send(1, 3'000, 61'000)};
  e.one_way.record(1500);
  e.counters[static_cast<size_t>(GenCounter::kTxBytes)] = 98765432109;
  GenCollector c(source(sch, {&e}));
  const auto fs = c.Collect();
  std::string text;
  write_text(text, fs);
  EXPECT_EQ(text, prometheus::TextSerializer().Serialize(fs));
}

TEST(GenCollector, ExposesExactlyTheDeclaredMetricsWithValidNames) {
  const gen::Schedule sch = schedule();
  FakeEngine e;
  GenCollector c(source(sch, {&e}));
  const auto fs = c.Collect();
  ASSERT_EQ(fs.size(), kGenMetrics.size() + kGenCounterMetrics.size());
  for (size_t i = 0; i < gen::kGenCounters; ++i) {
    std::string name = gen::kGenCounterNames[i];
    if (i >= gen::kGenFirstNsCounter) {  // <name>_ns in the results, seconds in Prometheus
      ASSERT_TRUE(name.ends_with("_ns")) << name;
      name = name.substr(0, name.size() - 3) + "_seconds";
    }
    EXPECT_EQ(kGenCounterMetrics[i].name, "spraylab_gen_" + name + "_total");
  }
  std::vector<MetricSpec> specs(kGenMetrics.begin(), kGenMetrics.end());
  specs.insert(specs.end(), kGenCounterMetrics.begin(), kGenCounterMetrics.end());
  for (const MetricSpec& spec : specs) {
    SCOPED_TRACE(std::string(spec.name));
    const auto* f = find_family(fs, std::string(spec.name));
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->type, spec.type);
    EXPECT_TRUE(prometheus::CheckMetricName(f->name));
    EXPECT_EQ(f->name.ends_with("_total"), spec.type == prometheus::MetricType::Counter);
  }
}

}  // namespace
}  // namespace spraylab::monitoring
