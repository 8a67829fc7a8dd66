#include "trafficgen/workloads/iterations.h"

#include <fmt/format.h>

#include <limits>

namespace spraylab::gen {

Schedule repeat(const Schedule& one, uint32_t iterations) {
  if (iterations == 0) throw WorkloadError("iterations must be >= 1");
  // Every copy's messages get ids of their own: past the 32-bit ids they would wrap (and the
  // schedule would need hundreds of GB first).
  const uint64_t total = uint64_t{one.messages.size()} * iterations;
  if (total > std::numeric_limits<MessageId>::max()) {
    throw WorkloadError(fmt::format(
        "workload.iterations: {} iterations x {} messages = {} messages; at most {} in one run",
        iterations, one.messages.size(), total, std::numeric_limits<MessageId>::max()));
  }
  Schedule s;
  s.ranks = one.ranks;
  const auto per_copy = static_cast<MessageId>(one.messages.size());
  const auto collectives = static_cast<uint32_t>(one.collectives.size());
  s.messages.reserve(size_t{per_copy} * iterations);  // no moves while it grows
  Frontier previous;
  for (uint32_t i = 0; i < iterations; ++i) {
    const MessageId base = i * per_copy;
    for (const Collective& c : one.collectives) s.add_collective(c.name, i);
    for (const Message& m : one.messages) {
      Message copy = m;
      copy.collective += i * collectives;
      for (MessageId& d : copy.depends_on) d += base;
      if (m.depends_on.empty() && i > 0) copy.depends_on = previous[m.src];
      s.add_message(std::move(copy));
    }
    previous = terminal_messages(s, base, base + per_copy);
  }
  return s;
}

}  // namespace spraylab::gen
