#include "trafficgen/results.h"

#include <algorithm>
#include <map>

#include "conf/units.h"
#include "topo/addressing.h"

namespace spraylab::gen {
namespace {

nlohmann::ordered_json latency_json(const LatencyHistogram& h) {
  return {{"samples", h.count()},
          {"min", h.min()},
          {"mean", h.mean()},
          {"p50", h.percentile(0.5)},
          {"p90", h.percentile(0.9)},
          {"p99", h.percentile(0.99)},
          {"p999", h.percentile(0.999)},
          {"max", h.max()}};
}

struct CollectiveSpan {
  uint64_t first_tx_ns = UINT64_MAX;
  uint64_t last_ack_ns = 0;
  uint64_t messages = 0, done = 0, bytes = 0;
  uint32_t hops = 1;
};

}  // namespace

nlohmann::ordered_json counters_json(const std::vector<const HostEngine*>& engines) {
  nlohmann::ordered_json j;
  for (size_t c = 0; c < kGenCounters; ++c) {
    uint64_t v = 0;
    for (const HostEngine* e : engines) v += e->counter(static_cast<GenCounter>(c));
    j[kGenCounterNames[c]] = v;
  }
  return j;
}

std::vector<CctBound> collective_bounds(const RunPlan& plan,
                                        const std::vector<const HostEngine*>& engines) {
  const Schedule& sch = plan.schedule;
  std::vector<std::map<uint32_t, uint64_t>> bytes_per_sender(sch.collectives.size());
  std::vector<uint32_t> hops(sch.collectives.size(), 1);
  for (const HostEngine* e : engines) {
    for (const SendState& s : e->sends()) {
      const Message& m = sch.messages[s.id];
      bytes_per_sender[m.collective][m.src] += s.bytes;
      hops[m.collective] = std::max(hops[m.collective], plan.message_hops[s.id]);
    }
  }
  std::vector<CctBound> bounds(sch.collectives.size());
  for (size_t c = 0; c < bounds.size(); ++c) {
    uint64_t busiest = 0;
    for (const auto& [src, bytes] : bytes_per_sender[c]) busiest = std::max(busiest, bytes);
    if (busiest > 0) bounds[c] = message_bound(plan, busiest, hops[c]);
  }
  return bounds;
}

nlohmann::ordered_json results_json(const RunPlan& plan,
                                    const std::vector<const HostEngine*>& engines,
                                    const RunInfo& run) {
  using nlohmann::ordered_json;
  const Schedule& sch = plan.schedule;
  ordered_json j;
  j["config"] = run.config;
  j["completed"] = run.completed;
  j["stopped_by"] = std::string(to_string(run.stopped_by));
  for (const HostSpec& h : plan.hosts) {
    j["hosts"].push_back({{"name", h.name},
                          {"rank", h.rank},
                          {"ip", topo::ip_to_string(h.ip)},
                          {"mac", topo::mac_to_string(h.mac)},
                          {"port", h.port}});
  }
  j["settings"] = {{"rate_bps", plan.rate_bps},
                   {"link_rate_bps", plan.link_rate_bps},
                   {"payload_bytes", plan.payload_bytes},
                   {"ack_every", plan.ack_every},
                   {"entropy", std::string(to_string(plan.entropy))},
                   {"retransmit_timeout_ns", plan.retransmit_timeout_ns},
                   {"loss", plan.loss}};
  j["path_model"] = {{"rate_bps", plan.path.rate_bps},
                     {"link_delay_ns", plan.path.link_delay_ns},
                     {"data_header_bytes", plan.path.header_bytes},
                     {"ack_bytes", plan.path.ack_bytes},
                     {"gap_bytes", plan.path.gap_bytes}};
  j["start_ns"] = run.start_ns;
  j["end_ns"] = run.end_ns;
  j["elapsed_ns"] = run.end_ns - run.start_ns;

  std::vector<CollectiveSpan> spans(sch.collectives.size());
  uint64_t first_tx = UINT64_MAX, last_ack = 0, acked_bytes = 0;
  ordered_json messages = ordered_json::array();
  for (const HostEngine* e : engines) {
    for (const SendState& s : e->sends()) {
      const Message& m = sch.messages[s.id];
      const uint32_t hops = plan.message_hops[s.id];
      const CctBound b = message_bound(plan, s.bytes, hops);
      ordered_json mj = {{"id", s.id},
                         {"src", m.src},
                         {"dst", m.dst},
                         {"bytes", s.bytes},
                         {"collective", m.collective},
                         {"packets", s.packets},
                         {"hops", hops},
                         {"completed", s.done},
                         {"tx_packets", s.tx_packets},
                         {"retransmits", s.retransmits},
                         {"ecn_echoes", s.ecn_echoes}};
      CollectiveSpan& c = spans[m.collective];
      ++c.messages;
      c.bytes += s.bytes;
      c.hops = std::max(c.hops, hops);
      if (s.first_tx_tsc != 0) {
        const uint64_t f = e->ns_of(s.first_tx_tsc);
        mj["first_tx_ns"] = f;
        c.first_tx_ns = std::min(c.first_tx_ns, f);
        first_tx = std::min(first_tx, f);
      }
      if (s.done) {
        const uint64_t l = e->ns_of(s.done_tsc);
        const uint64_t f = e->ns_of(s.first_tx_tsc);
        mj["last_ack_ns"] = l;
        mj["completion_ns"] = l - f;
        mj["bound_ns"] = b.total_ns;
        mj["inflation"] = static_cast<double>(l - f) / b.total_ns - 1;
        ++c.done;
        c.last_ack_ns = std::max(c.last_ack_ns, l);
        last_ack = std::max(last_ack, l);
        acked_bytes += s.bytes;
      } else {
        mj["bound_ns"] = b.total_ns;
      }
      messages.push_back(std::move(mj));
    }
  }
  ordered_json collectives = ordered_json::array();
  const std::vector<CctBound> bounds = collective_bounds(plan, engines);
  for (const Collective& c : sch.collectives) {
    const CollectiveSpan& s = spans[c.id];
    if (s.messages == 0) continue;  // none sent from here
    const CctBound& b = bounds[c.id];
    ordered_json cj = {{"id", c.id},
                       {"name", c.name},
                       {"iteration", c.iteration},
                       {"messages", s.messages},
                       {"completed_messages", s.done},
                       {"bytes", s.bytes},
                       {"hops", s.hops},
                       {"bound_ns", b.total_ns},
                       {"bound",
                        {{"packets", b.packets},
                         {"data_only_packets", b.data_only_packets},
                         {"data_only_ns", b.data_only_ns},
                         {"interleaved_ns", b.interleaved_ns},
                         {"acks_only_ns", b.acks_only_ns}}}};
    if (s.done == s.messages && s.first_tx_ns != UINT64_MAX) {
      cj["first_tx_ns"] = s.first_tx_ns;
      cj["last_ack_ns"] = s.last_ack_ns;
      cj["cct_ns"] = s.last_ack_ns - s.first_tx_ns;
      cj["inflation"] = static_cast<double>(s.last_ack_ns - s.first_tx_ns) / b.total_ns - 1;
    }
    collectives.push_back(std::move(cj));
  }
  j["collectives"] = std::move(collectives);

  LatencyHistogram one_way, rtt;
  uint64_t rx_msgs = 0, rx_done = 0, missing = 0, received = 0, unique = 0, ooo = 0, dup = 0,
           max_dist = 0;
  std::array<uint64_t, ReorderTracker::kBuckets> hist{};
  for (const HostEngine* e : engines) {
    one_way.merge(e->one_way());
    rtt.merge(e->rtt());
    for (const RecvState& r : e->recvs()) {
      ++rx_msgs;
      rx_done += r.done;
      missing += r.reorder.missing_count(r.packets);
      received += r.reorder.received();
      unique += r.reorder.unique();
      ooo += r.reorder.out_of_order();
      dup += r.reorder.duplicates();
      max_dist = std::max(max_dist, r.reorder.max_distance());
      for (uint32_t b = 0; b < ReorderTracker::kBuckets; ++b) {
        hist[b] += r.reorder.distance_histogram()[b];
      }
    }
  }
  j["latency_ns"] = {{"one_way", latency_json(one_way)}, {"rtt", latency_json(rtt)}};
  const uint64_t span = last_ack > first_tx && first_tx != UINT64_MAX ? last_ack - first_tx : 0;
  j["goodput"] = {{"acked_bytes", acked_bytes},
                  {"first_tx_ns", first_tx == UINT64_MAX ? 0 : first_tx},
                  {"last_ack_ns", last_ack},
                  {"bps", span ? static_cast<double>(acked_bytes) * 8e9 / span : 0.0}};
  const ordered_json counters = counters_json(engines);
  const uint64_t tx_data = counters["tx_data_packets"].get<uint64_t>();
  const uint64_t retx = counters["retransmits"].get<uint64_t>();
  j["loss"] = {{"injected_data_drops", counters["injected_data_drops"]},
               {"injected_ack_drops", counters["injected_ack_drops"]},
               {"retransmits", retx},
               {"timeouts", counters["timeouts"]},
               {"retransmit_fraction", tx_data ? static_cast<double>(retx) / tx_data : 0.0},
               {"missing_at_end", missing}};
  ordered_json h = ordered_json::array();
  for (uint64_t v : hist) h.push_back(v);
  j["reordering"] = {{"messages_received", rx_msgs}, {"messages_complete", rx_done},
                     {"received", received},         {"unique", unique},
                     {"out_of_order", ooo},          {"duplicates", dup},
                     {"max_distance", max_dist},     {"distance_histogram_log2", h}};
  uint64_t busy = 0;
  for (const HostEngine* e : engines) busy += e->busy_cycles();
  j["busy_cycles"] = busy;
  j["counters"] = counters;
  j["messages"] = std::move(messages);
  return j;
}

}  // namespace spraylab::gen
