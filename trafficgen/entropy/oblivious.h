// Oblivious spraying as the UEC fork of htsim has it (uec_mp.cpp UecMpOblivious): each connection
// owns `range` entropy values (EVs), range a power of two, and sends one packet on each of them per
// cycle, in the order index ^ x for index = 0, 1, ..., range - 1, where x is drawn afresh at every
// wrap. XOR with a constant permutes [0, range), so every cycle visits every EV once, and flows
// (and cycles) differ in order without any shared state. The bits above the mask are random per
// connection and never change: different connections hash to different path sets at ECMP
// switches although their low bits cycle alike. Feedback is ignored.
//
// The bitmap selector (bitmap.h) walks the same cycle, so the steps are public: peek() the index
// next() would send, advance() past it, port() of an index.
#pragma once

#include <cstdint>

#include "trafficgen/entropy/value.h"

namespace spraylab::gen {

class ObliviousEntropy {
 public:
  // Throws std::invalid_argument unless params.range is a power of two in [1, kMaxEntropyRange]
  // (the reference masks an EV with range - 1).
  ObliviousEntropy(uint64_t seed, const EntropyParams& params);

  uint16_t next() {
    const uint16_t index = peek();
    advance();
    return port(index);
  }

  uint16_t peek() const { return static_cast<uint16_t>((position_ ^ xor_) & mask_); }
  // To the next position of the cycle; a wrap draws a new XOR (uec_mp.cpp: rand() & mask).
  void advance() {
    if (++position_ == mask_ + 1) {
      position_ = 0;
      xor_ = static_cast<uint16_t>(rng_.below(mask_ + 1));
    }
  }
  // The UDP source port of EV `index`: the connection's upper bits above the mask.
  uint16_t port(uint16_t index) const {
    return static_cast<uint16_t>(kEntropyMin | upper_ | index);
  }
  // The EV index an echoed port names (kEntropyMin's low 14 bits are zero).
  uint16_t index_of(uint16_t entropy) const { return static_cast<uint16_t>(entropy & mask_); }

  uint32_t range() const { return mask_ + 1u; }
  uint16_t upper_bits() const { return upper_; }

 private:
  Rng rng_;
  uint16_t mask_;
  uint16_t upper_;         // _path_random with the mask's bits cleared, within 14 bits
  uint16_t xor_;           // _path_xor: this cycle's permutation
  uint16_t position_ = 0;  // _current_ev_index: packets sent in this cycle
};

}  // namespace spraylab::gen
