// Top-k (PSP §II; ALGORITHMS.md, Baselines): the k candidates with the smallest (possibly stale)
// queues, k = w/2 by default; (choice) uniform among them. Ports tied with the k-th smallest depth
// are admitted at random, so every port of the tie is equally likely to be among the k. The r-th
// member is counted in candidate order (the distribution is the same for any order).
//
// Per loaded set (issue 18): the k-th smallest depth v, found by a bitwise search of counts, and
// two masks, the candidates below v and those at v; a choice that raises a depth moves one bit, and
// v is searched again only when fewer than k candidates remain at or below it, and a reloaded set
// first tries the v its last load found, then the last v. With a live view in packets (the
// default) every choice raises a depth by one, so the next v is always v + 1 (one masked compare).
#pragma once

#include <cstdint>

#include "switch/lb/balancer.h"
#include "switch/lb/burst_queues.h"
#include "switch/lb/candidate_depths.h"

namespace spraylab::lb {

class TopK final : public Balancer {
 public:
  // k = 0: w/2 (at least 1).
  TopK(uint32_t k, BurstQueues queues) : k_(k), queues_(std::move(queues)) {}
  void choose(std::span<const Packet> burst, const BurstContext& ctx, PortId* out) override;

 private:
  void find_kth();                      // v_, below_ and at_ from set_.depth
  void find_kth_in_regs();              // the same from regs_ (at most 64 candidates)
  void raised(uint32_t c, uint32_t d);  // candidate c's depth grew from d
  // The loop for a run of packets sharing a loaded set of at most 64 candidates; returns the first
  // packet after the run.
  size_t choose_in_word(std::span<const Packet> burst, size_t i, PortId* out, Rng& rng);
  // The same for a live view in packets, where every rise is by one.
  size_t choose_in_word_packets(std::span<const Packet> burst, size_t i, PortId* out, Rng& rng);
#if defined(SPRAYLAB_LB_AVX512)
  void sync(KeyRegs& regs, uint64_t risen) const;  // regs' lanes of `risen` from set_.depth
#endif

  uint32_t k_;
  uint32_t k_now_ = 1;  // k for the loaded set
  BurstQueues queues_;
  CandidateDepths set_;
  // The k-th smallest depth. It and found_ (v_ as the last load found it, before that burst's own
  // choices raised it) are the next loaded set's first guesses: queues change little from one
  // burst to the next, so a live view's reload usually finds one of them unchanged.
  uint32_t v_ = 0;
  uint32_t found_ = 0;
  CandidateMask below_;  // depth < v_
  CandidateMask at_;     // depth == v_
#if defined(SPRAYLAB_LB_AVX512)
  KeyRegs regs_;  // the depths of a set of at most 64 candidates loaded in this burst
  bool in_regs_ = false;
#endif
};

}  // namespace spraylab::lb
