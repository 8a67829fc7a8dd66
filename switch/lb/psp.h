// PSP, probabilistic state-proportional selection (PSP §III): each candidate's queue is mapped to
// a band with thresholds Th/n, 2Th/n, …, Th (band = min(n, floor(q·n/Th) + 1)); band b has weight
// n − b + 1 (the paper's (n − b + 1)/Sum, the 1/Sum cancels); a port is drawn with probability
// proportional to its weight (PSP §III-A, stage 3). The hardware draws one number against prefix
// sums; in software the same distribution comes cheaper from weight classes: draw a class with
// probability weight × members, then a member uniformly — O(n) per packet instead of O(w), and a
// chosen port changes class in O(1). For up to 64 candidates in up to 8 classes the draw's result
// for every number is kept as a table (issue 18): one load per packet, the table built with the
// classes per loaded set and shifted in place when a port changes class. Bands come from compares
// with the band edges as depths (BandEdges), not a division.
// (choice) A queue at or beyond Th weighs `saturated_weight` (default 1, the paper's last band;
// 0 excludes the port). If every candidate weighs 0 the choice is uniform.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "switch/lb/balancer.h"
#include "switch/lb/band_thresholds.h"
#include "switch/lb/burst_queues.h"
#include "switch/lb/candidate_depths.h"

namespace spraylab::lb {

// The weight of a queue whose band floor is f = floor(q·n/Th) capped at n: n − f below Th,
// `saturated` at or beyond it.
inline uint32_t psp_weight_of_floor(uint32_t f, uint32_t n, uint32_t saturated) {
  return f < n ? n - f : saturated;
}

// The weight of a queue of depth q.
inline uint32_t psp_weight(uint64_t q, uint32_t n, uint64_t th, uint32_t saturated) {
  return psp_weight_of_floor(band_floor(q, n, th), n, saturated);
}

class Psp final : public Balancer {
 public:
  // `threshold`: Th per port (band_thresholds.h).
  Psp(uint32_t bands, BandThresholds threshold, uint32_t saturated_weight, BurstQueues queues)
      : n_(bands),
        threshold_(std::move(threshold)),
        saturated_(saturated_weight),
        queues_(std::move(queues)),
        top_(bands > saturated_weight ? bands : saturated_weight),
        count_(top_ + 1, 0),
        members_(static_cast<size_t>(top_ + 1) * kMaxCandidates + 32),
        reciprocal_(top_ + 1, 0) {
    for (uint32_t w = 1; w <= top_; ++w) reciprocal_[w] = (1ull << 32) / w + 1;
  }
  // Classes beyond this many draw by a loop over the classes instead of one vector compare.
  static constexpr uint32_t kFastClasses = 8;
  void choose(std::span<const Packet> burst, const BurstContext& ctx, PortId* out) override;

 private:
  // Candidate i's weight from its depth (inline: called per chosen packet).
  uint32_t weight(uint32_t i) const {
    return psp_weight(set_.depth[i], n_, static_cast<uint64_t>(th_[i]), saturated_);
  }
  uint32_t weight_of_floor(uint32_t f) const { return psp_weight_of_floor(f, n_, saturated_); }
  void classify();                  // every candidate into its weight class
  void keep_classes(bool classes);  // kept_ from classify()'s result (see KeptClasses)
  void restore_classes();           // classify()'s result from kept_
  static bool same_depths(const uint32_t* a, const uint32_t* b, uint32_t w);
  void spans();           // lo_ from count_
  void weigh();           // weight_ and limit_ (or next_) from depths and th_
  void weigh_by_edges();  // weigh() with edges_
  void build_slots();     // slot_ from the classes (slotted_)
  // slot_ after a move to a lighter class (see psp.cpp).
  void shift_slots(uint32_t old_start, uint32_t old, uint32_t at, uint32_t last, uint32_t w_end,
                   uint32_t w, uint32_t i, uint32_t total);
  // q·n at or beyond this moves candidate i out of its band (+inf: it cannot change weight).
  double limit(uint32_t i) const {
    const uint32_t w = weight_[i];
    if (w == 0 || w == saturated_) return HUGE_VAL;  // choose() never re-weighs these
    return static_cast<double>(n_ - w + 1) * th_[i];
  }
  // next_[i] for candidate i with floor f (weight_[i] set): e_{f+1} where limit() is finite.
  uint32_t next_edge(uint32_t i, uint32_t f) const {
    const uint32_t w = weight_[i];
    return w == 0 || w == saturated_ ? UINT32_MAX : edges_.next(f, i);
  }
  [[gnu::always_inline]] inline void move(uint32_t i, uint32_t weight);  // i changes class
  [[gnu::always_inline]] inline void reweigh(uint32_t c);
  // choose()'s loop for a run of packets sharing a set with edges, drawing by slot_ (kSlotted) or
  // by draw().
  template <bool kSlotted>
  size_t choose_run(std::span<const Packet> burst, size_t i, PortId* out, Rng& rng);
  // Candidate index ∝ weight, from r uniform in [0, total_).
  [[gnu::always_inline]] inline uint32_t draw(uint32_t r) const;
  uint16_t* members(uint32_t weight) {
    return &members_[static_cast<size_t>(weight) * kMaxCandidates];
  }
  const uint16_t* members(uint32_t weight) const {
    return &members_[static_cast<size_t>(weight) * kMaxCandidates];
  }

  uint32_t n_;
  BandThresholds threshold_;
  uint32_t saturated_;
  BurstQueues queues_;
  CandidateDepths set_;
  alignas(64) uint32_t weight_[kMaxCandidates];
  alignas(64) double th_[kMaxCandidates];     // Th of each candidate's port, as loaded
  alignas(64) double limit_[kMaxCandidates];  // limit(i), kept with weight_ (without edges_)
  // With edges_: the depth at which candidate i is weighed again, e_{f+1} where limit() is finite,
  // else UINT32_MAX; kept with weight_.
  alignas(64) uint32_t next_[kMaxCandidates];
  BandEdges edges_;  // edges 1..n of th_
  SetPorts th_of_;   // the ports th_ was loaded for
  // Draw order is class top_, top_ − 1, …, 1: lo_[k] is where the k-th of them starts in
  // [0, total_), lo_[k] = total_ for k ≥ top_ (up to kFastClasses).
  alignas(32) uint32_t lo_[kFastClasses + 1] = {};
  uint32_t top_;                   // the largest weight: n, or saturated_weight if larger
  uint32_t total_ = 0;             // Σ weight × members
  std::vector<uint32_t> count_;    // members per weight 0..n
  std::vector<uint16_t> members_;  // candidate indices per weight class
  // Where each candidate is in its class's members, kept by classify() and move(): a move (every
  // other packet on short queues) found it by a vector search, whose load of members just
  // written by the last move's scalar stores waited for them (no store forwarding).
  alignas(64) uint16_t pos_[kMaxCandidates];
  std::vector<uint64_t> reciprocal_;  // ⌊2^32 / w⌋ + 1: division by a weight as a multiply
  // draw(r) for every r < total_ as a table, for a set of at most 64 candidates in at most
  // kFastClasses classes: one load per packet instead of finding the class. Built with the
  // classes (a few vector permutes per class) and kept by every class move (shift_slots), so it
  // holds while they do. The margin past the last span: shift_slots reads up to 64 + 8 bytes
  // beyond what it writes.
  bool slotted_ = false;
  alignas(64) uint8_t slot_[kFastClasses * 64 + 128];

  // classify()'s result for one set of depths, for a set of at most 64 candidates with edges and
  // at most kFastClasses classes: a burst whose set starts at the depths the last classify() was
  // given (on queues that drain between bursts every burst starts with them all empty: the
  // switch's null case) restores it with a few vector copies instead of weighing, classifying
  // and building the table again. Kept only once two classify() calls in a row were given the
  // same depths, so that bursts whose depths change pay one compare and one copy of the depths.
  // Dropped when th_ is loaded again (its ports changed).
  struct KeptClasses {
    bool depths = false;   // `depth` holds the last classify()'s depths (of th_'s ports)
    bool classes = false;  // and the rest holds what it gave for them
    uint32_t total = 0;
    bool slotted = false;
    alignas(64) uint32_t depth[64];
    alignas(64) uint32_t weight[64];
    alignas(64) uint32_t next[64];
    alignas(64) uint16_t pos[64];
    alignas(64) uint16_t members[kFastClasses + 1][64];
    uint32_t count[kFastClasses + 1];
    uint32_t lo[kFastClasses + 1];
    alignas(64) uint8_t slot[kFastClasses * 64];
  };
  KeptClasses kept_;
};

}  // namespace spraylab::lb
