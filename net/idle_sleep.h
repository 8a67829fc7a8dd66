// Adaptive sleep for a polling lcore whose polls come back empty, so that many DPDK processes can
// share few CPUs (a namespaced fabric: one process per switch and per host group, docs/fabric.md).
//
// Why not rx interrupts: DPDK 22.11's memif PMD has none (its rx_queue_intr_enable answers
// "Interrupt mode not supported"), and the switch's ports are mostly memif. So a poller that found
// nothing spins a few turns (back-to-back bursts), then sleeps, each empty turn twice as long as
// the last, up to `max_ns`, never past `wake_ns` (the earliest moment it knows it has work: a
// shaper or pacer slot, a timer). Any work puts it back to spinning. With max_ns = 0 it never
// sleeps: the default, a dedicated core's busy polling.
//
// The cost is latency: a poller that has slept long takes up to max_ns to see a frame, and, with
// traffic, about the gap between its frames (frames then come in bursts). Rates must be shaped to
// what the machine sustains anyway when processes outnumber cores.
//
// A poller that takes turns with DPDK's interrupt thread (intr_gate.h) leaves the gate while it
// sleeps, so the interrupt thread never waits for a sleeper, and enters it again on waking (it
// parks there if the thread has its turn): a sleeper is never inside a burst.
#pragma once

#include <time.h>

#include <algorithm>
#include <cstdint>

#include "net/intr_gate.h"

namespace spraylab::net {

// How long the peer-death gate (intr_gate.h) holds DPDK's interrupt thread between its turns
// when the pollers sleep up to `idle_sleep_ns`: 5 of their longest sleeps, at least the default
// 10 ms. Each turn wakes the interrupt thread; with dozens of processes on two CPUs those wakeups
// were half of an idle fabric's CPU. The price: a memif link change is seen up to that late.
inline uint64_t gate_hold_us(uint64_t idle_sleep_ns) {
  return idle_sleep_ns == 0
             ? IntrGate::kDefaultHoldUs
             : std::max<uint64_t>(IntrGate::kDefaultHoldUs, idle_sleep_ns * 5 / 1000);
}

class IdleSleep {
 public:
  // Empty turns spun before the first sleep, and the first sleep (the kernel's timer slack adds
  // up to 50 us to any sleep anyway).
  static constexpr uint32_t kSpinTurns = 64;
  static constexpr uint64_t kFirstSleepNs = 20'000;

  explicit IdleSleep(uint64_t max_ns = 0) : max_ns_(max_ns) {}
  bool enabled() const { return max_ns_ > 0; }
  uint64_t max_ns() const { return max_ns_; }
  uint64_t sleeps() const { return sleeps_; }

  // The turn moved something: spin again.
  void worked() {
    empty_turns_ = 0;
    next_ns_ = kFirstSleepNs;
  }

  // The turn moved nothing. `now_ns` and `wake_ns` on one clock (UINT64_MAX: no known work).
  // Returns true if it slept.
  bool idle(uint64_t now_ns, uint64_t wake_ns, IntrGate* gate = nullptr, uint32_t poller = 0) {
    if (max_ns_ == 0 || ++empty_turns_ <= kSpinTurns) return false;
    uint64_t ns = std::min(next_ns_, max_ns_);
    if (wake_ns != UINT64_MAX) {
      if (wake_ns <= now_ns) return false;
      ns = std::min(ns, wake_ns - now_ns);
    }
    next_ns_ = std::min(next_ns_ * 2, max_ns_);
    if (gate) gate->leave(poller);
    const timespec ts{static_cast<time_t>(ns / 1'000'000'000),
                      static_cast<long>(ns % 1'000'000'000)};
    nanosleep(&ts, nullptr);
    if (gate) gate->enter(poller);
    ++sleeps_;
    return true;
  }

 private:
  uint64_t max_ns_;
  uint32_t empty_turns_ = 0;
  uint64_t next_ns_ = kFirstSleepNs;
  uint64_t sleeps_ = 0;
};

}  // namespace spraylab::net
