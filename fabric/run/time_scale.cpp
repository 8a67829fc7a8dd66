#include "fabric/run/time_scale.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

#include "conf/units.h"

namespace spraylab::fabric {
namespace {

uint64_t stretched(uint64_t ns, double k) {
  return static_cast<uint64_t>(static_cast<double>(ns) * k);
}

}  // namespace

double slowdown_factor(const conf::Experiment& e, double rate_bps) {
  if (!(rate_bps > 0)) return 1;
  double fastest = e.links.rate_bps;
  for (const auto& l : e.topology.links) fastest = std::max(fastest, l.rate_bps.value_or(0));
  const double k = fastest / rate_bps;
  return k > 1 ? k : 1;
}

void slow_down(conf::Experiment* e, double k) {
  if (!(k > 1)) return;
  e->links.rate_bps /= k;
  e->links.delay_ns *= k;
  for (auto& l : e->topology.links) {
    if (l.rate_bps) *l.rate_bps /= k;
    if (l.delay_ns) *l.delay_ns *= k;
  }
  e->workload.retransmit_timeout_ns = stretched(e->workload.retransmit_timeout_ns, k);
  e->measurement.queue_sample_ns = stretched(e->measurement.queue_sample_ns, k);
  e->measurement.duration_ns = stretched(e->measurement.duration_ns, k);
  for (auto& ev : e->events.links) {
    ev.at_ns = stretched(ev.at_ns, k);
    ev.rate_bps /= k;
  }
  e->events.random_failures_at_ns = stretched(e->events.random_failures_at_ns, k);
}

std::vector<std::pair<std::string, std::string>> slow_down_settings(const conf::Experiment& e,
                                                                    double k) {
  std::vector<std::pair<std::string, std::string>> out;
  if (!(k > 1)) return out;
  auto time = [k](uint64_t ns) { return conf::format_time(static_cast<double>(stretched(ns, k))); };
  out.emplace_back("links.rate", conf::format_rate(e.links.rate_bps / k));
  out.emplace_back("links.delay", conf::format_time(e.links.delay_ns * k));
  for (size_t i = 0; i < e.topology.links.size(); ++i) {
    const auto& l = e.topology.links[i];
    if (l.rate_bps) {
      out.emplace_back(fmt::format("topology.links[{}].rate", i),
                       conf::format_rate(*l.rate_bps / k));
    }
    if (l.delay_ns) {
      out.emplace_back(fmt::format("topology.links[{}].delay", i),
                       conf::format_time(*l.delay_ns * k));
    }
  }
  out.emplace_back("workload.retransmit_timeout", time(e.workload.retransmit_timeout_ns));
  out.emplace_back("measurement.queue_sample", time(e.measurement.queue_sample_ns));
  if (e.measurement.duration_ns > 0) {
    out.emplace_back("measurement.duration", time(e.measurement.duration_ns));
  }
  for (const conf::LinkEventSpec& ev : e.events.links) {
    // The loader keeps events in time order; `path` is where each was written.
    out.emplace_back(ev.path + ".at", time(ev.at_ns));
    if (ev.action == conf::LinkAction::kRate) {
      out.emplace_back(ev.path + ".rate", conf::format_rate(ev.rate_bps / k));
    }
  }
  if (e.events.random_link_failures > 0) {
    out.emplace_back("events.random_failures_at", time(e.events.random_failures_at_ns));
  }
  return out;
}

}  // namespace spraylab::fabric
