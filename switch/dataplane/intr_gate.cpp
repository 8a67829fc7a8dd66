#include "switch/dataplane/intr_gate.h"

#include <fmt/format.h>
#include <rte_alarm.h>
#include <rte_errno.h>
#include <rte_pause.h>

#include <chrono>
#include <stdexcept>
#include <thread>

namespace spraylab::dataplane {
namespace {

// After a turn the alarm fires again this late: long enough that EAL's alarm handler, which runs
// every alarm already due before returning, returns to epoll first, so the callbacks that were
// waiting run in between.
constexpr uint64_t kIntrTurnUs = 10;

}  // namespace

IntrGate::IntrGate(uint32_t pollers, uint64_t hold_us, std::function<void()> on_turn)
    : pollers_(pollers),
      hold_us_(hold_us),
      on_turn_(std::move(on_turn)),
      acks_(new Ack[pollers == 0 ? 1 : pollers]) {
  for (uint32_t p = 0; p < pollers_; ++p) acks_[p].value.store(kIdle);
}

IntrGate::~IntrGate() { stop(); }

void IntrGate::start() {
  if (started_) return;
  stopping_.store(false);
  arm();
  started_ = true;
}

void IntrGate::arm() {
  const int rc = rte_eal_alarm_set(kIntrTurnUs, &IntrGate::on_alarm, this);
  if (rc != 0) {
    throw std::runtime_error(
        fmt::format("cannot set the interrupt-thread gate's alarm: {}", rte_strerror(-rc)));
  }
}

void IntrGate::stop() {
  if (!started_) return;
  stopping_.store(true);
  // Waits for a running callback (it sees stopping_ within one hold) and removes a pending one.
  rte_eal_alarm_cancel(&IntrGate::on_alarm, this);
  // No callback runs or will run: hand the turn back in case the last one ended on its own.
  const uint64_t t = turn_.load();
  if (t & 1) turn_.store(t + 1);
  started_ = false;
}

void IntrGate::on_alarm(void* arg) { static_cast<IntrGate*>(arg)->run_pollers_turn(); }

// Runs on the interrupt thread: give the pollers their turn, keep the thread here for `hold`,
// then park the pollers and return so that the thread runs the callbacks that are due.
void IntrGate::run_pollers_turn() {
  uint64_t t = turn_.load(std::memory_order_relaxed);
  if (t & 1) turn_.store(++t, std::memory_order_release);  // everything due has run: pollers go
  if (stopping_.load()) return;
  std::this_thread::sleep_for(std::chrono::microseconds(hold_us_));
  if (stopping_.load()) return;
  turn_.store(++t, std::memory_order_seq_cst);  // odd: pollers park at their next checkpoint
  for (uint32_t spins = 0; !all_parked(t); ++spins) {
    if (stopping_.load()) {
      turn_.store(t + 1);
      return;
    }
    // A parked poller answers within a loop turn unless it is descheduled (CPUs are shared).
    if (spins < 4096) {
      rte_pause();
    } else {
      std::this_thread::yield();
    }
  }
  if (on_turn_) on_turn_();
  arm();
}

bool IntrGate::all_parked(uint64_t turn) const {
  for (uint32_t p = 0; p < pollers_; ++p) {
    const uint64_t v = acks_[p].value.load(std::memory_order_seq_cst);
    if (v != turn && v != kIdle) return false;
  }
  return true;
}

void IntrGate::enter(uint32_t poller) {
  // Announce first, then look (the interrupt thread does the reverse): one of the two sees the
  // other, so a poller never starts a burst during the interrupt thread's turn.
  acks_[poller].value.store(kRunning, std::memory_order_seq_cst);
  if (turn_.load(std::memory_order_seq_cst) & 1) park(poller);
}

void IntrGate::park(uint32_t poller) {
  const uint64_t t = turn_.load(std::memory_order_acquire);
  if (!(t & 1)) return;
  // Release: every burst this poller made happens before the interrupt thread's turn.
  acks_[poller].value.store(t, std::memory_order_release);
  while (turn_.load(std::memory_order_acquire) == t) rte_pause();
}

void IntrGate::leave(uint32_t poller) {
  acks_[poller].value.store(kIdle, std::memory_order_seq_cst);
}

}  // namespace spraylab::dataplane
