#include "fabric/results/summary.h"

#include <algorithm>
#include <limits>
#include <numeric>

#include "trafficgen/bounds/bound_kind.h"

namespace spraylab::fabric {
namespace {

using nlohmann::ordered_json;

constexpr size_t kHottestPorts = 5;

// The generator's section `key`, or an empty one: a run stopped early may lack sections.
const ordered_json& section(const ordered_json& generator, const char* key) {
  static const ordered_json kEmpty = ordered_json::object();
  if (!generator.is_object()) return kEmpty;
  const auto it = generator.find(key);
  return it == generator.end() ? kEmpty : *it;
}

uint64_t count(const ordered_json& j, const char* key) {
  if (!j.is_object()) return 0;
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<uint64_t>() : 0;
}

template <class T>
ordered_json or_null(const std::optional<T>& v) {
  return v ? ordered_json(*v) : ordered_json(nullptr);
}
ordered_json or_null(const std::string& text) {
  return text.empty() ? ordered_json(nullptr) : ordered_json(text);
}

// The bounds the collectives used, each once, in gen::kBoundKindNames's order; and what the
// generator says of their capacity.
void summarize_bound(const ordered_json& generator, VariantSummary& s) {
  std::vector<bool> used(gen::kBoundKindNames.size(), false);
  for (const ordered_json& c : section(generator, "collectives")) {
    const auto it = c.find("bound_kind");
    if (it == c.end() || !it->is_string()) continue;
    const std::string kind = it->get<std::string>();
    for (size_t k = 0; k < used.size(); ++k) used[k] = used[k] || kind == gen::kBoundKindNames[k];
  }
  for (size_t k = 0; k < used.size(); ++k) {
    if (!used[k]) continue;
    if (!s.bound.empty()) s.bound += '+';
    s.bound += gen::kBoundKindNames[k];
  }
  const ordered_json& path = section(generator, "path_model");
  const auto capacity = path.find("bound_capacity");
  if (capacity != path.end() && capacity->is_string()) {
    s.bound_capacity = capacity->get<std::string>();
  }
}

void summarize_collectives(const ordered_json& generator, VariantSummary& s) {
  summarize_bound(generator, s);
  double cct_sum = 0, bound_sum = 0, inflation_sum = 0, cct_max = 0;
  for (const ordered_json& c : section(generator, "collectives")) {
    ++s.collectives;
    if (!c.contains("cct_ns")) continue;
    ++s.collectives_completed;
    const double cct = c["cct_ns"].get<double>();
    cct_sum += cct;
    cct_max = std::max(cct_max, cct);
    bound_sum += c["bound_ns"].get<double>();
    inflation_sum += c["inflation"].get<double>();
  }
  if (s.collectives_completed == 0) return;
  const auto n = static_cast<double>(s.collectives_completed);
  s.cct_ns = cct_sum / n;
  s.cct_max_ns = cct_max;
  s.bound_ns = bound_sum / n;
  s.inflation = inflation_sum / n;
}

void summarize_messages(const ordered_json& generator, VariantSummary& s) {
  std::vector<uint64_t> cct = message_ccts(generator);
  std::vector<double> inflation;
  for (const ordered_json& m : section(generator, "messages")) {
    ++s.messages;
    if (m.contains("inflation")) inflation.push_back(m["inflation"].get<double>());
  }
  s.messages_completed = cct.size();
  if (!cct.empty()) s.message_cct_max_ns = cct.back();  // message_ccts sorts
  s.message_cct_p50_ns = percentile(cct, 0.5);
  s.message_cct_p99_ns = percentile(cct, 0.99);
  s.message_inflation_p50 = percentile(inflation, 0.5);
  s.message_inflation_p99 = percentile(inflation, 0.99);
}

// Maxima from the ports, percentiles from the samples of the ports `in_set` selects.
template <class Pred>
QueueStats queue_stats(const FabricResult& r, Pred in_set) {
  QueueStats q;
  for (const PortSummary& p : r.ports) {
    if (!in_set(p)) continue;
    ++q.ports;
    q.max_bytes = std::max(q.max_bytes, p.max_bytes);
    q.max_packets = std::max(q.max_packets, p.max_packets);
  }
  std::vector<uint32_t> bytes, packets;
  for (const QueueSample& sample : r.samples) {
    if (sample.port_index >= r.ports.size() || !in_set(r.ports[sample.port_index])) continue;
    bytes.push_back(sample.bytes);
    packets.push_back(sample.packets);
  }
  if (!bytes.empty()) {
    const auto n = static_cast<double>(bytes.size());
    q.mean_bytes =
        static_cast<double>(std::accumulate(bytes.begin(), bytes.end(), uint64_t{0})) / n;
    q.mean_packets =
        static_cast<double>(std::accumulate(packets.begin(), packets.end(), uint64_t{0})) / n;
  }
  q.p99_bytes = percentile(bytes, 0.99).value_or(0);
  q.p99_packets = percentile(packets, 0.99).value_or(0);
  return q;
}

// buffer.flow_control: pfc: the pause frames of every switch port and the hosts, and the ports a
// pause held, longest first.
void summarize_pfc(const FabricResult& r, VariantSummary& s) {
  s.pfc = true;
  s.host_pfc = r.host_pfc;
  for (const PortSummary& p : r.ports) {
    s.pfc_pause_sent += p.pause_sent;
    s.pfc_resume_sent += p.resume_sent;
    s.pfc_pause_received += p.pause_received;
    s.pfc_resume_received += p.resume_received;
    s.pfc_paused_ns += p.paused_ns;
    s.pfc_headroom_drops += p.headroom_drops;
    if (p.paused_ns > 0) s.paused_ports.push_back(p);
  }
  std::stable_sort(s.paused_ports.begin(), s.paused_ports.end(),
                   [](const PortSummary& a, const PortSummary& b) {
                     return a.paused_ns > b.paused_ns;
                   });
}

// buffer.flow_control: credit: the credit frames and credits of every switch port and the hosts,
// and the ports that waited for credits, longest first.
void summarize_credit(const FabricResult& r, VariantSummary& s) {
  s.credit = true;
  s.host_credit = r.host_credit;
  for (const PortSummary& p : r.ports) {
    s.credit_frames_sent += p.credit_frames_sent;
    s.credit_frames_received += p.credit_frames_received;
    s.credits_consumed += p.credits_consumed;
    s.credits_freed += p.credits_freed;
    s.credits_outstanding += p.credits_outstanding;
    s.credits_returning += p.credits_returning;
    s.credit_stalled_ns += p.credit_stalled_ns;
    s.credit_overrun_drops += p.credit_overrun_drops;
    if (p.credit_stalled_ns > 0) s.credit_stalled_ports.push_back(p);
  }
  std::stable_sort(s.credit_stalled_ports.begin(), s.credit_stalled_ports.end(),
                   [](const PortSummary& a, const PortSummary& b) {
                     return a.credit_stalled_ns > b.credit_stalled_ns;
                   });
}

void summarize_ports(const FabricResult& r, VariantSummary& s) {
  s.queue = queue_stats(r, [](const PortSummary&) { return true; });
  for (const PortSummary& p : r.ports) s.queue_by_level[p.level];
  for (auto& [level, stats] : s.queue_by_level) {
    stats = queue_stats(r, [level = level](const PortSummary& p) { return p.level == level; });
  }
  for (const PortSummary& p : r.ports) s.queue_by_layer[p.layer];
  for (auto& [layer, stats] : s.queue_by_layer) {
    stats = queue_stats(r, [&layer = layer](const PortSummary& p) { return p.layer == layer; });
  }
  if (r.pfc) summarize_pfc(r, s);
  if (r.credit) summarize_credit(r, s);
  double utilisation_sum = 0, utilisation_max = 0;
  for (const PortSummary& p : r.ports) {
    s.switch_drops += p.drops;
    s.ecn_marks += p.ecn_marks;
    s.trims += p.trims;
    if (p.tx_packets == 0) continue;
    ++s.active_ports;
    utilisation_sum += p.utilisation;
    utilisation_max = std::max(utilisation_max, p.utilisation);
  }
  if (s.active_ports > 0) {
    s.utilisation_mean = utilisation_sum / static_cast<double>(s.active_ports);
    s.utilisation_max = utilisation_max;
  }
  std::vector<size_t> order(r.ports.size());
  std::iota(order.begin(), order.end(), 0);
  // Ties keep port order, so the list is the same on every run.
  std::stable_sort(order.begin(), order.end(), [&r](size_t a, size_t b) {
    return r.ports[a].max_bytes > r.ports[b].max_bytes;
  });
  for (size_t i = 0; i < order.size() && i < kHottestPorts; ++i) {
    if (r.ports[order[i]].max_bytes == 0) break;
    s.hottest_ports.push_back(r.ports[order[i]]);
  }
}

// Ofan Figure 1's utilisation: the run's mean and the steady state's median window.
void summarize_delivered(const FabricResult& r, VariantSummary& s) {
  if (r.delivered.empty() || !(r.host_capacity_bps > 0) || r.clock_ns == 0) return;
  s.delivered_mean = 8.0 * static_cast<double>(r.delivered.back().wire_bytes) /
                     (r.host_capacity_bps * static_cast<double>(r.clock_ns) * 1e-9);
  if (r.delivered.size() > 1) s.utilisation_window_ns = r.delivered[1].t_ns - r.delivered[0].t_ns;
  std::vector<double> middle;
  for (const UtilisationWindow& w : utilisation_windows(r)) {
    // The middle half of the run: past the ramp-up (a round trip of propagation) and before the
    // tail of the last packets and their ACKs. Integer bounds, so the choice of windows is exact.
    if (w.t_ns * 4 >= r.clock_ns && w.t_ns * 4 <= r.clock_ns * 3) middle.push_back(w.utilisation);
  }
  s.delivered_steady = percentile(middle, 0.5);
}

// Accepted throughput over the run's window: delivered payload bytes / (hosts x the host link
// rate x the window), the window from measurement.warmup (or the start) to the end.
void summarize_throughput(const FabricResult& r, VariantSummary& s) {
  const uint64_t delivered = count(section(r.generator, "goodput"), "delivered_bytes");
  s.delivered_bytes = delivered - std::min(delivered, r.delivered_at_warmup);
  s.window_start_ns = std::min(r.warmup_at_ns, r.clock_ns);
  s.window_ns = r.clock_ns - s.window_start_ns;
  const ordered_json& settings = section(r.generator, "settings");
  const auto hosts = static_cast<double>(section(r.generator, "hosts").size());
  const double rate =
      settings.contains("link_rate_bps") ? settings["link_rate_bps"].get<double>() : 0;
  const double capacity_bytes = hosts * rate / 8 * static_cast<double>(s.window_ns) / 1e9;
  if (capacity_bytes > 0) {
    s.accepted_throughput = static_cast<double>(s.delivered_bytes) / capacity_bytes;
  }
}

// workload.injection bernoulli: the per-host offered and accepted loads of the window, from the
// generator's injection section (totals at the end) less the tallies at the warm-up.
void summarize_host_loads(const FabricResult& r, VariantSummary& s) {
  const ordered_json& injection = section(r.generator, "injection");
  const ordered_json& hosts = section(injection, "hosts");
  const double slot_ns = injection.value("slot_ns", 0.0);
  const auto payload =
      static_cast<double>(count(section(r.generator, "settings"), "payload_bytes"));
  if (!hosts.is_array() || hosts.empty() || !(slot_ns > 0) || !(payload > 0) || s.window_ns == 0)
    return;
  const double slots = static_cast<double>(s.window_ns) / slot_ns;
  const auto at_warmup = [](const std::vector<uint64_t>& v, size_t i) {
    return i < v.size() ? v[i] : 0;
  };
  VariantSummary::HostLoads offered{0, std::numeric_limits<double>::infinity()};
  VariantSummary::HostLoads accepted = offered;
  for (size_t i = 0; i < hosts.size(); ++i) {
    const uint64_t arrivals = count(hosts[i], "arrivals");
    const uint64_t delivered = count(hosts[i], "delivered_bytes");
    const double o =
        static_cast<double>(arrivals - std::min(arrivals, at_warmup(r.arrivals_at_warmup, i))) /
        slots;
    const double a =
        static_cast<double>(delivered -
                            std::min(delivered, at_warmup(r.host_delivered_at_warmup, i))) /
        payload / slots;
    offered.mean += o;
    offered.min = std::min(offered.min, o);
    accepted.mean += a;
    accepted.min = std::min(accepted.min, a);
  }
  offered.mean /= static_cast<double>(hosts.size());
  accepted.mean /= static_cast<double>(hosts.size());
  s.offered_load = offered;
  s.accepted_load = accepted;
}

// The generator counts switches crossed (path_switches); a hop here is a switch-to-switch link,
// one fewer.
void summarize_hops(const ordered_json& generator, VariantSummary& s) {
  const ordered_json& histogram = section(section(generator, "path_switches"), "histogram");
  if (!histogram.is_array()) return;
  uint64_t packets = 0, weighted = 0;
  for (size_t i = 1; i < histogram.size(); ++i) {
    const auto n = histogram[i].get<uint64_t>();
    s.hops_histogram.push_back(n);
    packets += n;
    weighted += n * (i - 1);
  }
  if (packets == 0) return;
  s.hops_max = s.hops_histogram.size() - 1;
  s.hops_mean = static_cast<double>(weighted) / static_cast<double>(packets);
  // Nearest rank: the smallest k with at least 99% of the packets at k hops or fewer.
  const auto rank = static_cast<uint64_t>(std::ceil(0.99 * static_cast<double>(packets) - 1e-9));
  uint64_t seen = 0;
  for (size_t k = 0; k < s.hops_histogram.size(); ++k) {
    seen += s.hops_histogram[k];
    if (seen >= rank) {
      s.hops_p99 = k;
      break;
    }
  }
}

ordered_json to_json(const QueueStats& q) {
  return {{"max_bytes", q.max_bytes},
          {"max_packets", q.max_packets},
          {"p99_bytes", q.p99_bytes},
          {"p99_packets", q.p99_packets},
          {"ports", q.ports},
          {"mean_bytes", q.mean_bytes},
          {"mean_packets", q.mean_packets}};
}

// summary.json's "credit": credit frames sent and received (a frame sent by a switch port is
// received by its peer: a switch port or a host), the credits' balance (every credit consumed in a
// receiver's buffer freed, none outstanding at a sender), stalled time, overruns, and every port
// that waited for credits.
ordered_json credit_json(const VariantSummary& s) {
  ordered_json ports = ordered_json::array();
  for (const PortSummary& p : s.credit_stalled_ports) {
    ports.push_back({{"switch", p.switch_name},
                     {"port", p.port},
                     {"peer", p.peer},
                     {"layer", p.layer},
                     {"stalled_ns", p.credit_stalled_ns},
                     {"credit_frames_received", p.credit_frames_received},
                     {"credit_frames_sent", p.credit_frames_sent}});
  }
  const HostCredit& h = s.host_credit;
  return {{"frames_sent", s.credit_frames_sent},
          {"frames_received", s.credit_frames_received},
          {"host_frames_sent", h.frames_sent},
          {"host_frames_received", h.frames_received},
          {"consumed", s.credits_consumed},
          {"freed", s.credits_freed},
          {"host_consumed", h.consumed},
          {"host_freed", h.freed},
          {"outstanding", s.credits_outstanding},
          {"host_outstanding", h.outstanding},
          {"returning", s.credits_returning},
          {"host_returning", h.returning},
          {"stalled_ns", s.credit_stalled_ns},
          {"host_stalled_ns", h.stalled_ns},
          {"overrun_drops", s.credit_overrun_drops},
          {"host_overruns", h.overruns},
          {"host_bad_control_frames", h.bad_control},
          {"stalled_ports", std::move(ports)}};
}

}  // namespace

std::vector<UtilisationWindow> utilisation_windows(const FabricResult& r) {
  std::vector<UtilisationWindow> out;
  if (!(r.host_capacity_bps > 0)) return out;
  for (size_t i = 1; i < r.delivered.size(); ++i) {
    const DeliverySample& a = r.delivered[i - 1];
    const DeliverySample& b = r.delivered[i];
    if (b.t_ns <= a.t_ns) continue;
    const double bits = 8.0 * static_cast<double>(b.wire_bytes - a.wire_bytes);
    out.push_back(
        {b.t_ns, bits / (r.host_capacity_bps * static_cast<double>(b.t_ns - a.t_ns) * 1e-9)});
  }
  return out;
}

std::vector<uint64_t> message_ccts(const ordered_json& generator) {
  std::vector<uint64_t> cct;
  for (const ordered_json& m : section(generator, "messages")) {
    if (m.contains("completion_ns")) cct.push_back(m["completion_ns"].get<uint64_t>());
  }
  std::sort(cct.begin(), cct.end());
  return cct;
}

VariantSummary summarize(const FabricResult& result, const std::string& variant,
                         const std::string& algorithm, const std::string& mode) {
  VariantSummary s;
  s.variant = variant;
  s.mode = mode;
  s.algorithm = algorithm;
  s.completed = result.completed;
  s.stopped_by = result.stopped_by;
  s.clock_ns = result.clock_ns;
  s.events = result.events;
  summarize_collectives(result.generator, s);
  summarize_messages(result.generator, s);
  summarize_ports(result, s);
  summarize_delivered(result, s);
  s.queue_sample_halvings = result.queue_sample_halvings;

  const ordered_json& loss = section(result.generator, "loss");
  s.retransmits = count(loss, "retransmits");
  s.timeouts = count(loss, "timeouts");
  s.missing_at_end = count(loss, "missing_at_end");
  s.nacks = count(section(result.generator, "counters"), "rx_nack_packets");
  const ordered_json& reordering = section(result.generator, "reordering");
  s.received_packets = count(reordering, "received");
  s.out_of_order = count(reordering, "out_of_order");
  s.duplicates = count(reordering, "duplicates");
  s.max_reorder_distance = count(reordering, "max_distance");
  if (s.received_packets > 0) {
    s.out_of_order_fraction =
        static_cast<double>(s.out_of_order) / static_cast<double>(s.received_packets);
  }
  summarize_throughput(result, s);
  summarize_host_loads(result, s);
  summarize_hops(result.generator, s);
  if (result.generator.contains("congestion_control")) {
    s.congestion_control = result.generator["congestion_control"];
  }
  s.link_events = result.link_events;
  s.machine_bound = result.machine_bound;
  return s;
}

namespace {

// summary.json's "pfc": pause frames sent and received (a frame sent by a switch port is received
// by its peer: a switch port or a host), paused time, headroom drops, and every paused port.
ordered_json pfc_json(const VariantSummary& s) {
  ordered_json ports = ordered_json::array();
  for (const PortSummary& p : s.paused_ports) {
    ports.push_back({{"switch", p.switch_name},
                     {"port", p.port},
                     {"peer", p.peer},
                     {"layer", p.layer},
                     {"paused_ns", p.paused_ns},
                     {"pause_received", p.pause_received},
                     {"resume_received", p.resume_received},
                     {"pause_sent", p.pause_sent},
                     {"resume_sent", p.resume_sent},
                     {"headroom_drops", p.headroom_drops}});
  }
  return {{"pause_sent", s.pfc_pause_sent},
          {"resume_sent", s.pfc_resume_sent},
          {"pause_received", s.pfc_pause_received},
          {"resume_received", s.pfc_resume_received},
          {"host_pause_received", s.host_pfc.pause_received},
          {"host_resume_received", s.host_pfc.resume_received},
          {"paused_ns", s.pfc_paused_ns},
          {"host_paused_ns", s.host_pfc.paused_ns},
          {"headroom_drops", s.pfc_headroom_drops},
          {"host_bad_control_frames", s.host_pfc.bad_control},
          {"paused_ports", std::move(ports)}};
}

}  // namespace

ordered_json to_json(const VariantSummary& s) {
  ordered_json j;
  j["variant"] = s.variant;
  j["mode"] = s.mode;
  j["algorithm"] = s.algorithm;
  j["completed"] = s.completed;
  j["stopped_by"] = std::string(gen::to_string(s.stopped_by));
  j["clock_ns"] = s.clock_ns;
  j["events"] = s.events;
  // The numbers as measured, flagged where the machine set them (docs/runner.md).
  j["machine_bound"] = !s.machine_bound.empty();
  if (!s.machine_bound.empty()) j["machine_bound_reason"] = s.machine_bound;
  j["cct"] = {{"collectives", s.collectives},
              {"collectives_completed", s.collectives_completed},
              {"collective_ns", or_null(s.cct_ns)},
              {"collective_max_ns", or_null(s.cct_max_ns)},
              {"bound_ns", or_null(s.bound_ns)},
              {"bound", or_null(s.bound)},
              {"bound_capacity", or_null(s.bound_capacity)},
              {"inflation", or_null(s.inflation)},
              {"messages", s.messages},
              {"messages_completed", s.messages_completed},
              {"message_p50_ns", or_null(s.message_cct_p50_ns)},
              {"message_p99_ns", or_null(s.message_cct_p99_ns)},
              {"message_max_ns", or_null(s.message_cct_max_ns)},
              {"message_inflation_p50", or_null(s.message_inflation_p50)},
              {"message_inflation_p99", or_null(s.message_inflation_p99)}};
  ordered_json queue = to_json(s.queue);
  ordered_json by_level = ordered_json::object();
  for (const auto& [level, stats] : s.queue_by_level)
    by_level[std::to_string(level)] = to_json(stats);
  queue["by_level"] = std::move(by_level);
  ordered_json by_layer = ordered_json::object();
  for (const auto& [layer, stats] : s.queue_by_layer) by_layer[layer] = to_json(stats);
  queue["by_layer"] = std::move(by_layer);
  // A run that reached FabricOptions::max_queue_samples sampled every queue_sample · 2^this.
  if (s.queue_sample_halvings > 0) queue["sample_halvings"] = s.queue_sample_halvings;
  j["queue"] = std::move(queue);
  ordered_json hottest = ordered_json::array();
  for (const PortSummary& p : s.hottest_ports) {
    hottest.push_back({{"switch", p.switch_name},
                       {"port", p.port},
                       {"peer", p.peer},
                       {"level", p.level},
                       {"max_bytes", p.max_bytes},
                       {"max_packets", p.max_packets},
                       {"p99_bytes", p.p99_bytes},
                       {"utilisation", p.utilisation},
                       {"drops", p.drops}});
    if (s.trims > 0) hottest.back()["trims"] = p.trims;
  }
  j["hottest_ports"] = std::move(hottest);
  j["utilisation"] = {{"mean", or_null(s.utilisation_mean)},
                      {"max", or_null(s.utilisation_max)},
                      {"active_ports", s.active_ports},
                      {"delivered_mean", or_null(s.delivered_mean)},
                      {"delivered_steady", or_null(s.delivered_steady)},
                      {"window_ns", s.utilisation_window_ns}};
  j["loss"] = {{"switch_drops", s.switch_drops},
               {"ecn_marks", s.ecn_marks},
               {"retransmits", s.retransmits},
               {"timeouts", s.timeouts},
               {"missing_at_end", s.missing_at_end}};
  // Trimming (buffer.trim): only when it happened, so that other runs' summaries read as before.
  if (s.trims > 0 || s.nacks > 0) {
    j["loss"]["trims"] = s.trims;
    j["loss"]["nacks"] = s.nacks;
  }
  if (s.pfc) j["pfc"] = pfc_json(s);
  if (s.credit) j["credit"] = credit_json(s);
  j["reordering"] = {{"received", s.received_packets},
                     {"out_of_order", s.out_of_order},
                     {"out_of_order_fraction", or_null(s.out_of_order_fraction)},
                     {"duplicates", s.duplicates},
                     {"max_distance", s.max_reorder_distance}};
  j["throughput"] = {{"delivered_bytes", s.delivered_bytes},
                     {"window_start_ns", s.window_start_ns},
                     {"window_ns", s.window_ns},
                     {"accepted", or_null(s.accepted_throughput)}};
  // Only with workload.injection bernoulli: other runs' summaries read as before.
  if (s.offered_load && s.accepted_load) {
    j["throughput"]["offered_load"] = {{"mean", s.offered_load->mean},
                                       {"min", s.offered_load->min}};
    j["throughput"]["accepted_load"] = {{"mean", s.accepted_load->mean},
                                        {"min", s.accepted_load->min}};
  }
  j["hops"] = {{"max", or_null(s.hops_max)},
               {"mean", or_null(s.hops_mean)},
               {"p99", or_null(s.hops_p99)},
               {"histogram", s.hops_histogram}};
  if (s.congestion_control) j["congestion_control"] = *s.congestion_control;
  // Only with events, so that results without them stay as they were.
  if (!s.link_events.empty()) j["link_events"] = s.link_events;
  return j;
}

}  // namespace spraylab::fabric
