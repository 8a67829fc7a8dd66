#include "switch/lb/topk.h"

#include <bit>

namespace spraylab::lb {
namespace {

// The r-th set bit of m as a one-bit mask (r < popcount(m)): select_bit's deposit without the count
// of trailing zeros, which a mask update does not need.
inline uint64_t deposit_bit(uint64_t m, uint32_t r) {
#if defined(__BMI2__)
  return _pdep_u64(uint64_t{1} << r, m);
#else
  return uint64_t{1} << select_bit(m, r);
#endif
}

#if defined(SPRAYLAB_LB_AVX512)
// KeyRegs::less(x) of a set of at most 16 candidates: one compare of the first register, not four
// (a level change at w = 4 comes every few packets).
inline uint64_t less_narrow(const KeyRegs& regs, uint32_t x) {
  return _mm512_mask_cmplt_epu32_mask(static_cast<__mmask16>(regs.valid), regs.v[0],
                                      _mm512_set1_epi32(static_cast<int>(x)));
}
#endif

}  // namespace

// v = the largest x with fewer than k depths below x (that is, the k-th smallest depth), found bit
// by bit from the top: at most 32 rounds of vector compares, fewer for shallow queues.
void TopK::find_kth() {
  const uint32_t w = set_.w;
  // The last set's k-th depths first (found_, then v_): queues change little between bursts, so
  // one of them usually still is.
  for (const uint32_t guess : {found_, v_}) {
    below_.build<Cmp::kLess>(set_.depth, w, guess);
    at_.build<Cmp::kEqual>(set_.depth, w, guess);
    if (below_.count < k_now_ && below_.count + at_.count >= k_now_) {
      v_ = found_ = guess;
      return;
    }
  }
  uint32_t top = 0;
  for (uint32_t i = 0; i < w; ++i) top = set_.depth[i] > top ? set_.depth[i] : top;
  uint32_t x = 0;
  CandidateMask m;
  for (int b = std::bit_width(top); b >= 0; --b) {
    const uint64_t next = x | (uint64_t{1} << b);
    if (next > top) continue;  // v <= top
    m.build<Cmp::kLess>(set_.depth, w, static_cast<uint32_t>(next));
    if (m.count < k_now_) x = static_cast<uint32_t>(next);
  }
  v_ = found_ = x;
  below_.build<Cmp::kLess>(set_.depth, w, x);
  at_.build<Cmp::kEqual>(set_.depth, w, x);
}

#if defined(SPRAYLAB_LB_AVX512)
// find_kth's search with the depths in registers.
void TopK::find_kth_in_regs() {
  // The last set's k-th depths first (find_kth).
  for (const uint32_t guess : {found_, v_}) {
    below_.word[0] = regs_.less(guess);
    below_.count = static_cast<uint32_t>(std::popcount(below_.word[0]));
    at_.word[0] = regs_.equal(guess);
    at_.count = static_cast<uint32_t>(std::popcount(at_.word[0]));
    if (below_.count < k_now_ && below_.count + at_.count >= k_now_) {
      v_ = found_ = guess;
      return;
    }
  }
  const uint32_t top = regs_.max();
  uint32_t x = 0;
  for (int b = std::bit_width(top); b >= 0; --b) {
    const uint64_t next = x | (uint64_t{1} << b);
    if (next > top) continue;
    if (std::popcount(regs_.less(static_cast<uint32_t>(next))) < static_cast<int>(k_now_))
      x = static_cast<uint32_t>(next);
  }
  v_ = found_ = x;
  below_.word[0] = regs_.less(x);
  below_.count = static_cast<uint32_t>(std::popcount(below_.word[0]));
  at_.word[0] = regs_.equal(x);
  at_.count = static_cast<uint32_t>(std::popcount(at_.word[0]));
}
#endif

void TopK::raised(uint32_t c, uint32_t d) {
  const uint32_t now = set_.depth[c];
  if (d < v_) {
    below_.clear(c);
    if (now < v_) {
      below_.set(c);
    } else if (now == v_) {
      at_.set(c);
    }
  } else {  // d == v_: a chosen candidate is at or below v
    at_.clear(c);
  }
  if (below_.count + at_.count < k_now_) find_kth();
}

#if defined(SPRAYLAB_LB_AVX512)
// Writes the depths of the candidates in `risen` into regs: lane by lane for a few (a vector load
// of the depth array just written would wait for the stores to reach the cache), else one reload.
void TopK::sync(KeyRegs& regs, uint64_t risen) const {
  if (std::popcount(risen) > 8) {
    regs.load(set_.depth, set_.w);
    return;
  }
  for (; risen != 0; risen &= risen - 1) {
    const auto c = static_cast<uint32_t>(std::countr_zero(risen));
    regs.set(c, set_.depth[c]);
  }
}

// raised() and the draw with both masks in registers. When fewer than k remain at or below v after
// a rise, exactly k − 1 do (one left), so the new k-th smallest depth is the smallest above v, and
// every candidate at or below v is now below it: one masked minimum instead of find_kth's search.
// `regs` is not written per rise: the candidates that rose past v since regs was written (`over`)
// all sit at v + 1 while every rise crossed v by one (always in packets), and then the new v is
// v + 1 and its members are `over` plus regs' candidates at v + 1 that never rose; the depths are
// written into regs only before a real search.
size_t TopK::choose_in_word(std::span<const Packet> burst, size_t i, PortId* out, Rng& kept_rng) {
  Rng rng = kept_rng;
  // Locals (the keys too): through `this`, every depth store would make the compiler reload them.
  KeyRegs regs = regs_;
  uint64_t below = below_.word[0], at = at_.word[0];
  uint32_t nb = below_.count;  // |at| is a popcount where it is needed: one register fewer
  uint32_t v = v_;
  uint64_t risen = 0;  // candidates whose depth rose since regs was written
  uint64_t over = 0;   // the risen ones above v (the rest of them are at or below v)
  uint32_t past = 0;   // not 0: one of `over` is beyond v + 1
  const PortId* ports = set_.ports;
  const uint32_t w = set_.w;
  const uint32_t k = k_now_;
  const size_t start = i;
  // BurstQueues::grow from locals: fewer live values in the loop (choose_lowest_in_word).
  const bool live = !queues_.stale();
  const bool bytes = queues_.bytes();
  for (; i < burst.size(); ++i) {
    const Packet& p = burst[i];
    if (p.candidates != ports || p.num_candidates != w) break;
    const uint32_t r = rng.below(k);
    const uint32_t c = r < nb ? select_bit(below, r)
                              : select_bit(at, rng.below(static_cast<uint32_t>(std::popcount(at))));
    const PortId port = ports[c];
    out[i] = port;
    const uint32_t grew = !live || port == kNoPort ? 0 : bytes ? p.bytes : 1;
    if (grew == 0) continue;
    const uint32_t d = set_.depth[c];
    const uint32_t now = d + grew;
    set_.depth[c] = now;
    const uint64_t bit = uint64_t{1} << c;
    risen |= bit;
    if (d < v) {
      if (now < v) continue;  // still below v: nothing moves
      below &= ~bit;
      --nb;
      if (now == v) {
        at |= bit;
        continue;  // as many at or below v as before
      }
    } else {
      at &= ~bit;
    }
    over |= bit;
    past |= now ^ (v + 1);
    if (nb + static_cast<uint32_t>(std::popcount(at)) >= k) continue;
    below |= at;
    nb += static_cast<uint32_t>(std::popcount(at));
    if (past == 0) {
      ++v;  // `over` is not empty: c is in it
      at = over | (regs.equal(v) & ~risen);
    } else {
      sync(regs, risen);
      risen = 0;
      v = regs.min_above(v);
      at = regs.equal(v);
    }
    over = 0;
    past = 0;
  }
  const uint32_t na = static_cast<uint32_t>(std::popcount(at));
  // The same set may come back in this burst (after a packet of another set).
  if (i < burst.size()) sync(regs, risen);
  if (i < burst.size()) queues_.record(burst, out, start, i);  // another set may follow
  kept_rng = rng;
  regs_ = regs;
  below_.word[0] = below;
  at_.word[0] = at;
  below_.count = nb;
  at_.count = na;
  v_ = v;
  return i;
}
#endif

#if defined(SPRAYLAB_LB_AVX512)
// choose_in_word for a live view counted in packets (the default; the switch's null case): every
// choice raises its depth by exactly one, which keeps the loop to the draws, the pick and a few
// mask moves (same draws and picks as choose_in_word's):
// - regs is not written in the loop. A candidate's key in regs is its depth when regs was written,
//   so only the chosen ones' keys are stale, and those are below their depths. A chosen candidate
//   is never above v + 1 (it was at or below v when chosen), and when fewer than k remain at or
//   below v, the new k-th depth is v + 1: every candidate at or below v is below it, and those at
//   it are the others whose key is at most v + 1 (a stale key is at most v, a key above v + 1 is
//   a real depth). One masked compare, no mask of risen candidates.
// - The run's end is found first, so the loop keeps no packet pointer and no set to compare with.
// - The pick is the chosen one's bit (a deposit), moved between masks without a shift, and the
//   masks' sizes are popcounts where needed, not counts kept beside them (fewer live values).
size_t TopK::choose_in_word_packets(std::span<const Packet> burst, size_t i, PortId* out,
                                    Rng& kept_rng) {
  const PortId* const ports = set_.ports;
  const size_t start = i;
  size_t end = i;
  while (end < burst.size() && burst[end].candidates == ports &&
         burst[end].num_candidates == set_.w)
    ++end;
  Rng rng = kept_rng;
  uint64_t below = below_.word[0], at = at_.word[0];
  uint32_t v = v_;
  const uint32_t k = k_now_;
  const bool narrow = set_.w <= 16;
  for (PortId *o = out + i, *const o_end = out + end; o != o_end; ++o) {
    const uint32_t r = rng.below(k);
    const auto nb = static_cast<uint32_t>(std::popcount(below));
    const uint64_t pick =
        r < nb ? deposit_bit(below, r)
               : deposit_bit(at, rng.below(static_cast<uint32_t>(std::popcount(at))));
    const auto c = static_cast<uint32_t>(std::countr_zero(pick));
    const PortId port = ports[c];
    *o = port;
    if (port == kNoPort) continue;  // no queue grows
    const uint32_t d = set_.depth[c];
    set_.depth[c] = d + 1;
    if (d < v) {
      if (d + 1 < v) continue;  // still below v
      below ^= pick;            // now at v: as many at or below v as before
      at |= pick;
      continue;
    }
    at ^= pick;  // d == v: past v, to v + 1
    if (static_cast<uint32_t>(std::popcount(below) + std::popcount(at)) >= k) continue;
    below |= at;
    ++v;
    at = (narrow ? less_narrow(regs_, v + 1) : regs_.less(v + 1)) & ~below;
  }
  if (end < burst.size() && end > start) {
    // The same set may come back in this burst: regs must hold its depths then (a reload once
    // per run that another set interrupts).
    regs_.load(set_.depth, set_.w);
    queues_.record(burst, out, start, end);  // another set may follow
  }
  kept_rng = rng;
  below_.word[0] = below;
  at_.word[0] = at;
  below_.count = static_cast<uint32_t>(std::popcount(below));
  at_.count = static_cast<uint32_t>(std::popcount(at));
  v_ = v;
  return end;
}
#endif

void TopK::choose(std::span<const Packet> burst, const BurstContext& ctx, PortId* out) {
  queues_.begin(ctx);
  set_.begin(queues_);
  Rng rng = *ctx.rng;  // in registers (rps.h)
#if defined(SPRAYLAB_LB_AVX512)
  in_regs_ = false;
#endif
  for (size_t i = 0; i < burst.size();) {
    const Packet& p = burst[i];
    if (p.num_candidates == 0) {
      out[i++] = kNoPort;
      continue;
    }
    if (set_.load(p, queues_)) {
      uint32_t k = k_ != 0 ? k_ : set_.w / 2;
      if (k == 0) k = 1;
      if (k > set_.w) k = set_.w;
      k_now_ = k;
#if defined(SPRAYLAB_LB_AVX512)
      in_regs_ = set_.w <= 64;
      if (in_regs_) {
        regs_.load(set_.depth, set_.w);
        find_kth_in_regs();
      } else {
        find_kth();
      }
#else
      find_kth();
#endif
    }
#if defined(SPRAYLAB_LB_AVX512)
    if (in_regs_ && !queues_.stale() && !queues_.bytes()) {
      i = choose_in_word_packets(burst, i, out, rng);
      continue;
    }
    if (set_.w <= 64 && (in_regs_ || queues_.stale())) {
      i = choose_in_word(burst, i, out, rng);
      continue;
    }
#endif
    // Uniform over a uniformly random k-subset: a sure member with probability lo/k, else any
    // member of the tie group, all equally likely (members in candidate order).
    const uint32_t r = rng.below(k_now_);
    const uint32_t c = r < below_.count ? below_.select(r) : at_.select(rng.below(at_.count));
    out[i] = set_.ports[c];
    if (const uint32_t grew = queues_.add(out[i], p)) {
      const uint32_t d = set_.depth[c];
      set_.depth[c] += grew;
      raised(c, d);
    }
    ++i;
  }
  *ctx.rng = rng;
  queues_.end({out, burst.size()});
}

}  // namespace spraylab::lb
