// The bitmap selector of the UEC fork of htsim (uec_mp.cpp UecMpBitmap): the oblivious cycle
// (oblivious.h) that skips EVs with a penalty. Feedback adds to the EV's penalty, capped at
// max_penalty:
//   ACK with an ECN echo  +ecn_penalty   (default 1)
//   NACK (a trimmed packet) +nack_penalty (default 4)
//   retransmission timeout  +max_penalty (default 15), on EV index 0: the reference's sender does
//                           not know which EV timed out and reports UNKNOWN_EV (= 0).
//   ACK without an echo     nothing (a penalty is never lowered by good news).
// next() takes the cycle's next EV; if it is penalised, that EV's penalty drops by one (the only
// decay: one per next() that meets a penalised EV first) and the cycle moves on, skipping
// penalised EVs without lowering theirs, to the first unpenalised one. When every EV is
// penalised it gives up after range + 1 steps and sends the penalised EV it stands on.
#pragma once

#include <cstdint>
#include <vector>

#include "trafficgen/entropy/oblivious.h"

namespace spraylab::gen {

class BitmapEntropy {
 public:
  // Throws std::invalid_argument unless params.range is a power of two in [1, kMaxEntropyRange].
  BitmapEntropy(uint64_t seed, const EntropyParams& params);

  uint16_t next();
  void on_ack(uint16_t entropy, bool ecn_echo) {
    if (ecn_echo) penalise(entropy, ecn_penalty_);
  }
  void on_nack(uint16_t entropy) { penalise(entropy, nack_penalty_); }
  void on_timeout() { penalise(kUnknownEv, max_penalty_); }

  uint8_t penalty(uint16_t entropy) const { return penalty_[cycle_.index_of(entropy)]; }
  const ObliviousEntropy& cycle() const { return cycle_; }

  static constexpr uint16_t kUnknownEv = 0;  // uec_mp.h: UecMultipath::UNKNOWN_EV

 private:
  void penalise(uint16_t entropy, uint32_t amount);

  ObliviousEntropy cycle_;
  std::vector<uint8_t> penalty_;  // _ev_skip_bitmap: one per EV index, sized at construction
  uint8_t ecn_penalty_;
  uint8_t nack_penalty_;
  uint8_t max_penalty_;
};

}  // namespace spraylab::gen
