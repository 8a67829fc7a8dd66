#include "switch/lb/rcu.h"

#include <thread>

namespace spraylab::lb {

QsbrDomain::QsbrDomain(uint32_t readers) : slots_(readers) {}

bool QsbrDomain::passed(uint64_t token) const {
  for (const Slot& s : slots_) {
    if (s.epoch.load(std::memory_order_acquire) < token) return false;  // kOffline passes
  }
  return true;
}

void yield_now() { std::this_thread::yield(); }

}  // namespace spraylab::lb
