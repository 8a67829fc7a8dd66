// workload.injection bernoulli's arrival process (trafficgen/injection_mode.h names the modes;
// docs/workloads.md, "Injection").
#pragma once

#include <cstdint>

#include "trafficgen/injection_mode.h"
#include "trafficgen/rng.h"

namespace spraylab::gen {

// One host's Bernoulli arrival process over its packet slots 0, 1, 2, ...: slot k holds an
// arrival with probability `load`, independently, drawn from the host's own seed (one 64-bit draw
// per slot, compared with load x 2^64: integers only, the same on every machine). Slots are
// visited in order, lazily: advance_to() counts the arrivals of the slots before it, so the
// count depends on virtual time only, never on how often the engine polls. No allocation.
class BernoulliArrivals {
 public:
  BernoulliArrivals() : BernoulliArrivals(1.0, 0) {}
  // load in (0, 1]; 1 is an arrival in every slot (no draws).
  BernoulliArrivals(double load, uint64_t seed);

  // Counts the arrivals of every slot before `slot` (a slot already passed is not visited again).
  void advance_to(uint64_t slot) {
    while (next_ < slot) {
      ++arrivals_;
      next_ = draw_from(next_ + 1);
    }
  }
  // Arrivals in the slots advance_to() has passed.
  uint64_t arrivals() const { return arrivals_; }
  // The slot of the next arrival not yet counted.
  uint64_t next_arrival() const { return next_; }

 private:
  // The first slot >= `slot` that holds an arrival.
  uint64_t draw_from(uint64_t slot) {
    if (every_slot_) return slot;
    while (rng_.next() >= threshold_) ++slot;
    return slot;
  }

  Rng rng_;
  uint64_t threshold_ = 0;  // an arrival when next() < threshold_
  bool every_slot_ = true;
  uint64_t next_ = 0;
  uint64_t arrivals_ = 0;
};

}  // namespace spraylab::gen
