// Path entropy: the UDP source port a host puts on each packet. Switches ECMP-hash it, so choosing
// it chooses a path (ALGORITHMS.md, "Host-based (generator) baselines"):
//   flow   — one fixed value per flow: ECMP.
//   packet — a fresh random value per packet: host-based random packet spraying.
//   reps   — REPS, recycled entropy packet spraying: reuse the values whose ACKs came back
//            without an ECN echo (their paths were not congested), explore when there are none.
// One object per flow (connection). Time is an argument in ns: no clocks inside, so the same code
// runs on the TSC and in virtual time, and tests can step time by hand.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "trafficgen/entropy_mode.h"
#include "trafficgen/rng.h"

namespace spraylab::gen {

// Entropy values are drawn from the IANA ephemeral port range, 49152..65535 (14 bits of entropy).
inline constexpr uint16_t kEntropyMin = 0xC000;
uint16_t random_entropy(Rng& rng);

// A per-flow seed from the experiment seed and the flow's endpoints, so flows differ but a run
// is reproducible.
uint64_t flow_seed(uint64_t seed, uint32_t src, uint32_t dst);

class RepsEntropy {
 public:
  static constexpr uint32_t kRingSize = 8;           // entropies kept per connection
  static constexpr uint64_t kFreezeNs = 10'000'000;  // freezing lasts 10 ms
  static constexpr uint32_t kExplorePackets = 16;    // random packets after freezing

  explicit RepsEntropy(uint64_t seed) : rng_(seed) {}

  // The entropy for the next data packet at time now_ns.
  uint16_t next(uint64_t now_ns);
  // An ACK echoing `entropy` arrived; without an ECN echo its path is good and the value is kept
  // (overwriting the oldest kept value once kRingSize are kept). Ignored while frozen.
  void on_ack(uint16_t entropy, bool ecn_echo, uint64_t now_ns);
  // A retransmission timeout: paths may have failed. Freeze for kFreezeNs from now (a timeout
  // while frozen restarts the freeze): send only on the cached values, cycling through them, since
  // a random value may hit the failure again.
  void on_timeout(uint64_t now_ns);

  bool frozen(uint64_t now_ns) const { return freezing_ && now_ns < frozen_until_; }
  uint32_t cached() const { return stored_; }  // values in the ring, used or not
  uint32_t unused() const;                     // values next() may still recycle
  uint32_t exploring() const { return explore_left_; }

 private:
  // On the first event at or after the end of a freeze: forget the cache and explore.
  void thaw_if_due(uint64_t now_ns);
  uint32_t oldest() const { return (head_ + kRingSize - stored_) % kRingSize; }

  Rng rng_;
  std::array<uint16_t, kRingSize> value_{};
  std::array<bool, kRingSize> fresh_{};  // kept and not yet reused
  uint32_t head_ = 0;                    // where the next kept value goes
  uint32_t stored_ = 0;
  bool freezing_ = false;
  uint64_t frozen_until_ = 0;
  uint32_t cycle_ = 0;  // freezing: next cached value, counted from the oldest
  uint32_t explore_left_ = 0;
};

// The entropy source of one flow, whatever the mode. Branches instead of virtual calls: one
// predictable branch per packet on the data path.
class PathEntropy {
 public:
  PathEntropy(EntropyMode mode, uint64_t seed);

  // Inline for the fixed value, which ECMP runs send with on every packet.
  uint16_t next(uint64_t now_ns) {
    return mode_ == EntropyMode::kFlow ? fixed_ : next_varying(now_ns);
  }
  void on_ack(uint16_t entropy, bool ecn_echo, uint64_t now_ns);
  void on_timeout(uint64_t now_ns);
  EntropyMode mode() const { return mode_; }

 private:
  uint16_t next_varying(uint64_t now_ns);  // packet and reps

  EntropyMode mode_;
  Rng rng_;
  uint16_t fixed_;
  RepsEntropy reps_;
};

}  // namespace spraylab::gen
