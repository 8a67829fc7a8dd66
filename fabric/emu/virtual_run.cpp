#include "fabric/emu/virtual_run.h"

#include "fabric/emu/mbuf_pool.h"
#include "fabric/emu/port_stats.h"
#include "fabric/emu/run_watch.h"

namespace spraylab::fabric {
namespace {

// Events between looks at the wall clock (progress, the wall-time guard): a few hundred µs.
constexpr uint64_t kWallCheckEvents = 4096;

// Which host engines have finished: the workload is complete when all have. Engines with nothing
// to do are finished from the start.
class FinishedEngines {
 public:
  explicit FinishedEngines(const Fabric& f)
      : f_(f),
        host_base_(static_cast<uint32_t>(f.switches().size())),
        finished_(f.hosts().size(), 0) {
    for (size_t h = 0; h < f.hosts().size(); ++h) {
      if (f.hosts()[h]->engine().finished()) mark(h);
    }
  }

  // Node `node` has just run: if it is a host whose engine finished then, count it.
  void note(uint32_t node) {
    if (node < host_base_) return;
    const uint32_t h = node - host_base_;
    if (!finished_[h] && f_.hosts()[h]->engine().finished()) mark(h);
  }

  bool all() const { return count_ == finished_.size(); }

 private:
  void mark(size_t h) {
    finished_[h] = 1;
    ++count_;
  }

  const Fabric& f_;
  const uint32_t host_base_;
  std::vector<uint8_t> finished_;
  size_t count_ = 0;
};

// A large fabric's node state does not fit in cache: while one event runs, fetch what the next
// two will touch.
void prefetch_next(const EventQueue& q, const std::vector<Node*>& nodes, uint32_t sampler) {
  if (q.empty()) return;
  if (q.top().node < sampler) nodes[q.top().node]->prefetch(q.top().tag, true);
  const Event* later = q.after_top();
  if (later != nullptr && later->node < sampler) nodes[later->node]->prefetch(later->tag, false);
}

// Keeps the samples taken at even multiples of `every` (the current sampling period, from the
// start): half of them, still evenly spaced, at twice the period.
void thin_samples(RunOutcome& out, uint64_t every) {
  const auto odd = [every](uint64_t t_ns) { return t_ns / every % 2 == 1; };
  std::erase_if(out.samples, [&odd](const QueueSample& s) { return odd(s.t_ns); });
  std::erase_if(out.delivered, [&odd](const DeliverySample& s) { return odd(s.t_ns); });
  out.samples.shrink_to_fit();
  out.delivered.shrink_to_fit();
  ++out.queue_sample_halvings;
}

}  // namespace

RunOutcome run_virtual(Fabric& f, const FabricOptions& opts, uint64_t limit_ns) {
  RunOutcome out;
  EventQueue& q = f.events();
  const std::vector<Node*>& nodes = f.nodes();
  const auto sampler = static_cast<uint32_t>(nodes.size());  // the queue sampler's node number
  const uint32_t link_events = sampler + 1;  // link events' node number; the tag is the event
  const uint64_t period = f.experiment().measurement.queue_sample_ns;
  const uint64_t warmup = f.experiment().measurement.warmup_ns;
  const uint64_t start = f.start_ns();
  const uint64_t deadline = limit_ns == UINT64_MAX ? UINT64_MAX : start + limit_ns;
  uint64_t sample_every = period;  // doubled by thin_samples()

  rte_mempool* const pool = f.pool();
  FinishedEngines engines(f);
  RunWatch watch(f, opts);
  for (const auto& h : f.hosts()) h->start(0);
  if (period > 0) q.push(start, sampler, 0);
  for (uint32_t i = 0; i < f.link_events().size(); ++i) {
    q.push(start + f.link_events()[i].at_ns, link_events, i);
  }

  uint64_t now = 0;
  out.stopped_by = gen::StopReason::kStalled;
  while (!engines.all()) {
    if (q.empty()) break;  // nothing can happen any more
    const Event e = q.pop();
    if (e.time > deadline) {
      now = deadline;
      out.stopped_by = gen::StopReason::kDuration;
      break;
    }
    now = e.time;
    if (e.node == sampler) {
      if ((now - start) % sample_every == 0) {  // every time until a long run has been thinned
        sample_queues(f, now - start, &out.samples);
        sample_delivered(f, now - start, &out.delivered);
        if (out.samples.size() >= opts.max_queue_samples) {
          thin_samples(out, sample_every);
          sample_every *= 2;
        }
      }
      if (warmup > 0 && out.warmup_at_ns == 0 && now - start >= warmup) {
        out.warmup_at_ns = now - start;
        for (const gen::HostEngine* h : f.engines())
          out.delivered_at_warmup += h->delivered_bytes();
      }
      // Only the sampler left: the fabric is idle for good.
      if (!q.empty()) q.push(now + period, sampler, 0);
      continue;
    }
    if (e.node == link_events) {
      f.apply_link_event(e.tag, now);
      continue;
    }
    prefetch_next(q, nodes, sampler);
    fabric_pool_grow(pool);  // before the event: it may take mbufs
    nodes[e.node]->on_event(e.tag, now);
    ++out.events;
    engines.note(e.node);
    if (out.events % kWallCheckEvents == 0) {
      const uint64_t w = watch.wall_ns();
      if (const std::optional<gen::StopReason> stop = watch.guard(w)) {
        out.stopped_by = *stop;
        break;
      }
      watch.progress(now, w, false, out.events);
    }
  }
  if (engines.all()) {
    out.completed = true;
    out.stopped_by = gen::StopReason::kCompleted;
  }
  out.end_ns = now;
  watch.progress(now, watch.wall_ns(), true, out.events);
  return out;
}

}  // namespace spraylab::fabric
