// The critical path through a collective's dependencies (ring all-reduce, FSDP's rings, traces
// with depends_on): a chain of messages, each waiting for the one before, cannot finish sooner
// than the sum of its links' times (docs/workloads.md).
//
// A message waits for a dependency its sender sends until that is ACKed, and for one its sender
// receives until its last data packet arrived (trafficgen/host_engine.cpp: complete_send,
// complete_recv), then start_ns more. Each message on the chain is bounded alone, as the
// per-host bound bounds one message: its data slots on its sender's uplink (the last without its
// gap), its shortest frame's other H-1 links and the propagation (then it is received), and its
// last ACK's H links back (then it is ACKed):
//   start(m)    ≥ max over dependencies d inside the collective of ready(d) + start_ns(m), else 0
//   received(m) = start(m) + data slots - g + p + (H-1)·(t + p)
//   acked(m)    = received(m) + H·(t_a + p)
// Dependencies outside the collective only delay it; they start at 0, the collective's first
// transmission, like every message. The bound is the largest acked(m).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "trafficgen/bounds/bound_wire.h"
#include "trafficgen/schedule.h"

namespace spraylab::gen {

struct StepsBound {
  double total_ns = 0;
  uint32_t messages_on_path = 0;  // the critical chain's length (0: no message)
};

// True if a message of `messages` depends on another of them.
bool has_dependencies_within(const Schedule& s, std::span<const MessageId> messages);

// The critical path of `messages` of `s` (ids; each message's path has hops[id] links).
StepsBound critical_path_bound(const Schedule& s, std::span<const MessageId> messages,
                               const std::vector<uint32_t>& hops, const BoundWire& w);

}  // namespace spraylab::gen
