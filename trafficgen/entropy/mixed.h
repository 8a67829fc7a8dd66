// The mixed selector, the UEC fork of htsim's default (uec_mp.cpp UecMpMixed, main_uec.cpp
// load_balancing_algo = MIXED): REPS's recycling in its first ("legacy", UecMpRepsLegacy) form in
// front of the bitmap selector (bitmap.h).
//   - Every feedback goes to the bitmap (ECN, NACK and timeout penalties) and to the recycler.
//   - An ACK without an ECN echo queues its entropy for reuse; nothing else does.
//   - next(): the oldest queued entropy, each once, if any; else the bitmap's next EV.
// Unlike `reps`, no ring of fixed size, no freezing and no exploration: every good ACK buys one
// reuse, in arrival order.
#pragma once

#include <cstdint>
#include <vector>

#include "trafficgen/entropy/bitmap.h"

namespace spraylab::gen {

class MixedEntropy {
 public:
  // The reference's queue (a std::list) is unbounded. Its length is at most the packets in flight
  // when their ACKs come back (every send takes one, every ACK adds at most one), so a fixed ring
  // of this many entries, allocated at construction, holds it for windows up to 2 MiB of 4 KiB
  // packets; a longer queue drops its oldest entry (docs/algorithms.md, "Host side: UEC
  // selectors").
  static constexpr uint32_t kRecycleCapacity = 512;

  MixedEntropy(uint64_t seed, const EntropyParams& params);

  uint16_t next();
  void on_ack(uint16_t entropy, bool ecn_echo);
  void on_nack(uint16_t entropy) { bitmap_.on_nack(entropy); }
  void on_timeout() { bitmap_.on_timeout(); }

  uint32_t queued() const { return queued_; }
  uint64_t dropped() const { return dropped_; }
  const BitmapEntropy& bitmap() const { return bitmap_; }

 private:
  BitmapEntropy bitmap_;
  std::vector<uint16_t> recycle_;  // a FIFO ring of kRecycleCapacity entries
  uint32_t front_ = 0;             // the oldest queued entropy
  uint32_t queued_ = 0;
  uint64_t dropped_ = 0;  // entries the full ring overwrote
};

}  // namespace spraylab::gen
