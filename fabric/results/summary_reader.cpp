#include "fabric/results/summary_reader.h"

// gen::StopReason and its names come with fabric/run/result.h (through summary.h): fabric/results
// may not include trafficgen/ itself (tests/layering).

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace spraylab::fabric {
namespace {

using json = nlohmann::ordered_json;

// One JSON object and where it came from, for the errors.
class Reader {
 public:
  Reader(const json& j, std::string where) : j_(j), where_(std::move(where)) {
    if (!j_.is_object()) fail("is not an object");
  }

  Reader at(const char* key) const { return Reader(find(key), where_ + "." + key); }
  bool has(const char* key) const { return j_.contains(key); }
  const json& raw(const char* key) const { return find(key); }

  template <class T>
  T get(const char* key) const {
    const json& v = find(key);
    try {
      return v.get<T>();
    } catch (const json::exception&) {
      throw std::invalid_argument(fmt::format("{}.{}: {} is of the wrong type", where_, key, v.dump()));
    }
  }
  // null (how to_json writes a value there is none of) is nullopt.
  template <class T>
  std::optional<T> optional(const char* key) const {
    if (find(key).is_null()) return std::nullopt;
    return get<T>(key);
  }
  std::string text_or_empty(const char* key) const {
    return find(key).is_null() ? std::string() : get<std::string>(key);
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw std::invalid_argument(fmt::format("{}: {}", where_, what));
  }
  const json& self() const { return j_; }
  const std::string& where() const { return where_; }

 private:
  const json& find(const char* key) const {
    const auto it = j_.find(key);
    if (it == j_.end()) fail(fmt::format("no key '{}'", key));
    return *it;
  }
  const json& j_;
  std::string where_;
};

QueueStats queue_stats(const Reader& r) {
  QueueStats q;
  q.max_bytes = r.get<uint64_t>("max_bytes");
  q.max_packets = r.get<uint64_t>("max_packets");
  q.p99_bytes = r.get<uint64_t>("p99_bytes");
  q.p99_packets = r.get<uint64_t>("p99_packets");
  q.ports = r.get<uint64_t>("ports");
  q.mean_bytes = r.get<double>("mean_bytes");
  q.mean_packets = r.get<double>("mean_packets");
  return q;
}

gen::StopReason stop_reason(const Reader& r) {
  const std::string name = r.get<std::string>("stopped_by");
  for (const gen::StopReasonInfo& info : gen::kStopReasons) {
    if (info.name == name) return info.id;
  }
  r.fail(fmt::format("stopped_by '{}' is not a stop reason", name));
}

void read_cct(const Reader& c, VariantSummary& s) {
  s.collectives = c.get<uint64_t>("collectives");
  s.collectives_completed = c.get<uint64_t>("collectives_completed");
  s.cct_ns = c.optional<double>("collective_ns");
  s.cct_max_ns = c.optional<double>("collective_max_ns");
  s.bound_ns = c.optional<double>("bound_ns");
  s.bound = c.text_or_empty("bound");
  s.bound_capacity = c.text_or_empty("bound_capacity");
  s.inflation = c.optional<double>("inflation");
  s.messages = c.get<uint64_t>("messages");
  s.messages_completed = c.get<uint64_t>("messages_completed");
  s.message_cct_p50_ns = c.optional<uint64_t>("message_p50_ns");
  s.message_cct_p99_ns = c.optional<uint64_t>("message_p99_ns");
  s.message_cct_max_ns = c.optional<uint64_t>("message_max_ns");
  s.message_inflation_p50 = c.optional<double>("message_inflation_p50");
  s.message_inflation_p99 = c.optional<double>("message_inflation_p99");
}

void read_queues(const Reader& q, VariantSummary& s) {
  s.queue = queue_stats(q);
  const Reader by_level = q.at("by_level");
  for (const auto& [level, stats] : by_level.self().items()) {
    const Reader one(stats, by_level.where() + "." + level);
    uint32_t n = 0;
    try {
      n = static_cast<uint32_t>(std::stoul(level));
    } catch (const std::exception&) {
      by_level.fail(fmt::format("'{}' is not a level", level));
    }
    s.queue_by_level[n] = queue_stats(one);
  }
  const Reader by_layer = q.at("by_layer");
  for (const auto& [layer, stats] : by_layer.self().items()) {
    s.queue_by_layer[layer] = queue_stats(Reader(stats, by_layer.where() + "." + layer));
  }
  if (q.has("sample_halvings")) s.queue_sample_halvings = q.get<uint32_t>("sample_halvings");
}

void read_hottest(const Reader& r, VariantSummary& s) {
  const json& ports = r.raw("hottest_ports");
  if (!ports.is_array()) r.fail("hottest_ports is not an array");
  for (size_t i = 0; i < ports.size(); ++i) {
    const Reader p(ports[i], fmt::format("{}.hottest_ports[{}]", r.where(), i));
    PortSummary port;
    port.switch_name = p.get<std::string>("switch");
    port.port = p.get<uint16_t>("port");
    port.peer = p.get<std::string>("peer");
    port.level = p.get<uint32_t>("level");
    port.max_bytes = p.get<uint64_t>("max_bytes");
    port.max_packets = p.get<uint64_t>("max_packets");
    port.p99_bytes = p.get<uint64_t>("p99_bytes");
    port.utilisation = p.get<double>("utilisation");
    port.drops = p.get<uint64_t>("drops");
    if (p.has("trims")) port.trims = p.get<uint64_t>("trims");
    s.hottest_ports.push_back(std::move(port));
  }
}

}  // namespace

VariantSummary summary_from_json(const json& j, const std::string& path) {
  const Reader r(j, path);
  VariantSummary s;
  s.variant = r.get<std::string>("variant");
  s.mode = r.get<std::string>("mode");
  s.algorithm = r.get<std::string>("algorithm");
  s.completed = r.get<bool>("completed");
  s.stopped_by = stop_reason(r);
  s.clock_ns = r.get<uint64_t>("clock_ns");
  s.events = r.get<uint64_t>("events");
  if (r.get<bool>("machine_bound")) s.machine_bound = r.get<std::string>("machine_bound_reason");
  read_cct(r.at("cct"), s);
  read_queues(r.at("queue"), s);
  read_hottest(r, s);

  const Reader u = r.at("utilisation");
  s.utilisation_mean = u.optional<double>("mean");
  s.utilisation_max = u.optional<double>("max");
  s.active_ports = u.get<uint64_t>("active_ports");
  s.delivered_mean = u.optional<double>("delivered_mean");
  s.delivered_steady = u.optional<double>("delivered_steady");
  s.utilisation_window_ns = u.get<uint64_t>("window_ns");

  const Reader loss = r.at("loss");
  s.switch_drops = loss.get<uint64_t>("switch_drops");
  s.ecn_marks = loss.get<uint64_t>("ecn_marks");
  s.retransmits = loss.get<uint64_t>("retransmits");
  s.timeouts = loss.get<uint64_t>("timeouts");
  s.missing_at_end = loss.get<uint64_t>("missing_at_end");
  if (loss.has("trims")) s.trims = loss.get<uint64_t>("trims");
  if (loss.has("nacks")) s.nacks = loss.get<uint64_t>("nacks");

  const Reader ro = r.at("reordering");
  s.received_packets = ro.get<uint64_t>("received");
  s.out_of_order = ro.get<uint64_t>("out_of_order");
  s.out_of_order_fraction = ro.optional<double>("out_of_order_fraction");
  s.duplicates = ro.get<uint64_t>("duplicates");
  s.max_reorder_distance = ro.get<uint64_t>("max_distance");

  const Reader t = r.at("throughput");
  s.delivered_bytes = t.get<uint64_t>("delivered_bytes");
  s.window_start_ns = t.get<uint64_t>("window_start_ns");
  s.window_ns = t.get<uint64_t>("window_ns");
  s.accepted_throughput = t.optional<double>("accepted");
  const auto host_loads = [&t](const char* key) -> std::optional<VariantSummary::HostLoads> {
    if (!t.has(key)) return std::nullopt;
    const Reader l = t.at(key);
    return VariantSummary::HostLoads{l.get<double>("mean"), l.get<double>("min")};
  };
  s.offered_load = host_loads("offered_load");
  s.accepted_load = host_loads("accepted_load");

  const Reader h = r.at("hops");
  s.hops_max = h.optional<uint64_t>("max");
  s.hops_mean = h.optional<double>("mean");
  s.hops_p99 = h.optional<uint64_t>("p99");
  s.hops_histogram = h.get<std::vector<uint64_t>>("histogram");

  if (r.has("congestion_control")) {
    s.congestion_control = r.raw("congestion_control");
  }
  if (r.has("link_events")) {
    s.link_events = r.raw("link_events");
  }
  return s;
}

}  // namespace spraylab::fabric
