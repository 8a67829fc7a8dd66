// A node of the fabric (a switch, or the emulated hosts under one leaf) as each clock drives it.
#pragma once

#include <cstdint>

namespace spraylab::fabric {

// Event tags a node may receive. A link's arrival carries the receiving node's tag for that link
// (its port, or its link slot): values below kTxTag.
inline constexpr uint32_t kTxTag = 0x10000;        // | port: a shaper lets the next frame go
inline constexpr uint32_t kPauseTag = 0x20000;     // | port: a PFC pause on the port runs out
inline constexpr uint32_t kTimerTag = 0xffffffff;  // a host engine's own next_wake

class Node {
 public:
  virtual ~Node() = default;
  // Virtual time: what the node asked to be woken for (or a frame arriving on one of its links)
  // is due at `now`.
  virtual void on_event(uint32_t tag, uint64_t now) = 0;
  // Virtual time: the event `tag` comes soon; start loading what it will touch, so that its cache
  // misses overlap the work of the events before it. Two steps, one event apart, since the
  // frame's address is in memory the first step loads: `near` false two events ahead, true one.
  virtual void prefetch(uint32_t tag, bool near) const { (void)tag, (void)near; }
  // Wall-clock time: one turn: take what has arrived, send what may leave. True if it moved
  // anything. `now_ns` is `now_tsc` in ns: one reading of the lcore's clock, which the switch
  // reads in ns and the host engine in TSC cycles.
  virtual bool poll(uint64_t now_ns, uint64_t now_tsc) = 0;
};

}  // namespace spraylab::fabric
