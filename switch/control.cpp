#include "switch/control.h"

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_telemetry.h>

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>

#include "conf/loader.h"
#include "conf/units.h"
#include "switch/dataplane/worker.h"

namespace spraylab::control {
namespace {

SwitchControl* g_control = nullptr;  // telemetry callbacks are plain C functions

int parse_port(const char* params) {
  if (params == nullptr || *params == '\0') return -1;
  char* end = nullptr;
  long p = std::strtol(params, &end, 10);
  return (*end == '\0' && p >= 0 && p < 65536) ? static_cast<int>(p) : -1;
}

// DPDK 22.11 telemetry dicts cannot nest dicts: nested objects are flattened to parent_child keys.
void put_flat(rte_tel_data* d, const std::string& prefix, const nlohmann::ordered_json& j) {
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string key = prefix.empty() ? it.key() : prefix + "_" + it.key();
    const auto& v = it.value();
    if (v.is_object()) {
      put_flat(d, key, v);
    } else if (v.is_number_unsigned()) {
      rte_tel_data_add_dict_u64(d, key.c_str(), v.get<uint64_t>());
    } else if (v.is_number_integer()) {
      rte_tel_data_add_dict_int(d, key.c_str(), v.get<int>());
    } else if (v.is_boolean()) {
      rte_tel_data_add_dict_u64(d, key.c_str(), v.get<bool>() ? 1 : 0);
    } else if (v.is_string()) {
      rte_tel_data_add_dict_string(d, key.c_str(), v.get<std::string>().c_str());
    }
  }
}

// /spraylab/port,N: one port's counters, queue depth and drops by reason.
int cmd_port(const char*, const char* params, rte_tel_data* d) {
  const int port = parse_port(params);
  if (port < 0 || port >= g_control->runtime().ports()) return -EINVAL;
  auto s = g_control->stats();
  rte_tel_data_start_dict(d);
  put_flat(d, "", s["ports"][port]);
  return 0;
}

// /spraylab/ports: every numeric port field as an array indexed by port.
int cmd_ports(const char*, const char*, rte_tel_data* d) {
  auto s = g_control->stats();
  rte_tel_data_start_dict(d);
  if (s["ports"].empty()) return 0;
  nlohmann::ordered_json flat;
  for (auto& [key, value] : s["ports"][0].items()) {
    if (value.is_number_unsigned() || value.is_boolean()) flat[key] = true;
  }
  for (auto& [key, unused] : flat.items()) {
    rte_tel_data* arr = rte_tel_data_alloc();
    rte_tel_data_start_array(arr, RTE_TEL_U64_VAL);
    for (auto& p : s["ports"]) {
      rte_tel_data_add_array_u64(arr,
                                 p[key].is_boolean() ? p[key].get<bool>() : p[key].get<uint64_t>());
    }
    rte_tel_data_add_dict_container(d, key.c_str(), arr, 0);
  }
  return 0;
}

// /spraylab/queue_max: every port's deepest queue since its last read (a metrics scrape takes its
// own interval), in packets and bytes; then the maxima restart from the depth now. A launcher
// reads it before and after a run (fabric/namespaced/launcher.cpp).
int cmd_queue_max(const char*, const char*, rte_tel_data* d) {
  dataplane::SwitchRuntime& rt = g_control->runtime();
  rte_tel_data_start_dict(d);
  rte_tel_data* packets = rte_tel_data_alloc();
  rte_tel_data* bytes = rte_tel_data_alloc();
  rte_tel_data_start_array(packets, RTE_TEL_U64_VAL);
  rte_tel_data_start_array(bytes, RTE_TEL_U64_VAL);
  for (uint16_t p = 0; p < rt.ports(); ++p) {
    const auto [mp, mb] = rt.take_max_depth(p, dataplane::SwitchRuntime::MaxReader::kResults);
    rte_tel_data_add_array_u64(packets, mp);
    rte_tel_data_add_array_u64(bytes, mb);
  }
  rte_tel_data_add_dict_container(d, "packets", packets, 0);
  rte_tel_data_add_dict_container(d, "bytes", bytes, 0);
  return 0;
}

int cmd_switch(const char*, const char*, rte_tel_data* d) {
  auto s = g_control->stats();
  s.erase("ports");
  rte_tel_data_start_dict(d);
  put_flat(d, "", s);
  return 0;
}

int cmd_port_state(const char* cmd, const char* params, rte_tel_data* d) {
  const int port = parse_port(params);
  if (port < 0 || port >= g_control->runtime().ports()) return -EINVAL;
  const bool up = std::string(cmd).ends_with("_up");
  g_control->set_admin(static_cast<uint16_t>(port), up);
  rte_tel_data_start_dict(d);
  rte_tel_data_add_dict_int(d, "port", port);
  rte_tel_data_add_dict_string(d, "admin", up ? "up" : "down");
  return 0;
}

// "N,RATE" (e.g. "3,25Gbps"): port N drains at RATE from its owner's next drain on, as an
// experiment's link event `action: rate` does in the fabric (docs/configuration.md, "events").
int cmd_port_rate(const char*, const char* params, rte_tel_data* d) {
  if (params == nullptr) return -EINVAL;
  const std::string text(params);
  const size_t comma = text.find(',');
  if (comma == std::string::npos) return -EINVAL;
  const int port = parse_port(text.substr(0, comma).c_str());
  if (port < 0 || port >= g_control->runtime().ports()) return -EINVAL;
  const std::optional<double> rate = conf::parse_rate_bps(text.substr(comma + 1));
  if (!rate || !(*rate > 0)) return -EINVAL;
  // Each worker sends on its own tx queue: no one shaper for the port (set_port_rate says more).
  if (g_control->runtime().per_worker_tx()) return -ENOTSUP;
  g_control->runtime().set_port_rate(static_cast<uint16_t>(port), *rate);
  rte_tel_data_start_dict(d);
  rte_tel_data_add_dict_int(d, "port", port);
  rte_tel_data_add_dict_string(d, "rate", conf::format_rate(*rate).c_str());
  return 0;
}

int cmd_lb_set(const char*, const char* params, rte_tel_data* d) {
  if (params == nullptr || *params == '\0') return -EINVAL;
  // Parameters as one YAML flow map, e.g. "{algorithm: psp, bands: 4}" or just "rps".
  std::string p(params);
  const std::string yaml = p.front() == '{' ? p : "{algorithm: " + p + "}";
  rte_tel_data_start_dict(d);
  try {
    g_control->runtime().set_balancer(conf::load_balancer_string(yaml, "lb_set"));
    rte_tel_data_add_dict_string(d, "algorithm", g_control->runtime().algorithm().c_str());
  } catch (const std::exception& ex) {
    rte_tel_data_add_dict_string(d, "error", ex.what());
  }
  return 0;
}

}  // namespace

SwitchControl::SwitchControl(dataplane::SwitchRuntime& rt, std::vector<net::PortState> ports,
                             rte_mempool* pool, std::chrono::microseconds carrier_period,
                             std::chrono::microseconds carrier_max_period)
    : rt_(rt),
      ports_(std::move(ports)),
      pool_(pool),
      admin_up_(new std::atomic<bool>[rt.ports()]),
      link_up_(rt.ports(), false),
      link_downs_(rt.ports()),
      carrier_index_(rt.ports(), -1),
      ever_up_(rt.ports(), false),
      warned_(rt.ports(), false) {
  for (uint16_t p = 0; p < rt.ports(); ++p) admin_up_[p].store(true);
  std::vector<std::string> ifaces;
  for (uint16_t p = 0; p < rt.ports() && p < ports_.size(); ++p) {
    if (ports_[p].iface.empty()) continue;
    carrier_index_[p] = static_cast<int>(ifaces.size());
    ifaces.push_back(ports_[p].iface);
  }
  if (!ifaces.empty()) {
    carrier_ =
        std::make_unique<net::CarrierWatch>(std::move(ifaces), carrier_period, carrier_max_period);
  }
}

void SwitchControl::poll_links() {
  for (uint16_t p = 0; p < rt_.ports() && p < ports_.size(); ++p) {
    const bool carrier = carrier_index_[p] < 0 || carrier_->up(carrier_index_[p]);
    const bool link = net::link_up(ports_[p].port_id) && carrier;
    if (link != link_up_[p]) {
      if (!link) link_downs_[p].fetch_add(1, std::memory_order_relaxed);
      fmt::print(stderr, "spraylab-switch {}: port {} ({}, to {}): link {}\n", rt_.tables().name, p,
                 ports_[p].name, rt_.tables().ports[p].peer, link ? "up" : "down");
    }
    link_up_[p] = link;
    if (link_up_[p]) ever_up_[p] = true;
    const bool up = link_up_[p] && admin_up_[p].load();
    if (up != rt_.port_up(p)) rt_.set_port_state(p, up);
  }
}

void SwitchControl::report_dead_links() {
  for (uint16_t p = 0; p < ports_.size() && p < rt_.ports(); ++p) {
    const auto& port = ports_[p];
    if (warned_[p]) continue;
    if (ever_up_[p]) continue;
    std::string hint = "is the peer running and wired to it?";
    if (port.driver == "net_memif") {
      hint = fmt::format(
          "memif pairs one ring per queue: a peer with more than the switch's {} rx / {} tx queues "
          "never connects (give the switch --rx-queues, or the peer fewer queues)",
          port.rx_queues, port.tx_queues);
    }
    fmt::print(stderr,
               "spraylab-switch: warning: port {} ({}, to {}) has had no link since start-up; {}\n",
               p, port.name, rt_.tables().ports[p].peer, hint);
    warned_[p] = true;
  }
}

void SwitchControl::set_admin(uint16_t port, bool up) {
  admin_up_[port].store(up);
  const bool link = port < ports_.size() ? link_up_[port] : true;
  rt_.set_port_state(port, up && link);
}

// The workers' share: what each received, busy cycles and loops, and the busy period (first to
// last packet moved over every worker: the rate while traffic flowed).
void SwitchControl::add_worker_stats(nlohmann::ordered_json& j, double* busy_period) const {
  uint64_t busy = 0, loops = 0;
  nlohmann::ordered_json per_worker = nlohmann::ordered_json::array();
  uint64_t first = UINT64_MAX, last = 0;
  for (uint32_t w = 0; w < rt_.workers(); ++w) {
    const dataplane::WorkerCounters& c = rt_.counters(w);
    busy += c.busy_cycles.get();
    loops += c.loops.get();
    uint64_t n = 0;
    for (uint16_t p = 0; p < rt_.ports(); ++p) n += c.port[p].rx_packets.get();
    per_worker.push_back(n);
    if (c.first_busy_tsc.get() == 0) continue;
    first = std::min(first, c.first_busy_tsc.get());
    last = std::max(last, c.last_busy_tsc.get());
  }
  j["worker_rx_packets"] = per_worker;
  j["busy_cycles"] = busy;
  j["loops"] = loops;
  *busy_period =
      last > first ? static_cast<double>(last - first) / static_cast<double>(rte_get_tsc_hz()) : 0;
  j["busy_period_seconds"] = *busy_period;
}

// One port's state, counters, queue depth and drops by reason, each also added to `drops`. (The
// maxima are /spraylab/queue_max's: a read takes them.)
nlohmann::ordered_json SwitchControl::port_stats(uint16_t p, std::vector<uint64_t>& drops) {
  using dataplane::PortCounters;
  nlohmann::ordered_json pj;
  pj["port"] = p;
  pj["peer"] = rt_.tables().ports[p].peer;
  pj["device"] = p < ports_.size() ? ports_[p].name : "";
  pj["up"] = rt_.port_up(p);
  pj["link_downs"] = link_downs_[p].load(std::memory_order_relaxed);
  pj["rx_packets"] = rt_.sum(p, &PortCounters::rx_packets);
  pj["rx_bytes"] = rt_.sum(p, &PortCounters::rx_bytes);
  pj["tx_packets"] = rt_.sum(p, &PortCounters::tx_packets);
  pj["tx_bytes"] = rt_.sum(p, &PortCounters::tx_bytes);
  pj["lb_decisions"] = rt_.sum(p, &PortCounters::lb_decisions);
  pj["ecn_marks"] = rt_.sum(p, &PortCounters::ecn_marks);
  pj["trims"] = rt_.sum(p, &PortCounters::trims);
  pj["egress_packets"] = rt_.sum(p, &PortCounters::egress_packets);
  pj["queue_packets"] = rt_.depth_packets_now(p);
  pj["queue_bytes"] = rt_.depth_bytes_now(p);
  if (const dataplane::Pfc* pfc = rt_.pfc()) {
    // buffer.flow_control: pfc: the frames this port sent its peer and received from it, and the
    // time its transmitter was paused (the namespaced fabric's summary reads them).
    const dataplane::PfcPortCounters& c = pfc->counters(p);
    pj["pfc_pause_sent"] = c.pause_sent.get();
    pj["pfc_resume_sent"] = c.resume_sent.get();
    pj["pfc_pause_received"] = c.pause_received.get();
    pj["pfc_resume_received"] = c.resume_received.get();
    pj["pfc_paused_ns"] = pfc->paused_ns_seen(p, dataplane::TscClock().now_ns());
  }
  pj["drops"] = drops_json(p, drops);
  return pj;
}

nlohmann::ordered_json SwitchControl::drops_json(uint16_t p, std::vector<uint64_t>& drops) const {
  nlohmann::ordered_json dj;
  for (size_t r = 0; r < dataplane::kDropReasons; ++r) {
    const uint64_t n = rt_.sum_drops(p, static_cast<dataplane::DropReason>(r));
    dj[std::string(dataplane::kDropReasonNames[r])] = n;
    drops[r] += n;
  }
  return dj;
}

nlohmann::ordered_json SwitchControl::stats() {
  nlohmann::ordered_json j;
  j["switch"] = rt_.tables().name;
  j["algorithm"] = rt_.algorithm();
  j["workers"] = rt_.workers();
  double busy_period = 0;
  add_worker_stats(j, &busy_period);
  if (pool_ != nullptr) {
    // in_use = size - available, where available counts the lcores' caches too: exact, not
    // approximate, whichever lcore last touched the pool.
    j["mbuf_pool"] = {{"size", pool_->size},
                      {"in_use", rte_mempool_in_use_count(pool_)},
                      {"available", rte_mempool_avail_count(pool_)}};
  }
  uint64_t rx = 0, tx = 0;
  std::vector<uint64_t> drops(dataplane::kDropReasons, 0);
  nlohmann::ordered_json ports = nlohmann::ordered_json::array();
  for (uint16_t p = 0; p < rt_.ports(); ++p) {
    nlohmann::ordered_json pj = port_stats(p, drops);
    rx += pj["rx_packets"].get<uint64_t>();
    tx += pj["tx_packets"].get<uint64_t>();
    ports.push_back(std::move(pj));
  }
  j["busy_period_rx_pps"] = busy_period > 0 ? static_cast<double>(rx) / busy_period : 0.0;
  nlohmann::ordered_json totals;
  totals["rx_packets"] = rx;
  totals["tx_packets"] = tx;
  nlohmann::ordered_json dj;
  for (size_t r = 0; r < dataplane::kDropReasons; ++r)
    dj[std::string(dataplane::kDropReasonNames[r])] = drops[r];
  totals["drops"] = dj;
  j["totals"] = totals;
  j["ports"] = ports;
  return j;
}

void SwitchControl::register_telemetry() {
  g_control = this;
  // DPDK refuses a command (-EINVAL) whose help is 128 characters or more (MAX_HELP_LEN in
  // 22.11), and the command is then silently absent: a longer help string made
  // /spraylab/queue_max answer null. A compile error now; any other refusal (the callback
  // table full) stops the switch at start-up.
  const auto add = []<size_t N>(const char* cmd, telemetry_cb fn, const char (&help)[N]) {
    static_assert(N <= 128, "a telemetry help string DPDK 22.11 takes is under 128 characters");
    if (const int rc = rte_telemetry_register_cmd(cmd, fn, help); rc != 0) {
      throw std::runtime_error(
          fmt::format("cannot register the telemetry command {}: {}", cmd, rte_strerror(-rc)));
    }
  };
  add("/spraylab/switch", cmd_switch,
      "Switch totals: algorithm, rx/tx packets, drops by reason, mbuf pool");
  add("/spraylab/ports", cmd_ports, "Per port: every numeric field as an array indexed by port");
  add("/spraylab/port", cmd_port,
      "One port: counters, queue depth, drops by reason. Parameter: port");
  add("/spraylab/queue_max", cmd_queue_max,
      "Per port: deepest queue (packets, bytes) since this command's last read, then reset");
  add("/spraylab/port_down", cmd_port_state, "Take a port down. Parameter: port");
  add("/spraylab/port_up", cmd_port_state, "Bring a port back up. Parameter: port");
  add("/spraylab/port_rate", cmd_port_rate,
      "Drain a port at a rate. Parameters: port,rate (e.g. 3,25Gbps)");
  add("/spraylab/lb_set", cmd_lb_set,
      "Change the load balancer. Parameter: name, or a YAML map of its keys");
}

}  // namespace spraylab::control
