// REPS as the UEC fork of htsim implements it (uec_mp.cpp UecMpReps, buffer_reps.cpp; docs/
// algorithms.md lists what differs). One object per connection:
//   - ACK feedback: an ACK without an ECN echo keeps its entropy in a ring of `reps_buffer`
//     values, overwriting the oldest, also while frozen.
//   - next(): exploring (16 packets after a freeze): random. Frozen: cycle through the kept
//     values (random while none is kept). Else the oldest kept value not yet reused, each once;
//     random when none is left.
//   - timeout: freezes for kFreezeNs only when freezing is on, the connection is not frozen and
//     not exploring; a timeout while frozen does not extend the freeze.
//   - NACK (a trimmed packet): its path is neither kept nor blamed; like all feedback it may end
//     a freeze that is due.
//   - the first feedback (ACK, NACK or timeout) after the freeze's end thaws: the ring is
//     forgotten and the next 16 packets explore. Sending alone does not thaw (as in the reference).
#pragma once

#include <cstdint>
#include <vector>

#include "trafficgen/entropy/value.h"

namespace spraylab::gen {

class RepsEntropy {
 public:
  static constexpr uint64_t kFreezeNs = 10'000'000;  // buffer_reps.cpp: exit_freeze_after, 10 ms
  static constexpr uint32_t kExplorePackets = 16;    // uec_mp.cpp: explore_counter = 16

  RepsEntropy(uint64_t seed, const EntropyParams& params);

  // The entropy for the next data packet.
  uint16_t next();
  // An ACK echoing `entropy` arrived at now_ns; without an ECN echo its path is good.
  void on_ack(uint16_t entropy, bool ecn_echo, uint64_t now_ns);
  // A NACK for a packet trimmed on its way arrived at now_ns (uec_mp.cpp: PATH_NACK is only
  // checked for the freeze's end).
  void on_nack(uint64_t now_ns) { thaw_if_due(now_ns); }
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

}  // namespace spraylab::gen
