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
//
// Work that is due and that a turn did not do (a device that refused a burst: a full ring) gets
// the shortest sleep after the spin, not more spinning: a real-time poller (realtime.h) that spun
// would hold its CPU from the very peer or kernel work that makes room.
//
// Deep idle (`deep_ns` > max_ns): after kDeepAfterNs without any work the cap grows to deep_ns,
// so an idle process wakes fewer times a second (an idle fabric's CPU is its wake-ups). The price
// is the first frame after such a spell: up to deep_ns late at each hop. A launcher that knows a
// run is coming wakes its processes first: SIGUSR1 (install_idle_wake_signal) interrupts the
// sleep and every poller of the process starts a fresh spell at the max_ns cap.
#pragma once

#include <signal.h>
#include <time.h>

#include <algorithm>
#include <atomic>
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

// Bumped by SIGUSR1 once install_idle_wake_signal() ran: every IdleSleep of the process leaves
// deep idle at its next turn (the signal's own thread, the main one as a rule, wakes at once).
inline std::atomic<uint32_t>& idle_wake_epoch() {
  static std::atomic<uint32_t> epoch{0};
  return epoch;
}

// SIGUSR1 wakes this process's pollers from deep idle (a launcher sends it before a run). The
// handler only bumps an atomic; without SA_RESTART the signal ends a sleep early.
inline void install_idle_wake_signal() {
  struct sigaction sa {};
  sa.sa_handler = [](int) { idle_wake_epoch().fetch_add(1, std::memory_order_relaxed); };
  sigemptyset(&sa.sa_mask);
  sigaction(SIGUSR1, &sa, nullptr);
}

class IdleSleep {
 public:
  // Empty turns spun before the first sleep, and the first sleep (the kernel's timer slack adds
  // up to 50 us to any sleep anyway).
  static constexpr uint32_t kSpinTurns = 64;
  static constexpr uint64_t kFirstSleepNs = 20'000;
  // Time without work after which the cap is deep_ns.
  static constexpr uint64_t kDeepAfterNs = 2'000'000'000;

  explicit IdleSleep(uint64_t max_ns = 0, uint64_t deep_ns = 0)
      : max_ns_(max_ns), deep_ns_(std::max(deep_ns, max_ns)) {}
  bool enabled() const { return max_ns_ > 0; }
  uint64_t max_ns() const { return max_ns_; }
  uint64_t sleeps() const { return sleeps_; }
  // How long the last sleep asked for (the kernel may add to it).
  uint64_t last_sleep_ns() const { return last_sleep_ns_; }

  // The turn moved something: spin again.
  void worked() {
    empty_turns_ = 0;
    next_ns_ = kFirstSleepNs;
  }

  // The turn moved nothing. `now_ns` and `wake_ns` on one clock (UINT64_MAX: no known work).
  // Returns true if it slept.
  bool idle(uint64_t now_ns, uint64_t wake_ns, IntrGate* gate = nullptr, uint32_t poller = 0) {
    if (max_ns_ == 0) return false;
    if (empty_turns_ == 0) idle_since_ns_ = now_ns;  // a spell without work starts
    if (++empty_turns_ <= kSpinTurns) return false;
    const uint32_t epoch = idle_wake_epoch().load(std::memory_order_relaxed);
    if (epoch != seen_epoch_) {  // woken for a run: a fresh spell, at the max_ns cap
      seen_epoch_ = epoch;
      idle_since_ns_ = now_ns;
      next_ns_ = kFirstSleepNs;
    }
    const uint64_t cap = now_ns >= idle_since_ns_ + kDeepAfterNs ? deep_ns_ : max_ns_;
    uint64_t ns = std::min(next_ns_, cap);
    if (wake_ns != UINT64_MAX) {
      // Due work that the turn did not do: the device refused it. The shortest sleep, and the
      // backoff stays where it was.
      ns = wake_ns <= now_ns ? kFirstSleepNs : std::min(ns, wake_ns - now_ns);
    }
    if (wake_ns == UINT64_MAX || wake_ns > now_ns) next_ns_ = std::min(next_ns_ * 2, cap);
    last_sleep_ns_ = ns;
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
  uint64_t deep_ns_;
  uint64_t idle_since_ns_ = 0;
  uint32_t seen_epoch_ = idle_wake_epoch().load(std::memory_order_relaxed);
  uint32_t empty_turns_ = 0;
  uint64_t next_ns_ = kFirstSleepNs;
  uint64_t sleeps_ = 0;
  uint64_t last_sleep_ns_ = 0;
};

}  // namespace spraylab::net
