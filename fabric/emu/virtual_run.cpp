#include "fabric/emu/virtual_run.h"

#include <rte_lcore.h>

#include <algorithm>
#include <barrier>
#include <exception>
#include <numeric>
#include <thread>

#include "fabric/emu/mbuf_pool.h"
#include "fabric/emu/port_stats.h"
#include "fabric/emu/run_watch.h"

namespace spraylab::fabric {
namespace {

// Events between looks at the wall clock (progress, the wall-time guard) on a single partition:
// a few hundred µs. A partitioned run looks at every barrier.
constexpr uint64_t kWallCheckEvents = 4096;

// A large fabric's node state does not fit in cache: while one event runs, fetch what the next
// two will touch.
void prefetch_next(EventQueue& q, const std::vector<Node*>& nodes) {
  if (q.empty()) return;
  nodes[q.top().node]->prefetch(q.top().tag, true);
  const Event* later = q.after_top();
  if (later != nullptr) nodes[later->node]->prefetch(later->tag, false);
}

// One partition of the fabric (fabric.h, partition.h): its queue, the events of its nodes, and
// which of its host engines have finished. One thread runs it, a window at a time.
class Partition {
 public:
  Partition(Fabric& f, uint32_t index, RunWatch* watch)
      : f_(f),
        q_(f.events(index)),
        nodes_(f.nodes()),
        host_base_(static_cast<uint32_t>(f.switches().size())),
        finished_(f.hosts().size(), 1),
        pool_(f.pool(index), f.partitions(), f.most_hosts_per_node()),
        watch_(watch) {
    for (size_t h = 0; h < f.hosts().size(); ++h) {
      if (f.partition_of(host_base_ + static_cast<uint32_t>(h)) != index) continue;
      if (!f.hosts()[h]->engine().finished()) {
        finished_[h] = 0;
        ++left_;
      }
    }
  }

  // Runs every event before `end`. A single partition (`watch_` set) also minds the wall clock:
  // false when it must stop (stop_reason()).
  bool run_until(uint64_t end) {
    pool_.window_start();
    while (!q_.empty() && q_.next_time() < end) {
      const Event e = q_.pop();
      prefetch_next(q_, nodes_);
      pool_.before_event();  // it may take mbufs
      nodes_[e.node]->on_event(e.tag, e.time);
      ++events_;
      last_ = e.time;
      note(e.node, e.time);
      if (watch_ != nullptr && events_ % kWallCheckEvents == 0) {
        const uint64_t w = watch_->wall_ns();
        stop_ = watch_->guard(w);
        if (stop_) return false;
        watch_->progress(e.time, w, false, events_);
      }
    }
    pool_.window_end();
    return true;
  }

  uint64_t next_time() const { return q_.next_time(); }
  bool idle() const { return q_.empty(); }
  bool finished() const { return left_ == 0; }
  uint64_t finished_at() const { return finished_at_; }  // the time its last engine finished
  uint64_t events() const { return events_; }
  uint64_t last_time() const { return last_; }  // of its last event
  std::optional<gen::StopReason> stop_reason() const { return stop_; }
  uint32_t pool_grown_in_window() const { return pool_.in_window(); }

 private:
  // Node `node` has just run: if it is a host whose engine finished then, count it.
  void note(uint32_t node, uint64_t now) {
    if (node < host_base_) return;
    const uint32_t h = node - host_base_;
    if (finished_[h] || !f_.hosts()[h]->engine().finished()) return;
    finished_[h] = 1;
    if (--left_ == 0) finished_at_ = now;
  }

  Fabric& f_;
  EventQueue& q_;
  const std::vector<Node*>& nodes_;
  const uint32_t host_base_;
  std::vector<uint8_t> finished_;  // by host node; other partitions' count as finished
  size_t left_ = 0;
  uint64_t finished_at_ = 0;
  uint64_t events_ = 0;
  uint64_t last_ = 0;
  PoolGrower pool_;  // its hosts' frames: grown by this partition's thread only
  RunWatch* watch_;
  std::optional<gen::StopReason> stop_;
};

// The threads of a partitioned run: the caller's runs partition 0, one more thread each other
// partition. run() is one window: every partition runs to `end`, and all have stopped when it
// returns (two barriers: the start, then the end of the window). No lock on the events' path.
class WindowThreads {
 public:
  explicit WindowThreads(std::vector<Partition>& parts)
      : parts_(parts),
        start_(static_cast<std::ptrdiff_t>(parts.size())),
        end_(static_cast<std::ptrdiff_t>(parts.size())),
        errors_(parts.size()) {
    for (size_t p = 1; p < parts.size(); ++p) threads_.emplace_back([this, p] { work(p); });
  }
  ~WindowThreads() {
    quit_ = true;
    start_.arrive_and_wait();
    for (std::thread& t : threads_) t.join();
  }
  WindowThreads(const WindowThreads&) = delete;
  WindowThreads& operator=(const WindowThreads&) = delete;

  void run(uint64_t end) {
    window_end_ = end;
    start_.arrive_and_wait();
    window(0);
    end_.arrive_and_wait();
    for (std::exception_ptr& e : errors_) {
      if (e) std::rethrow_exception(e);
    }
  }

 private:
  void window(size_t p) {
    try {
      parts_[p].run_until(window_end_);
    } catch (...) {
      errors_[p] = std::current_exception();
    }
  }
  void work(size_t p) {
    // An lcore id of its own: the mempool's per-lcore cache (without one, every mbuf would go
    // through the shared store; still correct, as the store is lock-free).
    const bool registered = rte_thread_register() == 0;
    while (true) {
      start_.arrive_and_wait();
      if (quit_) break;
      window(p);
      end_.arrive_and_wait();
    }
    if (registered) rte_thread_unregister();
  }

  std::vector<Partition>& parts_;
  std::barrier<> start_, end_;
  std::vector<std::exception_ptr> errors_;
  std::vector<std::thread> threads_;
  uint64_t window_end_ = 0;  // written before the start barrier
  bool quit_ = false;
};

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

// workload.injection bernoulli: each host's arrivals and received payload at the warm-up time
// `now` (the fabric's clock), the start of summary.json's per-host offered and accepted loads.
void tally_at_warmup(const Fabric& f, uint64_t now, RunOutcome* out) {
  const size_t hosts = f.plan().hosts.size();
  out->arrivals_at_warmup.assign(hosts, 0);
  out->host_delivered_at_warmup.assign(hosts, 0);
  for (const gen::HostEngine* h : f.engines()) {
    for (const gen::HostTally& t : h->host_tallies(now)) {
      out->arrivals_at_warmup[t.host] = t.arrivals;
      out->host_delivered_at_warmup[t.host] = t.delivered_bytes;
    }
  }
}

}  // namespace

RunOutcome run_virtual(Fabric& f, const FabricOptions& opts, uint64_t limit_ns) {
  RunOutcome out;
  const uint64_t period = f.experiment().measurement.queue_sample_ns;
  const uint64_t warmup = f.experiment().measurement.warmup_ns;
  const uint64_t start = f.start_ns();
  const uint64_t deadline = limit_ns == UINT64_MAX ? UINT64_MAX : start + limit_ns;
  const uint64_t window = f.window_ns();
  uint64_t sample_every = period;  // doubled by thin_samples()

  RunWatch watch(f, opts);
  std::vector<Partition> parts;
  for (uint32_t p = 0; p < f.partitions(); ++p) {
    parts.emplace_back(f, p, f.partitions() == 1 ? &watch : nullptr);
  }
  for (const auto& h : f.hosts()) h->start(0);
  // The queue sampler and the link events run at the barriers, between windows.
  uint64_t next_sample = period > 0 ? start : UINT64_MAX;
  std::vector<size_t> link_order(f.link_events().size());
  std::iota(link_order.begin(), link_order.end(), size_t{0});
  std::stable_sort(link_order.begin(), link_order.end(), [&f](size_t a, size_t b) {
    return f.link_events()[a].at_ns < f.link_events()[b].at_ns;
  });
  size_t next_link = 0;
  auto link_time = [&](size_t k) { return start + f.link_events()[link_order[k]].at_ns; };
  auto all_finished = [&parts] {
    return std::all_of(parts.begin(), parts.end(), [](const Partition& p) { return p.finished(); });
  };
  auto events = [&parts] {
    uint64_t n = 0;
    for (const Partition& p : parts) n += p.events();
    return n;
  };
  std::optional<WindowThreads> threads;
  if (parts.size() > 1) threads.emplace(parts);

  // Windows: from the next event to the next barrier time. The barriers are the multiples of
  // window_ns(), and the ns after a sample, a link event and the deadline: the same for every
  // partitioning, so a run stops (below: at the barrier after its last engine finished) at the
  // same event whatever the threads.
  uint64_t now = 0;
  out.stopped_by = gen::StopReason::kStalled;
  while (!all_finished()) {
    uint64_t t =
        std::min(next_sample, next_link < link_order.size() ? link_time(next_link) : UINT64_MAX);
    for (const Partition& p : parts) t = std::min(t, p.next_time());
    if (t == UINT64_MAX) break;  // nothing can happen any more
    if (t > deadline) {
      now = deadline;
      out.stopped_by = gen::StopReason::kDuration;
      break;
    }
    uint64_t end = (t / window + 1) * window;
    if (next_sample != UINT64_MAX) end = std::min(end, next_sample + 1);
    if (next_link < link_order.size()) end = std::min(end, link_time(next_link) + 1);
    if (deadline != UINT64_MAX) end = std::min(end, deadline + 1);
    if (threads) {
      threads->run(end);
    } else if (!parts[0].run_until(end)) {
      out.stopped_by = *parts[0].stop_reason();
      now = parts[0].last_time();
      break;
    }
    for (Link* l : f.crossing_links()) l->hand_over();  // in link order; arms what came
    for (const Partition& p : parts) now = std::max(now, p.last_time());
    // What ran at `end - 1` after every node: the sampler, then the link events (one queue
    // would order them so: their node numbers come after the nodes').
    const uint64_t at = end - 1;
    if (next_sample == at) {
      now = at;
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
        if (f.plan().injection == gen::Injection::kBernoulli) tally_at_warmup(f, now, &out);
      }
      // Only the sampler left: the fabric is idle for good.
      const bool busy =
          next_link < link_order.size() ||
          std::any_of(parts.begin(), parts.end(), [](const Partition& p) { return !p.idle(); });
      next_sample = busy ? now + period : UINT64_MAX;
    }
    for (; next_link < link_order.size() && link_time(next_link) == at; ++next_link) {
      now = at;
      f.apply_link_event(link_order[next_link], now);
    }
    if (threads) {
      const uint64_t w = watch.wall_ns();
      if (const std::optional<gen::StopReason> stop = watch.guard(w)) {
        out.stopped_by = *stop;
        break;
      }
      watch.progress(now, w, false, events());
    }
  }
  out.events = events();
  if (all_finished()) {
    out.completed = true;
    out.stopped_by = gen::StopReason::kCompleted;
    now = 0;
    for (const Partition& p : parts) now = std::max(now, p.finished_at());
  }
  out.end_ns = now;
  out.pool_frames = fabric_pool_frames(f.partitions());
  for (const Partition& p : parts) out.pool_grown_in_window += p.pool_grown_in_window();
  threads.reset();
  watch.progress(now, watch.wall_ns(), true, out.events);
  return out;
}

}  // namespace spraylab::fabric
