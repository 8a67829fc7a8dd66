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

nlohmann::ordered_json counters_json(const std::array<uint64_t, kGenCounters>& counters) {
  nlohmann::ordered_json j;
  // The cc rccc counters only where credits ran, the PFC ones only where a MAC control frame
  // arrived (all 0 otherwise): results as they were.
  bool credits = false, pfc = false;
  for (size_t c = 0; c < kGenCounters; ++c) {
    credits = credits || (rccc_counter(static_cast<GenCounter>(c)) && counters[c] != 0);
    pfc = pfc || (pfc_counter(static_cast<GenCounter>(c)) && counters[c] != 0);
  }
  for (size_t c = 0; c < kGenCounters; ++c) {
    const auto id = static_cast<GenCounter>(c);
    if ((credits || !rccc_counter(id)) && (pfc || !pfc_counter(id))) {
      j[kGenCounterNames[c]] = counters[c];
    }
  }
  return j;
}

}  // namespace

nlohmann::ordered_json counters_json(const std::vector<const HostEngine*>& engines) {
  std::array<uint64_t, kGenCounters> sum{};
  for (size_t c = 0; c < kGenCounters; ++c) {
    for (const HostEngine* e : engines) sum[c] += e->counter(static_cast<GenCounter>(c));
  }
  return counters_json(sum);
}

std::vector<CollectiveBound> collective_bounds(const RunPlan& plan,
                                               const std::vector<const HostEngine*>& engines) {
  const Schedule& sch = plan.schedule;
  std::vector<std::vector<MessageId>> sent_here(sch.collectives.size());
  for (const HostEngine* e : engines) {
    for (const SendState& s : e->sends()) sent_here[sch.messages[s.id].collective].push_back(s.id);
  }
  CollectiveBoundInput in;
  in.workload = plan.workload;
  in.schedule = &sch;
  in.hops = &plan.message_hops;
  in.permutation_path = plan.path;
  in.wire = bound_wire(plan);
  std::vector<CollectiveBound> bounds(sch.collectives.size());
  for (size_t c = 0; c < bounds.size(); ++c) {
    in.messages = sent_here[c];
    bounds[c] = collective_bound(in);
  }
  return bounds;
}

namespace {

// ---- Figures ----------------------------------------------------------------------------------

MessageFigures message_figures(const RunPlan& plan, const HostEngine& e, const SendState& s) {
  const Message& m = plan.schedule.messages[s.id];
  MessageFigures f;
  f.id = s.id;
  f.src = m.src;
  f.dst = m.dst;
  f.bytes = s.bytes;
  f.collective = m.collective;
  f.packets = s.packets;
  f.hops = plan.message_hops[s.id];
  f.completed = s.done;
  f.tx_packets = s.tx_packets;
  f.retransmits = s.retransmits;
  f.ecn_echoes = s.ecn_echoes;
  f.bound_ns = message_bound(plan, s.bytes, f.hops).total_ns;
  f.sent = s.first_tx_tsc != 0;
  if (f.sent) f.first_tx_ns = e.ns_of(s.first_tx_tsc);
  if (s.done) {
    f.last_ack_ns = e.ns_of(s.done_tsc);
    f.completion_ns = f.last_ack_ns - e.ns_of(s.first_tx_tsc);
    f.inflation = static_cast<double>(f.completion_ns) / f.bound_ns - 1;
  }
  return f;
}

// Per collective: the span of its messages sent from here, against its bound.
std::vector<CollectiveFigures> collective_figures(const RunPlan& plan,
                                                  const std::vector<const HostEngine*>& engines,
                                                  const std::vector<MessageFigures>& messages) {
  std::vector<CollectiveFigures> all(plan.schedule.collectives.size());
  for (const MessageFigures& m : messages) {
    CollectiveFigures& c = all[m.collective];
    ++c.messages;
    c.bytes += m.bytes;
    c.hops = std::max(c.hops, m.hops);
    if (m.sent) c.first_tx_ns = std::min(c.first_tx_ns, m.first_tx_ns);
    if (m.completed) {
      ++c.completed_messages;
      c.last_ack_ns = std::max(c.last_ack_ns, m.last_ack_ns);
    }
  }
  const std::vector<CollectiveBound> bounds = collective_bounds(plan, engines);
  std::vector<CollectiveFigures> out;
  for (const Collective& col : plan.schedule.collectives) {
    CollectiveFigures c = all[col.id];
    if (c.messages == 0) continue;  // none sent from here
    c.id = col.id;
    c.name = col.name;
    c.iteration = col.iteration;
    c.bound = bounds[col.id];
    c.completed = c.completed_messages == c.messages && c.first_tx_ns != UINT64_MAX;
    if (c.completed) {
      c.cct_ns = c.last_ack_ns - c.first_tx_ns;
      c.inflation = static_cast<double>(c.cct_ns) / c.bound.total_ns - 1;
    }
    out.push_back(c);
  }
  return out;
}

// Acknowledged bytes over the span from the first transmission to the last ACK.
GoodputFigures goodput_figures(const std::vector<MessageFigures>& messages) {
  uint64_t first_tx = UINT64_MAX, last_ack = 0, acked_bytes = 0;
  for (const MessageFigures& m : messages) {
    if (m.sent) first_tx = std::min(first_tx, m.first_tx_ns);
    if (m.completed) {
      last_ack = std::max(last_ack, m.last_ack_ns);
      acked_bytes += m.bytes;
    }
  }
  const uint64_t span = last_ack > first_tx && first_tx != UINT64_MAX ? last_ack - first_tx : 0;
  GoodputFigures g;
  g.acked_bytes = acked_bytes;
  g.first_tx_ns = first_tx == UINT64_MAX ? 0 : first_tx;
  g.last_ack_ns = last_ack;
  g.bps = span ? static_cast<double>(acked_bytes) * 8e9 / span : 0.0;
  return g;
}

ReorderFigures reorder_figures(const std::vector<const HostEngine*>& engines, uint64_t* missing) {
  ReorderFigures f;
  for (const HostEngine* e : engines) {
    for (const RecvState& r : e->recvs()) {
      ++f.messages_received;
      f.messages_complete += r.done;
      *missing += r.reorder.missing_count(r.packets);
      f.received += r.reorder.received();
      f.unique += r.reorder.unique();
      f.out_of_order += r.reorder.out_of_order();
      f.duplicates += r.reorder.duplicates();
      f.max_distance = std::max(f.max_distance, r.reorder.max_distance());
      for (uint32_t b = 0; b < ReorderTracker::kBuckets; ++b) {
        f.distance_histogram_log2[b] += r.reorder.distance_histogram()[b];
      }
    }
  }
  return f;
}

// Payload bytes received once each: every unique packet is a full payload but a message's last,
// which carries what is left of the message.
uint64_t delivered_bytes(const RunPlan& plan, const std::vector<const HostEngine*>& engines) {
  uint64_t bytes = 0;
  for (const HostEngine* e : engines) {
    for (const RecvState& r : e->recvs()) {
      if (r.packets == 0) continue;
      bytes += r.reorder.unique() * uint64_t{plan.payload_bytes};
      const uint64_t last = r.bytes - uint64_t{r.packets - 1} * plan.payload_bytes;
      if (r.reorder.seen(r.packets - 1)) bytes -= plan.payload_bytes - last;
    }
  }
  return bytes;
}

LossFigures loss_figures(const std::array<uint64_t, kGenCounters>& counters, uint64_t missing) {
  const auto counter = [&](GenCounter c) { return counters[static_cast<size_t>(c)]; };
  LossFigures l;
  l.injected_data_drops = counter(GenCounter::kLossData);
  l.injected_ack_drops = counter(GenCounter::kLossAck);
  l.retransmits = counter(GenCounter::kRetransmits);
  l.timeouts = counter(GenCounter::kTimeouts);
  const uint64_t tx_data = counter(GenCounter::kTxData);
  l.retransmit_fraction = tx_data ? static_cast<double>(l.retransmits) / tx_data : 0.0;
  l.missing_at_end = missing;
  return l;
}

CongestionFigures congestion_figures(const RunPlan& plan,
                                     const std::vector<const HostEngine*>& engines) {
  CongestionFigures c;
  c.enabled = plan.cc != CongestionControl::kNone;
  if (!c.enabled) return c;
  c.algorithm = to_string(plan.cc);
  double cwnd_sum = 0, alpha_sum = 0;
  for (const HostEngine* e : engines) {
    for (const FlowWindow& w : e->windows()) {
      const bool first = c.flows++ == 0;
      const uint64_t iw = w.initial_window();
      c.initial_window_min = first ? iw : std::min(c.initial_window_min, iw);
      c.initial_window_max = std::max(c.initial_window_max, iw);
      c.final_cwnd_min = first ? w.cwnd() : std::min(c.final_cwnd_min, w.cwnd());
      c.final_cwnd_max = std::max(c.final_cwnd_max, w.cwnd());
      c.lowest_cwnd = first ? w.min_cwnd() : std::min(c.lowest_cwnd, w.min_cwnd());
      c.highest_cwnd = std::max(c.highest_cwnd, w.max_cwnd());
      cwnd_sum += w.cwnd();
      c.timeouts += w.timeouts();
      // Cuts: DCTCP's α cuts, NSCC's multiplicative decreases and quick adapts, MSwift's
      // sub-window cuts. α is DCTCP's alone (0 for the others).
      uint64_t cuts = 0;
      if (const DctcpWindow* d = w.dctcp()) {
        c.final_alpha_max = std::max(c.final_alpha_max, d->alpha());
        c.highest_alpha = std::max(c.highest_alpha, d->max_alpha());
        alpha_sum += d->alpha();
        c.alpha_updates += d->alpha_updates();
        cuts = d->cuts();
      } else if (const NsccWindow* n = w.nscc()) {
        cuts = n->decreases() + n->quick_adapts();
      } else if (const MswiftWindow* m = w.mswift()) {
        cuts = m->decreases();
      }
      c.window_cuts += cuts;
      c.flows_cut += cuts > 0;
    }
  }
  if (c.flows > 0) {
    c.final_cwnd_mean = cwnd_sum / static_cast<double>(c.flows);
    c.final_alpha_mean = alpha_sum / static_cast<double>(c.flows);
  }
  return c;
}

// ---- JSON -------------------------------------------------------------------------------------

// What the run was: its config, how it stopped, the local hosts, the settings and path model.
nlohmann::ordered_json run_json(const RunPlan& plan, const RunInfo& run) {
  nlohmann::ordered_json j;
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
                     {"gap_bytes", plan.path.gap_bytes},
                     {"link_rate_bps", plan.link_rate_bps},
                     {"bound_capacity", std::string(to_string(plan.bound_capacity))}};
  if (plan.cc != CongestionControl::kNone) {  // absent with cc none: results as they were
    j["settings"]["cc"] = std::string(to_string(plan.cc));
    if (plan.initial_window_bytes) {
      j["settings"]["initial_window_bytes"] = plan.initial_window_bytes;
    } else {
      j["settings"]["initial_window_bdp"] = plan.initial_window_bdp;
    }
  }
  j["start_ns"] = run.start_ns;
  j["end_ns"] = run.end_ns;
  j["elapsed_ns"] = run.end_ns - run.start_ns;
  return j;
}

nlohmann::ordered_json message_json(const MessageFigures& m) {
  nlohmann::ordered_json j = {{"id", m.id},
                              {"src", m.src},
                              {"dst", m.dst},
                              {"bytes", m.bytes},
                              {"collective", m.collective},
                              {"packets", m.packets},
                              {"hops", m.hops},
                              {"completed", m.completed},
                              {"tx_packets", m.tx_packets},
                              {"retransmits", m.retransmits},
                              {"ecn_echoes", m.ecn_echoes}};
  if (m.sent) j["first_tx_ns"] = m.first_tx_ns;
  if (m.completed) {
    j["last_ack_ns"] = m.last_ack_ns;
    j["completion_ns"] = m.completion_ns;
  }
  j["bound_ns"] = m.bound_ns;
  if (m.completed) j["inflation"] = m.inflation;
  return j;
}

// The bound's own terms: appendix A's phases, or the host and link of the per-host bound and the
// critical path's length and time.
nlohmann::ordered_json bound_json(const CollectiveBound& b) {
  if (b.kind == BoundKind::kPermutationAppendixA) {
    const CctBound& a = b.appendix_a;
    return {{"packets", a.packets},
            {"data_only_packets", a.data_only_packets},
            {"data_only_ns", a.data_only_ns},
            {"interleaved_ns", a.interleaved_ns},
            {"acks_only_ns", a.acks_only_ns}};
  }
  nlohmann::ordered_json j = {{"per_host_ns", b.per_host.total_ns},
                              {"host", b.per_host.host},
                              {"link", std::string(to_string(b.per_host.link))}};
  if (b.kind == BoundKind::kSteps) {
    j["critical_path_ns"] = b.steps.total_ns;
    j["critical_path_messages"] = b.steps.messages_on_path;
  }
  return j;
}

nlohmann::ordered_json collective_json(const CollectiveFigures& c) {
  nlohmann::ordered_json j = {{"id", c.id},
                              {"name", c.name},
                              {"iteration", c.iteration},
                              {"messages", c.messages},
                              {"completed_messages", c.completed_messages},
                              {"bytes", c.bytes},
                              {"hops", c.hops},
                              {"bound_ns", c.bound.total_ns},
                              {"bound_kind", std::string(to_string(c.bound.kind))},
                              {"bound", bound_json(c.bound)}};
  if (c.completed) {
    j["first_tx_ns"] = c.first_tx_ns;
    j["last_ack_ns"] = c.last_ack_ns;
    j["cct_ns"] = c.cct_ns;
    j["inflation"] = c.inflation;
  }
  return j;
}

nlohmann::ordered_json reordering_json(const ReorderFigures& r) {
  nlohmann::ordered_json h = nlohmann::ordered_json::array();
  for (uint64_t v : r.distance_histogram_log2) h.push_back(v);
  return {{"messages_received", r.messages_received},
          {"messages_complete", r.messages_complete},
          {"received", r.received},
          {"unique", r.unique},
          {"out_of_order", r.out_of_order},
          {"duplicates", r.duplicates},
          {"max_distance", r.max_distance},
          {"distance_histogram_log2", h}};
}

// Data packets by the switches they crossed: index i counts packets that crossed i switches,
// up to the longest path seen.
nlohmann::ordered_json path_switches_json(const std::array<uint64_t, kSentTtl + 1>& counts) {
  size_t end = counts.size();
  while (end > 0 && counts[end - 1] == 0) --end;
  nlohmann::ordered_json h = nlohmann::ordered_json::array();
  for (size_t i = 0; i < end; ++i) h.push_back(counts[i]);
  return {{"histogram", h}};
}

}  // namespace

RunFigures run_figures(const RunPlan& plan, const std::vector<const HostEngine*>& engines) {
  RunFigures f;
  size_t sends = 0;
  for (const HostEngine* e : engines) sends += e->sends().size();
  f.messages.reserve(sends);
  for (const HostEngine* e : engines) {
    for (const SendState& s : e->sends()) f.messages.push_back(message_figures(plan, *e, s));
  }
  f.collectives = collective_figures(plan, engines, f.messages);
  for (const HostEngine* e : engines) {
    f.one_way.merge(e->one_way());
    f.rtt.merge(e->rtt());
  }
  f.goodput = goodput_figures(f.messages);
  f.goodput.delivered_bytes = delivered_bytes(plan, engines);
  uint64_t missing = 0;
  f.reordering = reorder_figures(engines, &missing);
  for (size_t c = 0; c < kGenCounters; ++c) {
    for (const HostEngine* e : engines) f.counters[c] += e->counter(static_cast<GenCounter>(c));
  }
  f.loss = loss_figures(f.counters, missing);
  for (const HostEngine* e : engines) f.busy_cycles += e->busy_cycles();
  for (const HostEngine* e : engines) {
    for (size_t i = 0; i < f.path_switches.size(); ++i) f.path_switches[i] += e->path_switches()[i];
  }
  f.congestion = congestion_figures(plan, engines);
  return f;
}

nlohmann::ordered_json results_json(const RunPlan& plan, const RunInfo& run, const RunFigures& f) {
  using nlohmann::ordered_json;
  ordered_json j = run_json(plan, run);
  ordered_json collectives = ordered_json::array();
  for (const CollectiveFigures& c : f.collectives) {
    collectives.push_back(collective_json(c));
  }
  j["collectives"] = std::move(collectives);
  j["latency_ns"] = {{"one_way", latency_json(f.one_way)}, {"rtt", latency_json(f.rtt)}};
  j["goodput"] = {{"acked_bytes", f.goodput.acked_bytes},
                  {"first_tx_ns", f.goodput.first_tx_ns},
                  {"last_ack_ns", f.goodput.last_ack_ns},
                  {"bps", f.goodput.bps},
                  {"delivered_bytes", f.goodput.delivered_bytes}};
  j["loss"] = {{"injected_data_drops", f.loss.injected_data_drops},
               {"injected_ack_drops", f.loss.injected_ack_drops},
               {"retransmits", f.loss.retransmits},
               {"timeouts", f.loss.timeouts},
               {"retransmit_fraction", f.loss.retransmit_fraction},
               {"missing_at_end", f.loss.missing_at_end}};
  j["reordering"] = reordering_json(f.reordering);
  j["path_switches"] = path_switches_json(f.path_switches);
  if (f.congestion.enabled) {
    const CongestionFigures& c = f.congestion;
    j["congestion_control"] = {
        {"algorithm", std::string(c.algorithm)},
        {"flows", c.flows},
        {"initial_window_bytes", {{"min", c.initial_window_min}, {"max", c.initial_window_max}}},
        {"final_cwnd_bytes",
         {{"min", c.final_cwnd_min}, {"mean", c.final_cwnd_mean}, {"max", c.final_cwnd_max}}},
        {"cwnd_bytes_over_run", {{"lowest", c.lowest_cwnd}, {"highest", c.highest_cwnd}}},
        {"final_alpha", {{"mean", c.final_alpha_mean}, {"max", c.final_alpha_max}}},
        {"highest_alpha", c.highest_alpha},
        {"window_cuts", c.window_cuts},
        {"flows_cut", c.flows_cut},
        {"alpha_updates", c.alpha_updates},
        {"timeouts", c.timeouts}};
  }
  j["busy_cycles"] = f.busy_cycles;
  j["counters"] = counters_json(f.counters);
  ordered_json messages = ordered_json::array();
  for (const MessageFigures& m : f.messages) {
    if (run.message_records) {
      messages.push_back(message_json(m));
    } else if (m.completed) {
      messages.push_back({{"completion_ns", m.completion_ns}, {"inflation", m.inflation}});
    } else {
      messages.push_back(ordered_json::object());
    }
  }
  j["messages"] = std::move(messages);
  return j;
}

namespace {

// workload.injection bernoulli: the arrival process and, per host (the plan's order), its
// arrivals and the payload bytes it received, up to `end_ns` (docs/generator.md).
nlohmann::ordered_json injection_json(const RunPlan& plan,
                                      const std::vector<const HostEngine*>& engines,
                                      uint64_t end_ns) {
  std::vector<HostTally> by_host(plan.hosts.size());
  double slot_ns = 0;
  for (const HostEngine* e : engines) {
    slot_ns = e->slot_ns();
    for (const HostTally& t : e->host_tallies(end_ns)) by_host[t.host] = t;
  }
  nlohmann::ordered_json hosts = nlohmann::ordered_json::array();
  for (size_t i = 0; i < by_host.size(); ++i) {
    hosts.push_back({{"name", plan.hosts[i].name},
                     {"rank", plan.hosts[i].rank},
                     {"arrivals", by_host[i].arrivals},
                     {"delivered_bytes", by_host[i].delivered_bytes}});
  }
  return {{"type", std::string(to_string(plan.injection))},
          {"load", plan.injection_load},
          {"slot_ns", slot_ns},
          {"hosts", std::move(hosts)}};
}

}  // namespace

nlohmann::ordered_json results_json(const RunPlan& plan,
                                    const std::vector<const HostEngine*>& engines,
                                    const RunInfo& run) {
  nlohmann::ordered_json j = results_json(plan, run, run_figures(plan, engines));
  // Only with it: results without it as they were.
  if (plan.injection == Injection::kBernoulli) {
    j["injection"] = injection_json(plan, engines, run.end_ns);
  }
  return j;
}

}  // namespace spraylab::gen
