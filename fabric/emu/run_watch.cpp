#include "fabric/emu/run_watch.h"

#include <algorithm>

#include "trafficgen/packet.h"

namespace spraylab::fabric {

RunWatch::RunWatch(const Fabric& f, const FabricOptions& opts)
    : f_(f),
      opts_(opts),
      wall_limit_ns_(static_cast<uint64_t>(opts.max_wall_seconds * 1e9)),
      next_progress_ns_(opts.progress_period_ns) {
  for (const auto& h : f.hosts()) messages_total_ += h->engine().sends_total();
  for (const gen::Message& m : f.plan().schedule.messages) {
    data_packets_ += gen::packet_count(m.bytes, f.plan().payload_bytes);
  }
}

uint64_t RunWatch::wall_ns() const {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now() - start_)
                                   .count());
}

void RunWatch::progress(uint64_t clock_ns, uint64_t wall_ns, bool last, uint64_t events) {
  if (!opts_.progress || (wall_ns < next_progress_ns_ && !last)) return;
  Progress p;
  for (const auto& h : f_.hosts()) p.messages_done += h->engine().sends_acked();
  p.messages_total = messages_total_;
  p.clock_ns = clock_ns > f_.start_ns() ? clock_ns - f_.start_ns() : 0;
  p.wall_seconds = static_cast<double>(wall_ns) * 1e-9;
  if (events > 0 && data_packets_ > 0) {
    // The engines' counters are plain: read only on the thread that runs them (virtual time).
    uint64_t arrived = 0;
    for (const auto& h : f_.hosts()) arrived += h->engine().counter(gen::GenCounter::kRxData);
    p.events = events;
    p.done_fraction =
        std::min(1.0, static_cast<double>(arrived) / static_cast<double>(data_packets_));
  }
  opts_.progress(p);
  next_progress_ns_ = wall_ns + opts_.progress_period_ns;
}

}  // namespace spraylab::fabric
