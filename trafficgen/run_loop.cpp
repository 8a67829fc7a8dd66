#include "trafficgen/run_loop.h"

#include <fmt/format.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <string>

#include "conf/cli_checks.h"

namespace spraylab::gen {
namespace {

// Every port's device counters (rte_eth_stats) when the results are written: what reached the
// device and what it lost before the engines saw it. `imissed` is, for an af_xdp port, the AF_XDP
// socket's drops (no fill-ring buffer: a poller away too long), `rx_nombuf` an mbuf pool run dry;
// a frame lost there is counted nowhere else. Frames still on their way when a run completes (a
// late ACK) arrive after this, as they do after the engines' own counters.
nlohmann::ordered_json port_stats_json() {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  uint16_t port;
  RTE_ETH_FOREACH_DEV(port) {
    rte_eth_stats st{};
    if (rte_eth_stats_get(port, &st) != 0) continue;
    char name[RTE_ETH_NAME_MAX_LEN] = {};
    rte_eth_dev_get_name_by_port(port, name);
    out.push_back({{"port", port},
                   {"name", name},
                   {"ipackets", st.ipackets},
                   {"imissed", st.imissed},
                   {"ierrors", st.ierrors},
                   {"rx_nombuf", st.rx_nombuf},
                   {"opackets", st.opackets},
                   {"oerrors", st.oerrors}});
  }
  return out;
}
}  // namespace

void RunLoop::run() {
  uint64_t next_control = 0;
  while (true) {
    const uint64_t now = rte_rdtsc();
    if (flags_.quiesce->load(std::memory_order_relaxed) && !lcores_.halted() && reported_)
      quiesce();
    lcores_.poll_main(now);
    if (now < next_control) continue;
    next_control = now + control_every_;
    if (!control(now)) return;
  }
}

void RunLoop::finish() {
  progress_.end_line();
  if (!results_written_ || info_.stopped_by != StopReason::kCompleted) write_results();
}

uint64_t RunLoop::linger_cycles(const GenOptions& cli, const RunPlan& plan, uint64_t hz) {
  const double s = cli.linger >= 0
                       ? cli.linger
                       : std::max(0.1, 3e-9 * static_cast<double>(plan.retransmit_timeout_ns));
  return static_cast<uint64_t>(s * static_cast<double>(hz));
}

void RunLoop::quiesce() {
  lcores_.halt();
  fmt::print("quiesced\n");
  std::fflush(stdout);
}

bool RunLoop::control(uint64_t now) {
  link_log_.poll();
  const double elapsed =
      now > start_tsc_ ? static_cast<double>(now - start_tsc_) / static_cast<double>(hz_) : 0;
  progress_.update(now, elapsed, engines_);
  if (!reported_) {
    const std::optional<StopReason> reason = stop_reason(elapsed);
    if (!reason) return true;
    if (!stop(now, *reason)) return false;
  }
  if (flags_.signal->load()) return false;
  if (cli_.hold ? flags_.released->load() : now - finish_tsc_ >= linger_cycles_) return false;
  // Write once, right after finishing (the harness reads the file while we hold).
  if (!results_written_) write_results();
  return true;
}

std::optional<StopReason> RunLoop::stop_reason(double elapsed) const {
  if (engines_.finished()) return StopReason::kCompleted;
  if (flags_.signal->load()) return StopReason::kSignal;
  if (cli_.duration > 0 && elapsed >= cli_.duration) return StopReason::kDuration;
  if (cli_.timeout > 0 && elapsed >= cli_.timeout) return StopReason::kTimeout;
  return std::nullopt;
}

bool RunLoop::stop(uint64_t now, StopReason reason) {
  info_.stopped_by = reason;
  finish_tsc_ = now;
  reported_ = true;
  // --duration with --hold: no more data, but ACKs and receiving go on until released, so
  // what the run put in flight drains and is counted.
  const bool drain = reason == StopReason::kDuration && cli_.hold;
  if (drain) {
    for (const auto& e : engines_.list) e->stop_data();
  }
  if (!((reason == StopReason::kCompleted || drain) && (cli_.hold || linger_cycles_ > 0)))
    return false;
  // Finished: results now; keep answering peers while holding or lingering.
  progress_.end_line();
  return true;
}

void RunLoop::write_results() {
  results_written_ = true;
  info_.end_ns = engines_.list[0]->ns_of(finish_tsc_);
  info_.completed = engines_.finished();
  auto j = results_json(plan_, engines_.view(), info_);
  j["ports"] = port_stats_json();
  if (!cli_.results.empty()) {
    const std::string error = conf::write_output_file(cli_.results, j.dump(2) + "\n", "--results");
    if (!error.empty()) {
      fmt::print(stderr, "spraylab-gen: {}\n", error);
    }
  }
  fmt::print("{}\n", nlohmann::json{{"completed", info_.completed},
                                    {"stopped_by", std::string(to_string(info_.stopped_by))},
                                    {"messages_done", engines_.done()},
                                    {"messages", engines_.total()},
                                    {"results", cli_.results}}
                         .dump());
  std::fflush(stdout);
}

}  // namespace spraylab::gen
