// rte_intr_instance_alloc/free and rte_intr_callback_unregister_sync are experimental in 22.11
// (stable since 23.x); there is no other way to give EAL an interrupt source of our own.
#define ALLOW_EXPERIMENTAL_API 1
#include "net/intr_gate.h"

#include <fmt/format.h>
#include <rte_errno.h>
#include <rte_interrupts.h>
#include <rte_pause.h>
#include <dirent.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string_view>
#include <thread>

namespace spraylab::net {

IntrGate::IntrGate(uint32_t pollers, uint64_t hold_us, std::function<void()> on_turn,
                   std::function<bool()> wants_turn)
    : pollers_(pollers),
      hold_us_(hold_us),
      on_turn_(std::move(on_turn)),
      wants_turn_(std::move(wants_turn)),
      acks_(new Ack[pollers == 0 ? 1 : pollers]) {
  for (uint32_t p = 0; p < pollers_; ++p) acks_[p].value.store(kIdle);
}

IntrGate::~IntrGate() {
  stop();
  if (handle_) rte_intr_instance_free(handle_);
  if (event_fd_ >= 0) close(event_fd_);
}

void IntrGate::start() {
  if (started_) return;
  if (handle_ == nullptr) {
    event_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    handle_ = rte_intr_instance_alloc(RTE_INTR_INSTANCE_F_PRIVATE);
    if (event_fd_ < 0 || handle_ == nullptr || rte_intr_fd_set(handle_, event_fd_) != 0 ||
        rte_intr_type_set(handle_, RTE_INTR_HANDLE_EXT) != 0) {
      throw std::runtime_error("cannot create the interrupt-thread gate's event");
    }
  }
  stopping_.store(false);
  const int rc = rte_intr_callback_register(handle_, &IntrGate::on_event, this);
  if (rc != 0) {
    throw std::runtime_error(
        fmt::format("cannot register the interrupt-thread gate: {}", rte_strerror(-rc)));
  }
  started_ = true;
  arm();
}

// The event is ready at once: the interrupt thread comes back to on_event as soon as it has run
// what else was ready in its epoll, without sleeping. (A timer would put it to sleep, and waking
// it on a CPU that a busy poller holds can take a scheduler slice, all spent with pollers parked.)
void IntrGate::arm() {
  const uint64_t one = 1;
  [[maybe_unused]] const ssize_t n = write(event_fd_, &one, sizeof one);
}

void IntrGate::stop() {
  if (!started_) return;
  stopping_.store(true);
  // Waits for a running callback (it sees stopping_ within one hold).
  rte_intr_callback_unregister_sync(handle_, &IntrGate::on_event, this);
  // No callback runs or will run: hand the turn back in case the last one ended parked.
  const uint64_t t = turn_.load();
  if (t & 1) turn_.store(t + 1);
  started_ = false;
}

void IntrGate::on_event(void* arg) {
  auto* gate = static_cast<IntrGate*>(arg);
  uint64_t count;
  [[maybe_unused]] const ssize_t n = read(gate->event_fd_, &count, sizeof count);
  gate->run_pollers_turn();
}

// The epoll set EAL's interrupt thread waits on is private to EAL, and rebuilt whenever a source
// is added or removed; it is the one whose fdinfo lists our eventfd as a target ("tfd: N").
int IntrGate::find_eal_epoll() const {
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) return -1;
  int found = -1;
  char link[64], path[64], line[256];
  while (const dirent* e = readdir(dir)) {
    const int fd = std::atoi(e->d_name);
    if (e->d_name[0] < '0' || e->d_name[0] > '9' || fd == dirfd(dir)) continue;
    std::snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    const ssize_t n = readlink(path, link, sizeof link - 1);
    if (n <= 0 || std::string_view(link, static_cast<size_t>(n)) != "anon_inode:[eventpoll]")
      continue;
    std::snprintf(path, sizeof path, "/proc/self/fdinfo/%d", fd);
    FILE* f = std::fopen(path, "r");
    if (f == nullptr) continue;
    while (found < 0 && std::fgets(line, sizeof line, f)) {
      int target = -1;
      if (std::sscanf(line, "tfd: %d", &target) == 1 && target == event_fd_) found = fd;
    }
    std::fclose(f);
    if (found >= 0) break;
  }
  closedir(dir);
  return found;
}

// Waiting on EAL's epoll set (below) parks the pollers only when a callback is due, but with it
// a memif client's redial after its server restarts never completed at idle (peer-kill's
// generator case, every run); until that is understood the gate takes a turn every hold.
constexpr bool kWaitOnEalEpoll = false;

void IntrGate::hold_until_due() {
  const int epfd = kWaitOnEalEpoll ? find_eal_epoll() : -1;
  if (epfd < 0) {  // not found: a turn every hold, as a timer would give
    static std::atomic<bool> said{false};
    if (kWaitOnEalEpoll && !said.exchange(true)) {
      std::fprintf(stderr,
                   "IntrGate: EAL's interrupt epoll set not found; the pollers park every %lu us\n",
                   static_cast<unsigned long>(hold_us_));
    }
    std::this_thread::sleep_for(std::chrono::microseconds(hold_us_));
    return;
  }
  const int timeout_ms = static_cast<int>(std::max<uint64_t>(1, hold_us_ / 1000));
  while (!stopping_.load()) {
    // Our eventfd was read on entry, so the set is ready only if another source is: a callback
    // is due. (The set is EAL's: we only look, the interrupt thread takes the events.)
    pollfd p{epfd, POLLIN, 0};
    const int r = poll(&p, 1, timeout_ms);
    if (r > 0 || (r < 0 && errno != EINTR)) return;
    if (wants_turn_ && wants_turn_()) return;
  }
}

// Runs on the interrupt thread: give the pollers their turn, keep the thread here until a
// callback is due, then park the pollers and return so that the thread runs the callbacks.
void IntrGate::run_pollers_turn() {
  uint64_t t = turn_.load(std::memory_order_relaxed);
  if (t & 1) turn_.store(++t, std::memory_order_release);  // everything due has run: pollers go
  if (stopping_.load()) return;
  hold_until_due();
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

}  // namespace spraylab::net
