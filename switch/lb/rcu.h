// Quiescent-state-based reclamation (QSBR, as in DPDK's rte_rcu_qsbr and liburcu): readers hold no
// reference across bursts, so each lcore reports a quiescent state after every burst, which costs
// one load and one store. A writer publishes a new immutable object with an atomic pointer swap and
// frees the old one once every online reader has reported a quiescent state after the swap.
// Readers never wait; the writer (the control plane) never blocks the data path.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <new>
#include <utility>
#include <vector>

namespace spraylab::lb {

class QsbrDomain {
 public:
  explicit QsbrDomain(uint32_t readers);

  // Reader side (the lcore owning slot `reader`). A reader starts online.
  void quiescent(uint32_t reader) {
    slots_[reader].epoch.store(epoch_.load(std::memory_order_acquire), std::memory_order_release);
  }
  // An idle lcore goes offline so that it does not hold reclamation back; it must come online
  // before its next burst.
  void offline(uint32_t reader) { slots_[reader].epoch.store(kOffline, std::memory_order_release); }
  void online(uint32_t reader) { quiescent(reader); }

  // Writer side. Starts a grace period; returns its token.
  uint64_t start() { return epoch_.fetch_add(1, std::memory_order_acq_rel) + 1; }
  // True once every online reader has reported a quiescent state at or after `token`.
  bool passed(uint64_t token) const;
  uint32_t readers() const { return static_cast<uint32_t>(slots_.size()); }

 private:
  static constexpr uint64_t kOffline = UINT64_MAX;
  struct alignas(64) Slot {
    std::atomic<uint64_t> epoch{0};
  };
  alignas(64) std::atomic<uint64_t> epoch_{0};
  std::vector<Slot> slots_;
};

// One RCU-protected object: readers load it, the writer replaces it. Old versions wait in a list
// until their grace period has passed; reclaim() frees them without blocking, synchronize() waits.
template <typename T>
class RcuCell {
 public:
  RcuCell(std::unique_ptr<T> first, uint32_t readers)
      : domain_(readers), current_(first.release()) {}
  ~RcuCell() { delete current_.load(std::memory_order_relaxed); }
  RcuCell(const RcuCell&) = delete;
  RcuCell& operator=(const RcuCell&) = delete;

  const T* read() const { return current_.load(std::memory_order_acquire); }
  QsbrDomain& domain() { return domain_; }

  // Control plane only (serialised by a mutex, never taken by readers).
  void publish(std::unique_ptr<T> next) {
    std::lock_guard<std::mutex> lock(mutex_);
    T* old = current_.exchange(next.release(), std::memory_order_acq_rel);
    retired_.push_back({std::unique_ptr<T>(old), domain_.start()});
    reclaim_locked();
  }
  // Frees every retired version whose grace period has passed; returns how many remain.
  size_t reclaim() {
    std::lock_guard<std::mutex> lock(mutex_);
    return reclaim_locked();
  }
  // Waits until every retired version is freed (every online reader has passed a quiescent point).
  void synchronize();

 private:
  struct Retired {
    std::unique_ptr<T> object;
    uint64_t token;
  };
  size_t reclaim_locked() {
    std::erase_if(retired_, [&](const Retired& r) { return domain_.passed(r.token); });
    return retired_.size();
  }

  QsbrDomain domain_;
  std::atomic<T*> current_;
  std::mutex mutex_;
  std::vector<Retired> retired_;
};

void yield_now();

template <typename T>
void RcuCell<T>::synchronize() {
  while (reclaim() != 0) yield_now();
}

}  // namespace spraylab::lb
