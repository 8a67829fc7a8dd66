#include "fabric/run/stop_request.h"

#include <atomic>

namespace spraylab::fabric {
namespace {

std::atomic<bool> g_stop{false};
std::atomic<int> g_signal{0};
static_assert(std::atomic<bool>::is_always_lock_free, "request_stop() runs in a signal handler");
static_assert(std::atomic<int>::is_always_lock_free, "request_stop() runs in a signal handler");

}  // namespace

void request_stop(int signal) {
  if (signal != 0) g_signal.store(signal, std::memory_order_relaxed);
  g_stop.store(true, std::memory_order_relaxed);
}
bool stop_requested() { return g_stop.load(std::memory_order_relaxed); }
int stop_signal() { return g_signal.load(std::memory_order_relaxed); }

void catch_unless_ignored(int signal, const struct sigaction& sa, struct sigaction& old) {
  sigaction(signal, nullptr, &old);
  if (old.sa_handler != SIG_IGN) sigaction(signal, &sa, nullptr);
}

}  // namespace spraylab::fabric
