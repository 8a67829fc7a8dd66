#include "fabric/virtual_run.h"

#include <chrono>

#include "fabric/port_stats.h"

namespace spraylab::fabric {
namespace {

// Events between looks at the wall clock (progress, the wall-time guard): a few hundred µs.
constexpr uint64_t kWallCheckEvents = 4096;

}  // namespace

RunOutcome run_virtual(Fabric& f, const FabricOptions& opts, uint64_t limit_ns) {
  RunOutcome out;
  EventQueue& q = f.events();
  const std::vector<Node*>& nodes = f.nodes();
  const auto host_base = static_cast<uint32_t>(f.switches().size());
  const auto sampler = static_cast<uint32_t>(nodes.size());
  const uint64_t period = f.experiment().measurement.queue_sample_ns;
  const uint64_t start = f.start_ns();

  // Engines with nothing to do are finished from the start.
  std::vector<uint8_t> finished(f.hosts().size(), 0);
  uint64_t engines_done = 0, messages_total = 0;
  for (size_t h = 0; h < f.hosts().size(); ++h) {
    const gen::HostEngine& e = f.hosts()[h]->engine();
    messages_total += e.messages_total();
    if (e.finished()) {
      finished[h] = 1;
      ++engines_done;
    }
  }
  for (const auto& h : f.hosts()) h->start(0);
  if (period > 0) q.push(start, sampler, 0);

  const auto wall_start = std::chrono::steady_clock::now();
  auto wall_ns = [&] {
    return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                     std::chrono::steady_clock::now() - wall_start)
                                     .count());
  };
  const uint64_t wall_limit_ns = static_cast<uint64_t>(opts.max_wall_seconds * 1e9);
  uint64_t next_progress = opts.progress_period_ns;
  auto report = [&](uint64_t now) {
    if (!opts.progress) return;
    Progress p;
    for (const auto& h : f.hosts()) p.messages_done += h->engine().messages_done();
    p.messages_total = messages_total;
    p.clock_ns = now > start ? now - start : 0;
    p.wall_seconds = static_cast<double>(wall_ns()) * 1e-9;
    opts.progress(p);
  };

  uint64_t now = 0;
  out.stopped_by = gen::StopReason::kStalled;
  while (engines_done < finished.size()) {
    if (q.empty()) break;  // nothing can happen any more
    const Event e = q.pop();
    if (e.time > limit_ns) {
      now = limit_ns;
      out.stopped_by = gen::StopReason::kDuration;
      break;
    }
    now = e.time;
    if (e.node == sampler) {
      sample_queues(f, now - start, &out.samples);
      // Only the sampler left: the fabric is idle for good.
      if (!q.empty()) q.push(now + period, sampler, 0);
      continue;
    }
    if (!q.empty()) {
      if (q.top().node < sampler) nodes[q.top().node]->prefetch(q.top().tag, true);
      const Event* later = q.after_top();
      if (later != nullptr && later->node < sampler)
        nodes[later->node]->prefetch(later->tag, false);
    }
    nodes[e.node]->on_event(e.tag, now);
    ++out.events;
    if (e.node >= host_base && !finished[e.node - host_base] &&
        f.hosts()[e.node - host_base]->engine().finished()) {
      finished[e.node - host_base] = 1;
      ++engines_done;
    }
    if (out.events % kWallCheckEvents == 0) {
      const uint64_t w = wall_ns();
      if (w >= wall_limit_ns) {
        out.stopped_by = gen::StopReason::kTimeout;
        break;
      }
      if (w >= next_progress) {
        report(now);
        next_progress = w + opts.progress_period_ns;
      }
    }
  }
  if (engines_done == finished.size()) {
    out.completed = true;
    out.stopped_by = gen::StopReason::kCompleted;
  }
  out.end_ns = now;
  report(now);
  return out;
}

}  // namespace spraylab::fabric
