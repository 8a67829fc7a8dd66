// A counter written by one lcore and read by others (the monitoring thread, the control socket).
// A relaxed load and store instead of an atomic add: one writer needs no locked instruction, and
// readers still see whole values (no torn reads, no data race in the C++ memory model).
#pragma once

#include <atomic>
#include <cstdint>

namespace spraylab::dataplane {

class Counter {
 public:
  void add(uint64_t n) {
    v_.store(v_.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }
  void inc() { add(1); }
  void set(uint64_t v) { v_.store(v, std::memory_order_relaxed); }
  uint64_t get() const { return v_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> v_{0};
};

// Reads, from another thread (the metrics, the control socket), a word of a worker's plain state
// that the worker writes with plain stores (PFC's pauses, the credits' sums): a relaxed atomic
// load, so the reader sees the whole word, old or new, and the writer pays nothing. Formally a data
// race; safe on the targets DPDK runs on (x86-64, arm64), where an aligned load of up to 8 bytes is
// single-copy atomic. (monitoring::racy_load is the same for the parts that may not include this
// one: docs/architecture.md's layers.)
template <typename T>
T racy_load(const T& v) {
  static_assert(std::atomic_ref<T>::is_always_lock_free);
  return std::atomic_ref<T>(const_cast<T&>(v)).load(std::memory_order_relaxed);
}

}  // namespace spraylab::dataplane
