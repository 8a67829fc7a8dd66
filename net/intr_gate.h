// Turns between the polling lcores and DPDK's interrupt thread, so that a memif peer that dies
// (or comes back) never changes a link under a burst.
//
// Why (DPDK 22.11 drivers/net/memif): a memif link's connect and disconnect run on EAL's interrupt
// thread ("eal-intr-thread"), in the control channel's callback. memif_disconnect() clears the
// CONNECTED flag and, microseconds later, munmap()s the shared regions and frees their
// descriptors; eth_memif_rx/tx test the flag once, at the top of the burst, then read the rings
// and buffers. A burst that passed the test when the peer is killed reads unmapped memory: the
// poller dies of SIGSEGV (reproduced: spraylab-switch crashed within 5-25 kills of its peer at full
// rate). The PMD offers no hook before the unmap (no LSC event, no lock we can take), and watching
// the link from another thread is always too late. What we control is when the interrupt thread
// runs callbacks at all: it runs them one at a time, so while it is inside a callback of ours it
// runs no memif callback.
//
// How: an interrupt source of our own (an eventfd registered with EAL, always ready while armed)
// keeps the interrupt thread in our callback ("pollers' turn") for `hold`. Then the callback asks
// the pollers to park, waits until each has acknowledged from a point between bursts, runs
// `on_turn` (memif_redial.h: redial a client port), signals its eventfd again and returns: the
// interrupt thread runs whatever is ready (a dead peer's hang-up, a new peer's handshake, an
// alarm) while no poller is in a burst, and comes straight back to our callback, which gives the
// pollers their turn back. So a poller is never inside a burst while a PMD callback runs, and the
// data path takes no lock: a poller reads one shared word per loop turn (checkpoint()) and writes
// its own word only when asked to park.
// Cost: one park every `hold` (10 ms), lasting one pass of the interrupt thread through what is
// ready; a link change is seen up to `hold` late. On a CPU shared between a busy poller and the
// interrupt thread a park can last a scheduler slice (docs/BENCHMARKS.md, the peer-death gate).
// The code also has a gate that parks only when a callback is due (hold_until_due watches EAL's
// own epoll set, found as the one that holds our eventfd); it is off (kWaitOnEalEpoll in
// intr_gate.cpp) because with it a memif client's redial after its server restarted never
// completed (peer-kill's generator case).
#pragma once

#include <rte_branch_prediction.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>

struct rte_intr_handle;

namespace spraylab::net {

class IntrGate {
 public:
  // `pollers`: how many lcores poll ports (each calls enter/checkpoint/leave with its index).
  // `on_turn`, if set, runs on the interrupt thread during its turns (pollers parked), e.g. to
  // restart a memif client port whose server went away (memif_redial.h); `wants_turn`, checked
  // on the interrupt thread every `hold` while the pollers run, asks for such a turn when nothing
  // else is due (unset: `on_turn` runs only on the turns that events bring).
  static constexpr uint64_t kDefaultHoldUs = 10'000;
  explicit IntrGate(uint32_t pollers, uint64_t hold_us = kDefaultHoldUs,
                    std::function<void()> on_turn = {}, std::function<bool()> wants_turn = {});
  ~IntrGate();
  IntrGate(const IntrGate&) = delete;
  IntrGate& operator=(const IntrGate&) = delete;

  // Registers the gate's event with EAL: from here the interrupt thread runs only in turns.
  // Throws on failure.
  void start();
  // Gives the interrupt thread back for good (before ports are stopped and EAL cleaned up). Call
  // it after every poller has left.
  void stop();

  // --- pollers (between bursts, never inside one) ---
  // The poller starts polling: it parks first if the interrupt thread has its turn.
  void enter(uint32_t poller);
  // Parks while the interrupt thread has its turn. One relaxed-cost load when it has not.
  void checkpoint(uint32_t poller) {
    if (unlikely(turn_.load(std::memory_order_acquire) & 1)) park(poller);
  }
  // The poller stops polling (it no longer needs to park).
  void leave(uint32_t poller);

  // Turns the interrupt thread has had (tests, diagnostics).
  uint64_t intr_turns() const { return turn_.load(std::memory_order_relaxed) / 2; }

 private:
  // Per poller: kRunning, kIdle, or the odd turn number it parked for. One cache line each.
  struct alignas(64) Ack {
    std::atomic<uint64_t> value;
  };
  static constexpr uint64_t kRunning = 0;
  static constexpr uint64_t kIdle = UINT64_MAX;

  static void on_event(void* arg);
  void run_pollers_turn();
  // Keeps the interrupt thread here, pollers running, until a callback is due, `wants_turn`
  // says so, or the gate stops.
  void hold_until_due();
  // EAL's epoll set (the interrupt thread's, holding event_fd_), or -1.
  int find_eal_epoll() const;
  bool all_parked(uint64_t turn) const;
  void park(uint32_t poller);
  void arm();

  uint32_t pollers_;
  uint64_t hold_us_;
  std::function<void()> on_turn_;
  std::function<bool()> wants_turn_;
  std::unique_ptr<Ack[]> acks_;
  // Even: the pollers' turn; odd: the interrupt thread's (pollers park). Written only by the
  // interrupt thread, in on_event.
  alignas(64) std::atomic<uint64_t> turn_{0};
  std::atomic<bool> stopping_{false};
  bool started_ = false;
  int event_fd_ = -1;                  // always ready while armed: brings the thread back
  rte_intr_handle* handle_ = nullptr;  // the event as an EAL interrupt source
};

}  // namespace spraylab::net
