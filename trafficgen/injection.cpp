#include "trafficgen/injection.h"

namespace spraylab::gen {

BernoulliArrivals::BernoulliArrivals(double load, uint64_t seed)
    : rng_(seed), every_slot_(load >= 1.0) {
  // load x 2^64 (below 2^64 for load < 1): P(next() < threshold_) = load, to 2^-64.
  if (!every_slot_) threshold_ = static_cast<uint64_t>(load * 18446744073709551616.0);
  next_ = draw_from(0);
}

}  // namespace spraylab::gen
