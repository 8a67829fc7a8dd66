#include "switch/switch_metrics.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace spraylab::dataplane {
namespace {

using monitoring::add_metric;
using monitoring::add_value;
using monitoring::Labels;
using monitoring::make_family;
using monitoring::make_histogram;
using prometheus::MetricFamily;
using Field = Counter PortCounters::*;

struct PortCounterField {
  SwitchMetric metric;
  Field field;
};

constexpr PortCounterField kPortCounterFields[] = {
#define SPRAYLAB_FIELD(id, field) {SwitchMetric::id, &PortCounters::field},
    SPRAYLAB_SWITCH_PORT_COUNTER_FIELDS(SPRAYLAB_FIELD)
#undef SPRAYLAB_FIELD
};

MetricFamily family(SwitchMetric m) { return make_family(spec(m)); }

Labels with(const Labels& base, const char* name, std::string value) {
  Labels l = base;
  l.push_back({name, std::move(value)});
  return l;
}

}  // namespace

SwitchCollector::SwitchCollector(SwitchSource source)
    : src_(std::move(source)),
      samples_(new DepthSamples[src_.peers.size()]),
      packet_bounds_(kPacketBuckets.bounds()),
      paused_reported_(new std::atomic<uint64_t>[src_.peers.size()]()),
      stalled_reported_(new std::atomic<uint64_t>[src_.peers.size()]()) {
  if (src_.peers.size() > kMaxPorts) {
    throw std::invalid_argument("a switch of " + std::to_string(src_.peers.size()) +
                                " ports: the data path counts at most " +
                                std::to_string(kMaxPorts));
  }
  for (size_t p = 0; p < src_.peers.size(); ++p) {
    port_labels_.push_back(
        {{"switch", src_.name}, {"port", std::to_string(p)}, {"peer", src_.peers[p]}});
  }
}

void SwitchCollector::sample_depths() {
  for (uint16_t p = 0; p < port_labels_.size(); ++p) {
    const uint32_t packets = src_.depth(p).packets;
    DepthSamples& s = samples_[p];
    s.packets[kPacketBuckets.index(packets)].inc();
    s.packets_sum.add(packets);
  }
}

std::vector<MetricFamily> SwitchCollector::Collect() const {
  std::vector<MetricFamily> out;
  out.reserve(kSwitchMetrics.size());
  const std::string alg = src_.algorithm ? src_.algorithm() : "";
  MetricFamily info = family(SwitchMetric::kInfo);
  add_value(info, {{"switch", src_.name}, {"algorithm", alg}}, 1);
  out.push_back(std::move(info));
  MetricFamily buffer = family(SwitchMetric::kBufferBytes);
  add_value(buffer, {{"switch", src_.name}}, static_cast<double>(src_.buffer_bytes));
  out.push_back(std::move(buffer));
  collect_ports(out, alg);
  collect_samples(out);
  collect_workers(out);
  collect_pool(out);
  collect_pfc(out);
  collect_credit(out);
  return out;
}

void SwitchCollector::collect_ports(std::vector<MetricFamily>& out, const std::string& alg) const {
  const auto ports = static_cast<uint16_t>(port_labels_.size());
  MetricFamily up = family(SwitchMetric::kPortUp);
  for (uint16_t p = 0; p < ports; ++p) {
    add_value(up, port_labels_[p], src_.port_up && src_.port_up(p) ? 1 : 0);
  }
  out.push_back(std::move(up));
  for (const PortCounterField& f : kPortCounterFields) {
    MetricFamily fam = family(f.metric);
    for (uint16_t p = 0; p < ports; ++p) {
      uint64_t sum = 0;
      for (const WorkerCounters* w : src_.workers) sum += (w->port[p].*f.field).get();
      add_value(fam, port_labels_[p], static_cast<double>(sum));
    }
    out.push_back(std::move(fam));
  }
  MetricFamily drops = family(SwitchMetric::kDrops);
  for (uint16_t p = 0; p < ports; ++p) {
    for (size_t r = 0; r < kDropReasons; ++r) {
      uint64_t sum = 0;
      for (const WorkerCounters* w : src_.workers) sum += w->port[p].drops[r].get();
      add_value(drops, with(port_labels_[p], "reason", std::string(kDropReasonNames[r])),
                static_cast<double>(sum));
    }
  }
  out.push_back(std::move(drops));
  MetricFamily depth_packets = family(SwitchMetric::kDepthPackets);
  MetricFamily depth_bytes = family(SwitchMetric::kDepthBytes);
  MetricFamily max_packets = family(SwitchMetric::kMaxDepthPackets);
  MetricFamily max_bytes = family(SwitchMetric::kMaxDepthBytes);
  for (uint16_t p = 0; p < ports; ++p) {
    const Labels l = with(port_labels_[p], "algorithm", alg);
    const QueueDepth now = src_.depth(p);
    const QueueDepth max = src_.take_max(p);
    add_value(depth_packets, l, now.packets);
    add_value(depth_bytes, l, now.bytes);
    add_value(max_packets, l, max.packets);
    add_value(max_bytes, l, max.bytes);
  }
  out.push_back(std::move(depth_packets));
  out.push_back(std::move(depth_bytes));
  out.push_back(std::move(max_packets));
  out.push_back(std::move(max_bytes));
}

void SwitchCollector::collect_samples(std::vector<MetricFamily>& out) const {
  MetricFamily packets = family(SwitchMetric::kSampledPackets);
  std::array<uint64_t, kPacketBuckets.size() + 1> pc;
  for (size_t p = 0; p < port_labels_.size(); ++p) {
    const DepthSamples& s = samples_[p];
    // The sum is read after the buckets: a sample landing in between makes it slightly high for
    // one scrape, never the counts inconsistent with each other.
    for (size_t i = 0; i < pc.size(); ++i) pc[i] = s.packets[i].get();
    add_metric(packets, port_labels_[p]).histogram =
        make_histogram(packet_bounds_, pc, static_cast<double>(s.packets_sum.get()));
  }
  out.push_back(std::move(packets));
}

void SwitchCollector::collect_workers(std::vector<MetricFamily>& out) const {
  MetricFamily rx = family(SwitchMetric::kWorkerRxPackets);
  MetricFamily busy = family(SwitchMetric::kWorkerBusySeconds);
  MetricFamily loops = family(SwitchMetric::kWorkerLoops);
  for (size_t w = 0; w < src_.workers.size(); ++w) {
    const WorkerCounters& c = *src_.workers[w];
    const Labels l = {{"switch", src_.name},
                      {"lcore", std::to_string(w < src_.lcores.size() ? src_.lcores[w] : w)}};
    uint64_t packets = 0;
    for (size_t p = 0; p < port_labels_.size(); ++p) packets += c.port[p].rx_packets.get();
    add_value(rx, l, static_cast<double>(packets));
    add_value(busy, l, static_cast<double>(c.busy_cycles.get()) / src_.tsc_hz);
    add_value(loops, l, static_cast<double>(c.loops.get()));
  }
  out.push_back(std::move(rx));
  out.push_back(std::move(busy));
  out.push_back(std::move(loops));
}

void SwitchCollector::collect_pool(std::vector<MetricFamily>& out) const {
  MetricFamily in_use = family(SwitchMetric::kMbufsInUse);
  MetricFamily available = family(SwitchMetric::kMbufsAvailable);
  if (src_.mbufs) {
    const MbufCount m = src_.mbufs();
    add_value(in_use, {{"switch", src_.name}}, m.in_use);
    add_value(available, {{"switch", src_.name}}, m.available);
  }
  out.push_back(std::move(in_use));
  out.push_back(std::move(available));
}

}  // namespace spraylab::dataplane

namespace spraylab::dataplane {

uint64_t SwitchCollector::monotone(std::atomic<uint64_t>& reported, uint64_t now_value) {
  uint64_t last = reported.load(std::memory_order_relaxed);
  while (now_value > last &&
         !reported.compare_exchange_weak(last, now_value, std::memory_order_relaxed)) {
  }
  return std::max(last, now_value);
}

void SwitchCollector::collect_pfc(std::vector<MetricFamily>& out) const {
  MetricFamily sent = family(SwitchMetric::kPfcFramesSent);
  MetricFamily received = family(SwitchMetric::kPfcFramesReceived);
  MetricFamily paused = family(SwitchMetric::kPfcPausedSeconds);
  MetricFamily failures = family(SwitchMetric::kPfcSendFailures);
  for (uint16_t p = 0; src_.pfc && p < port_labels_.size(); ++p) {
    const PfcPortStats s = src_.pfc(p);
    const Labels& l = port_labels_[p];
    add_value(sent, with(l, "kind", "pause"), static_cast<double>(s.pause_sent));
    add_value(sent, with(l, "kind", "resume"), static_cast<double>(s.resume_sent));
    add_value(received, with(l, "kind", "pause"), static_cast<double>(s.pause_received));
    add_value(received, with(l, "kind", "resume"), static_cast<double>(s.resume_received));
    add_value(paused, l, static_cast<double>(monotone(paused_reported_[p], s.paused_ns)) * 1e-9);
    add_value(failures, l, static_cast<double>(s.send_failed));
  }
  out.push_back(std::move(sent));
  out.push_back(std::move(received));
  out.push_back(std::move(paused));
  out.push_back(std::move(failures));
}

void SwitchCollector::collect_credit(std::vector<MetricFamily>& out) const {
  MetricFamily consumed = family(SwitchMetric::kCreditsConsumed);
  MetricFamily freed = family(SwitchMetric::kCreditsFreed);
  MetricFamily stalled = family(SwitchMetric::kCreditStalledSeconds);
  for (uint16_t p = 0; src_.credit && p < port_labels_.size(); ++p) {
    const CreditPortStats s = src_.credit(p);
    const Labels& l = port_labels_[p];
    add_value(consumed, l, static_cast<double>(s.consumed));
    add_value(freed, l, static_cast<double>(s.freed));
    add_value(stalled, l, static_cast<double>(monotone(stalled_reported_[p], s.stalled_ns)) * 1e-9);
  }
  out.push_back(std::move(consumed));
  out.push_back(std::move(freed));
  out.push_back(std::move(stalled));
}

}  // namespace spraylab::dataplane
