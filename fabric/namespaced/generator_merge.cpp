#include "fabric/namespaced/generator_merge.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>

namespace spraylab::fabric {
namespace {

using nlohmann::ordered_json;

const ordered_json& at(const ordered_json& j, const char* key) {
  static const ordered_json kNull;
  if (!j.is_object()) return kNull;
  const auto it = j.find(key);
  return it == j.end() ? kNull : *it;
}

uint64_t u64(const ordered_json& j, const char* key) {
  const ordered_json& v = at(j, key);
  return v.is_number() ? v.get<uint64_t>() : 0;
}

double num(const ordered_json& j, const char* key) {
  const ordered_json& v = at(j, key);
  return v.is_number() ? v.get<double>() : 0.0;
}

// Element-wise sum of arrays of counts (histograms of different lengths).
ordered_json sum_arrays(const std::vector<const ordered_json*>& arrays) {
  std::vector<uint64_t> out;
  for (const ordered_json* a : arrays) {
    if (!a->is_array()) continue;
    if (a->size() > out.size()) out.resize(a->size(), 0);
    for (size_t i = 0; i < a->size(); ++i) out[i] += (*a)[i].get<uint64_t>();
  }
  return out;
}

// Sums every unsigned count of objects with the same keys (counters).
ordered_json sum_counts(const std::vector<ordered_json>& parts, const char* key) {
  ordered_json out = ordered_json::object();
  for (const ordered_json& p : parts) {
    for (const auto& [k, v] : at(p, key).items()) {
      if (!v.is_number()) continue;
      out[k] = (out.contains(k) ? out[k].get<uint64_t>() : 0) + v.get<uint64_t>();
    }
  }
  return out;
}

// One collective from the parts that sent messages of it. Its CCT spans every part: from the
// first transmission of any to the last ACK of any, when every part completed its messages.
ordered_json merge_collective(const std::vector<const ordered_json*>& cs) {
  ordered_json c = {
      {"id", (*cs[0])["id"]}, {"name", (*cs[0])["name"]}, {"iteration", (*cs[0])["iteration"]}};
  uint64_t messages = 0, completed = 0, bytes = 0, hops = 0, first_tx = UINT64_MAX, last_ack = 0;
  const ordered_json* widest = cs[0];  // the part with the largest bound
  bool all_done = true;
  for (const ordered_json* p : cs) {
    messages += u64(*p, "messages");
    completed += u64(*p, "completed_messages");
    bytes += u64(*p, "bytes");
    hops = std::max(hops, u64(*p, "hops"));
    if (num(*p, "bound_ns") > num(*widest, "bound_ns")) widest = p;
    all_done = all_done && p->contains("cct_ns");
    if (p->contains("first_tx_ns")) first_tx = std::min(first_tx, u64(*p, "first_tx_ns"));
    last_ack = std::max(last_ack, u64(*p, "last_ack_ns"));
  }
  c["messages"] = messages;
  c["completed_messages"] = completed;
  c["bytes"] = bytes;
  c["hops"] = hops;
  c["bound_ns"] = (*widest)["bound_ns"];
  if (widest->contains("bound_kind")) c["bound_kind"] = (*widest)["bound_kind"];
  c["bound"] = at(*widest, "bound");
  if (all_done && first_tx != UINT64_MAX && last_ack >= first_tx) {
    const double bound = num(*widest, "bound_ns");
    c["first_tx_ns"] = first_tx;
    c["last_ack_ns"] = last_ack;
    c["cct_ns"] = last_ack - first_tx;
    c["inflation"] = bound > 0 ? static_cast<double>(last_ack - first_tx) / bound - 1 : 0.0;
  }
  return c;
}

ordered_json merge_collectives(const std::vector<ordered_json>& parts) {
  std::map<uint64_t, std::vector<const ordered_json*>> by_id;  // by id: the generator's order
  for (const ordered_json& p : parts) {
    for (const ordered_json& c : at(p, "collectives")) by_id[c["id"].get<uint64_t>()].push_back(&c);
  }
  ordered_json out = ordered_json::array();
  for (const auto& [id, cs] : by_id) out.push_back(merge_collective(cs));
  return out;
}

// Count, min, mean and max are exact; a percentile is the largest of the parts' (an upper bound).
ordered_json merge_latency(const std::vector<const ordered_json*>& ls) {
  uint64_t samples = 0;
  double weighted = 0;
  ordered_json out;
  for (const ordered_json* l : ls) {
    const uint64_t n = u64(*l, "samples");
    if (n == 0) continue;
    samples += n;
    weighted += num(*l, "mean") * static_cast<double>(n);
    for (const char* k : {"min"}) {
      out[k] = out.contains(k) ? std::min(out[k].get<double>(), num(*l, k)) : num(*l, k);
    }
    for (const char* k : {"p50", "p90", "p99", "p999", "max"}) {
      out[k] = out.contains(k) ? std::max(out[k].get<double>(), num(*l, k)) : num(*l, k);
    }
  }
  ordered_json j = {{"samples", samples}};
  for (const char* k : {"min", "mean", "p50", "p90", "p99", "p999", "max"}) {
    if (std::string(k) == "mean") {
      j[k] = samples ? weighted / static_cast<double>(samples) : 0.0;
    } else {
      j[k] = out.contains(k) ? out[k] : ordered_json(0);
    }
  }
  return j;
}

ordered_json merge_goodput(const std::vector<ordered_json>& parts) {
  uint64_t acked = 0, delivered = 0, first_tx = UINT64_MAX, last_ack = 0;
  for (const ordered_json& p : parts) {
    const ordered_json& g = at(p, "goodput");
    acked += u64(g, "acked_bytes");
    delivered += u64(g, "delivered_bytes");
    if (u64(g, "first_tx_ns") > 0) first_tx = std::min(first_tx, u64(g, "first_tx_ns"));
    last_ack = std::max(last_ack, u64(g, "last_ack_ns"));
  }
  const uint64_t span = first_tx != UINT64_MAX && last_ack > first_tx ? last_ack - first_tx : 0;
  return {{"acked_bytes", acked},
          {"first_tx_ns", first_tx == UINT64_MAX ? 0 : first_tx},
          {"last_ack_ns", last_ack},
          {"bps", span ? static_cast<double>(acked) * 8e9 / static_cast<double>(span) : 0.0},
          {"delivered_bytes", delivered}};
}

ordered_json merge_loss(const std::vector<ordered_json>& parts, const ordered_json& counters) {
  ordered_json l = ordered_json::object();
  for (const char* k :
       {"injected_data_drops", "injected_ack_drops", "retransmits", "timeouts", "missing_at_end"}) {
    uint64_t n = 0;
    for (const ordered_json& p : parts) n += u64(at(p, "loss"), k);
    l[k] = n;
  }
  const uint64_t tx_data = u64(counters, "tx_data_packets");
  l["retransmit_fraction"] =
      tx_data ? static_cast<double>(l["retransmits"].get<uint64_t>()) / tx_data : 0.0;
  // The generator's key order.
  return {{"injected_data_drops", l["injected_data_drops"]},
          {"injected_ack_drops", l["injected_ack_drops"]},
          {"retransmits", l["retransmits"]},
          {"timeouts", l["timeouts"]},
          {"retransmit_fraction", l["retransmit_fraction"]},
          {"missing_at_end", l["missing_at_end"]}};
}

ordered_json merge_reordering(const std::vector<ordered_json>& parts) {
  ordered_json r;
  std::vector<const ordered_json*> histograms;
  for (const char* k : {"messages_received", "messages_complete", "received", "unique",
                        "out_of_order", "duplicates"}) {
    uint64_t n = 0;
    for (const ordered_json& p : parts) n += u64(at(p, "reordering"), k);
    r[k] = n;
  }
  uint64_t max_distance = 0;
  for (const ordered_json& p : parts) {
    max_distance = std::max(max_distance, u64(at(p, "reordering"), "max_distance"));
    histograms.push_back(&at(at(p, "reordering"), "distance_histogram_log2"));
  }
  r["max_distance"] = max_distance;
  r["distance_histogram_log2"] = sum_arrays(histograms);
  return r;
}

// cc dctcp: flows summed, extremes of the extremes, means weighted by flows.
ordered_json merge_congestion(const std::vector<const ordered_json*>& cs) {
  uint64_t flows = 0;
  double cwnd_mean = 0, alpha_mean = 0;
  ordered_json c = *cs[0];
  for (const ordered_json* p : cs) {
    const uint64_t f = u64(*p, "flows");
    flows += f;
    cwnd_mean += num(at(*p, "final_cwnd_bytes"), "mean") * static_cast<double>(f);
    alpha_mean += num(at(*p, "final_alpha"), "mean") * static_cast<double>(f);
  }
  auto extreme = [&](const char* outer, const char* key, bool low) {
    double v = num(at(*cs[0], outer), key);
    for (const ordered_json* p : cs) {
      const double x = num(at(*p, outer), key);
      v = low ? std::min(v, x) : std::max(v, x);
    }
    c[outer][key] = v;
  };
  extreme("initial_window_bytes", "min", true);
  extreme("initial_window_bytes", "max", false);
  extreme("final_cwnd_bytes", "min", true);
  extreme("final_cwnd_bytes", "max", false);
  extreme("cwnd_bytes_over_run", "lowest", true);
  extreme("cwnd_bytes_over_run", "highest", false);
  extreme("final_alpha", "max", false);
  c["flows"] = flows;
  c["final_cwnd_bytes"]["mean"] = flows ? cwnd_mean / static_cast<double>(flows) : 0.0;
  c["final_alpha"]["mean"] = flows ? alpha_mean / static_cast<double>(flows) : 0.0;
  double highest_alpha = 0;
  for (const ordered_json* p : cs)
    highest_alpha = std::max(highest_alpha, num(*p, "highest_alpha"));
  c["highest_alpha"] = highest_alpha;
  for (const char* k : {"window_cuts", "flows_cut", "alpha_updates", "timeouts"}) {
    uint64_t n = 0;
    for (const ordered_json* p : cs) n += u64(*p, k);
    c[k] = n;
  }
  return c;
}

}  // namespace

ordered_json merge_generator_results(const std::vector<ordered_json>& parts) {
  if (parts.empty()) throw std::invalid_argument("merge_generator_results: no results");
  const ordered_json& first = parts[0];
  ordered_json j;
  j["config"] = at(first, "config");
  bool completed = true;
  std::string stopped_by = "completed";
  ordered_json hosts = ordered_json::array();
  uint64_t start = UINT64_MAX, end = 0;
  for (const ordered_json& p : parts) {
    const bool done = at(p, "completed").is_boolean() && p["completed"].get<bool>();
    if (!done && completed) stopped_by = at(p, "stopped_by").is_string() ? p["stopped_by"] : "";
    completed = completed && done;
    for (const ordered_json& h : at(p, "hosts")) hosts.push_back(h);
    if (p.contains("start_ns")) start = std::min(start, u64(p, "start_ns"));
    end = std::max(end, u64(p, "end_ns"));
  }
  std::stable_sort(hosts.begin(), hosts.end(), [](const ordered_json& a, const ordered_json& b) {
    return a["rank"].get<uint64_t>() < b["rank"].get<uint64_t>();
  });
  if (start == UINT64_MAX) start = 0;
  j["completed"] = completed;
  j["stopped_by"] = stopped_by;
  j["hosts"] = hosts;
  j["settings"] = at(first, "settings");
  j["path_model"] = at(first, "path_model");
  j["start_ns"] = start;
  j["end_ns"] = end;
  j["elapsed_ns"] = end > start ? end - start : 0;
  j["collectives"] = merge_collectives(parts);
  std::vector<const ordered_json*> one_way, rtt, paths, cc;
  for (const ordered_json& p : parts) {
    one_way.push_back(&at(at(p, "latency_ns"), "one_way"));
    rtt.push_back(&at(at(p, "latency_ns"), "rtt"));
    paths.push_back(&at(at(p, "path_switches"), "histogram"));
    if (p.contains("congestion_control")) cc.push_back(&p["congestion_control"]);
  }
  j["latency_ns"] = {{"one_way", merge_latency(one_way)}, {"rtt", merge_latency(rtt)}};
  j["goodput"] = merge_goodput(parts);
  const ordered_json counters = sum_counts(parts, "counters");
  j["loss"] = merge_loss(parts, counters);
  j["reordering"] = merge_reordering(parts);
  j["path_switches"] = {{"histogram", sum_arrays(paths)}};
  if (!cc.empty()) j["congestion_control"] = merge_congestion(cc);
  uint64_t busy = 0;
  for (const ordered_json& p : parts) busy += u64(p, "busy_cycles");
  j["busy_cycles"] = busy;
  j["counters"] = counters;
  ordered_json messages = ordered_json::array();
  for (const ordered_json& p : parts) {
    for (const ordered_json& m : at(p, "messages")) messages.push_back(m);
  }
  j["messages"] = std::move(messages);
  // Each generator's device counters (spraylab-gen's "ports": what a port lost before its
  // engine saw it), one row per generator and port, the generator by its hosts' ranks.
  ordered_json ports = ordered_json::array();
  for (const ordered_json& p : parts) {
    if (!p.contains("ports")) continue;
    ordered_json ranks = ordered_json::array();
    for (const ordered_json& h : at(p, "hosts")) ranks.push_back(h["rank"]);
    for (ordered_json row : p["ports"]) {
      row["host_ranks"] = ranks;
      ports.push_back(std::move(row));
    }
  }
  if (!ports.empty()) j["ports"] = std::move(ports);
  // workload.injection bernoulli: every generator's hosts, in rank order as `hosts`.
  if (first.contains("injection")) {
    ordered_json injection = at(first, "injection");
    ordered_json tallies = ordered_json::array();
    for (const ordered_json& p : parts) {
      for (const ordered_json& h : at(at(p, "injection"), "hosts")) tallies.push_back(h);
    }
    std::stable_sort(tallies.begin(), tallies.end(),
                     [](const ordered_json& a, const ordered_json& b) {
                       return a["rank"].get<uint64_t>() < b["rank"].get<uint64_t>();
                     });
    injection["hosts"] = std::move(tallies);
    j["injection"] = std::move(injection);
  }
  j["generators"] = parts.size();
  return j;
}

}  // namespace spraylab::fabric
