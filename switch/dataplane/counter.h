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

}  // namespace spraylab::dataplane
