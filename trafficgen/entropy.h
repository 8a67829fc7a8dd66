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
//   oblivious, bitmap, mixed — the UEC reference's selectors (uec_mp.cpp): a per-flow
//            XOR-permuted cycle over the flow's values; the same skipping values penalised by
//            ECN, NACKs and timeouts; REPS-style recycling of good values in front of bitmap.
// Each varying selector is its own class in trafficgen/entropy/; this file holds the per-flow
// front that picks one.
// One object per flow (connection). Feedback carries its time in ns: no clocks inside, so the same
// code runs on the TSC and in virtual time, and tests can step time by hand.
#pragma once

#include <cstdint>
#include <variant>

#include "trafficgen/entropy/bitmap.h"
#include "trafficgen/entropy/mixed.h"
#include "trafficgen/entropy/oblivious.h"
#include "trafficgen/entropy/reps.h"
#include "trafficgen/entropy/value.h"
#include "trafficgen/entropy_mode.h"
#include "trafficgen/rng.h"

namespace spraylab::gen {

// A per-flow seed from the experiment seed and the flow's endpoints, so flows differ but a run
// is reproducible.
uint64_t flow_seed(uint64_t seed, uint32_t src, uint32_t dst);

// The entropy source of one flow, whatever the mode. Branches instead of virtual calls: one
// predictable branch per packet on the data path.
class PathEntropy {
 public:
  PathEntropy(EntropyMode mode, uint64_t seed, const EntropyParams& params = {});

  // Inline for the fixed value, which ECMP runs send with on every packet.
  uint16_t next() { return mode_ == EntropyMode::kFlow ? fixed_ : next_varying(); }
  // An ACK echoing `entropy` came back at now_ns, with or without an ECN echo.
  void on_ack(uint16_t entropy, bool ecn_echo, uint64_t now_ns);
  // A NACK for the packet sent with `entropy` came back at now_ns: a switch trimmed it on its way.
  // The reference (uec.cpp processNack) reports a NACK whose packet was trimmed at its last hop
  // (the receiver's downlink, not the path) as it reports an ACK, GOOD or ECN by the NACK's echo:
  // for that case call on_ack instead.
  void on_nack(uint16_t entropy, uint64_t now_ns);
  // The flow's retransmission timer fired at now_ns (uec.cpp rtxTimerExpired: no entropy known).
  void on_timeout(uint64_t now_ns);
  EntropyMode mode() const { return mode_; }

 private:
  uint16_t next_varying();  // every mode but flow

  EntropyMode mode_;
  uint32_t range_;
  Rng rng_;
  uint16_t fixed_;
  // The state of the one selector the mode uses, built (and its buffers allocated) here.
  std::variant<std::monostate, RepsEntropy, ObliviousEntropy, BitmapEntropy, MixedEntropy>
      selector_;
  uint32_t rotation_ = 0;  // drb: the next value, in [0, range_)
};

}  // namespace spraylab::gen
