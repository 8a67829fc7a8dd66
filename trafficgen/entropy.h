// Path entropy: the UDP source port a host puts on each packet. Switches ECMP-hash it, so choosing
// it chooses a path (ALGORITHMS.md, "Host-based (generator) baselines"):
//   flow   — one fixed value per flow: ECMP.
//   packet — a fresh random value per packet: host-based random packet spraying.
//   reps   — REPS, recycled entropy packet spraying: reuse the values whose ACKs came back
//            without an ECN echo (their paths were not congested), explore when there are none,
//            freeze on the kept values after a timeout.
//   drb    — DRB (Ofan §3.4), destination-based rotation at the host: each flow (one per source
//            host and destination) cycles through the entropy_range values from a random start,
//            one per data packet. Its ACKs echo the data packet's entropy, so they rotate too, on
//            their own pointer: the data and ACK size classes of DRB. Over ECMP switches with
//            `hash: digit` and entropy_range = the number of up-paths, each turn visits every
//            path once (docs/algorithms.md, "Host side: DRB").
// One object per flow (connection). Feedback carries its time in ns: no clocks inside, so the same
// code runs on the TSC and in virtual time, and tests can step time by hand.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trafficgen/entropy_mode.h"
#include "trafficgen/rng.h"

namespace spraylab::gen {

// Entropy values are drawn from the IANA ephemeral port range: kEntropyMin + [0, range), range at
// most kMaxEntropyRange (14 bits).
inline constexpr uint16_t kEntropyMin = 0xC000;
uint16_t random_entropy(Rng& rng, uint32_t range);

// A per-flow seed from the experiment seed and the flow's endpoints, so flows differ but a run
// is reproducible.
uint64_t flow_seed(uint64_t seed, uint32_t src, uint32_t dst);

// REPS as the UEC fork of htsim implements it (uec_mp.cpp UecMpReps, buffer_reps.cpp; docs/
// algorithms.md lists what differs). One object per connection:
//   - ACK feedback: an ACK without an ECN echo keeps its entropy in a ring of `reps_buffer`
//     values, overwriting the oldest, also while frozen.
//   - next(): exploring (16 packets after a freeze): random. Frozen: cycle through the kept
//     values (random while none is kept). Else the oldest kept value not yet reused, each once;
//     random when none is left.
//   - timeout: freezes for kFreezeNs only when freezing is on, the connection is not frozen and
//     not exploring; a timeout while frozen does not extend the freeze.
//   - the first feedback (ACK or timeout) after the freeze's end thaws: the ring is forgotten and
//     the next 16 packets explore. Sending alone does not thaw (as in the reference).
class RepsEntropy {
 public:
  static constexpr uint64_t kFreezeNs = 10'000'000;  // buffer_reps.cpp: exit_freeze_after, 10 ms
  static constexpr uint32_t kExplorePackets = 16;    // uec_mp.cpp: explore_counter = 16

  RepsEntropy(uint64_t seed, const EntropyParams& params);

  // The entropy for the next data packet.
  uint16_t next();
  // An ACK echoing `entropy` arrived at now_ns; without an ECN echo its path is good.
  void on_ack(uint16_t entropy, bool ecn_echo, uint64_t now_ns);
  // The connection's retransmission timer fired at now_ns: paths may have failed.
  void on_timeout(uint64_t now_ns);

  bool frozen() const { return frozen_; }
  uint32_t cached() const { return stored_; }  // values in the ring, used or not
  uint32_t unused() const;                     // values next() may still recycle
  uint32_t exploring() const { return explore_left_; }

 private:
  struct Slot {
    uint16_t value = 0;
    bool fresh = false;  // kept and not yet reused
  };
  void thaw_if_due(uint64_t now_ns);
  uint32_t oldest() const { return (head_ + size() - stored_) % size(); }
  uint32_t size() const { return static_cast<uint32_t>(ring_.size()); }

  Rng rng_;
  uint32_t range_;
  bool freezing_;
  std::vector<Slot> ring_;  // sized once, at construction
  uint32_t head_ = 0;       // where the next kept value goes
  uint32_t stored_ = 0;
  bool frozen_ = false;
  uint64_t frozen_until_ = 0;
  uint32_t cycle_ = 0;  // frozen: the next slot to send, in [0, stored_)
  uint32_t explore_left_ = 0;
};

// The entropy source of one flow, whatever the mode. Branches instead of virtual calls: one
// predictable branch per packet on the data path.
class PathEntropy {
 public:
  PathEntropy(EntropyMode mode, uint64_t seed, const EntropyParams& params = {});

  // Inline for the fixed value, which ECMP runs send with on every packet.
  uint16_t next() { return mode_ == EntropyMode::kFlow ? fixed_ : next_varying(); }
  void on_ack(uint16_t entropy, bool ecn_echo, uint64_t now_ns);
  void on_timeout(uint64_t now_ns);
  // A NACK: the packet sent with `entropy` was trimmed on its way (buffer.trim). No mode reacts
  // yet (UEC's bitmap and mixed selectors penalise the value).
  void on_nack(uint16_t, uint64_t) {}
  EntropyMode mode() const { return mode_; }

 private:
  uint16_t next_varying();  // packet and reps

  EntropyMode mode_;
  uint32_t range_;
  Rng rng_;
  uint16_t fixed_;
  RepsEntropy reps_;
  uint32_t rotation_ = 0;  // drb: the next value, in [0, range_)
};

}  // namespace spraylab::gen
