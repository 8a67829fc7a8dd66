#include "switch/lb/psp.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

namespace spraylab::lb {

#if defined(SPRAYLAB_LB_AVX512) && defined(__AVX512VBMI2__)
namespace {
// 0, 1, …, 31 in 16-bit lanes: candidate indices to compress into a class's members.
const __m512i kLanes = _mm512_set_epi16(31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17,
                                        16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
inline __m512i rank(uint32_t k) { return _mm512_set1_epi16(static_cast<short>(k)); }
}  // namespace
#endif

// Every candidate into its weight class: weights from one vector pass (band_floors), then each
// class's members read off a compare mask in candidate order, the order the per-candidate loop
// gave (32 at a time by a vector compress where there is one).
void Psp::classify() {
  const uint32_t w = set_.w;
  // Th depends only on the ports (and their buffers): kept while the set's ports are.
  if (!th_of_.same(set_.ports, w, queues_.capacities())) {
    load_thresholds(threshold_, set_.ports, w, queues_.capacities(), th_);
    edges_.load(th_, w, n_, n_);
    kept_.depths = kept_.classes = false;  // kept for other ports or other Th
  }
  // The classes depend only on the depths now: the kept ones if these are the kept depths.
  const bool keepable = edges_.usable && w <= 64 && top_ <= kFastClasses;
  const bool repeat = keepable && kept_.depths && same_depths(set_.depth, kept_.depth, w);
  if (repeat && kept_.classes) {
    restore_classes();
    return;
  }
  if (edges_.usable) {
    weigh_by_edges();
  } else {
    weigh();
  }
  total_ = 0;
  for (uint32_t c = 0; c <= top_; ++c) {
    CandidateMask m;
    m.build<Cmp::kEqual>(weight_, w, c);
    count_[c] = m.count;
    if (m.count == 0) continue;  // most classes on queues that start empty: all weigh n
    uint16_t* mem = members(c);
    uint32_t k = 0;
    for (uint32_t j = 0; j * 64 < w; ++j) {
#if defined(SPRAYLAB_LB_AVX512) && defined(__AVX512VBMI2__)
      const __m512i lo = _mm512_add_epi16(kLanes, _mm512_set1_epi16(static_cast<short>(64 * j)));
      const __m512i hi = _mm512_add_epi16(lo, _mm512_set1_epi16(32));
      const auto m0 = static_cast<__mmask32>(m.word[j]);
      const auto m1 = static_cast<__mmask32>(m.word[j] >> 32);
      // Each member's place: k, k + 1, … expanded into the lanes of the members.
      _mm512_storeu_si512(mem + k, _mm512_maskz_compress_epi16(m0, lo));
      _mm512_mask_storeu_epi16(pos_ + 64 * j, m0,
                               _mm512_maskz_expand_epi16(m0, _mm512_add_epi16(kLanes, rank(k))));
      k += static_cast<uint32_t>(std::popcount(m0));
      _mm512_storeu_si512(mem + k, _mm512_maskz_compress_epi16(m1, hi));
      _mm512_mask_storeu_epi16(pos_ + 64 * j + 32, m1,
                               _mm512_maskz_expand_epi16(m1, _mm512_add_epi16(kLanes, rank(k))));
      k += static_cast<uint32_t>(std::popcount(m1));
#else
      for (uint64_t bits = m.word[j]; bits != 0; bits &= bits - 1) {
        const auto i =
            static_cast<uint16_t>(64 * j + static_cast<uint32_t>(std::countr_zero(bits)));
        pos_[i] = static_cast<uint16_t>(k);
        mem[k++] = i;
      }
#endif
    }
    total_ += c * k;
  }
  spans();
  build_slots();
  if (keepable) keep_classes(repeat);
}

// Whether a[i] == b[i] for i < w ≤ 64.
bool Psp::same_depths(const uint32_t* a, const uint32_t* b, uint32_t w) {
#if defined(SPRAYLAB_LB_AVX512)
  for (uint32_t i = 0; i < w; i += 16) {
    const auto m = static_cast<__mmask16>(w - i >= 16 ? 0xffff : (1u << (w - i)) - 1);
    if (_mm512_mask_cmpneq_epu32_mask(m, _mm512_loadu_si512(a + i), _mm512_loadu_si512(b + i)))
      return false;
  }
  return true;
#else
  return std::memcmp(a, b, w * sizeof(uint32_t)) == 0;
#endif
}

// After classify() (keepable): its depths, and with `classes` (its depths were the last ones'
// too) everything it gave for them.
void Psp::keep_classes(bool classes) {
  std::memcpy(kept_.depth, set_.depth, sizeof kept_.depth);
  kept_.depths = true;
  kept_.classes = classes;
  if (!classes) return;
  std::memcpy(kept_.weight, weight_, sizeof kept_.weight);
  std::memcpy(kept_.next, next_, sizeof kept_.next);
  std::memcpy(kept_.pos, pos_, sizeof kept_.pos);
  std::memcpy(kept_.lo, lo_, sizeof kept_.lo);
  for (uint32_t c = 0; c <= top_; ++c) {
    kept_.count[c] = count_[c];
    if (count_[c] != 0) std::memcpy(kept_.members[c], members(c), sizeof kept_.members[c]);
  }
  kept_.total = total_;
  kept_.slotted = slotted_;
  // slot_ past total_ is never drawn (shift_slots writes beyond it, build_slots rebuilds it).
  for (uint32_t x = 0; slotted_ && x < total_; x += 64) std::memcpy(kept_.slot + x, slot_ + x, 64);
}

// classify()'s result as keep_classes() kept it: the classes, their spans and the table.
void Psp::restore_classes() {
  std::memcpy(weight_, kept_.weight, sizeof kept_.weight);
  std::memcpy(next_, kept_.next, sizeof kept_.next);
  std::memcpy(pos_, kept_.pos, sizeof kept_.pos);
  std::memcpy(lo_, kept_.lo, sizeof kept_.lo);
  for (uint32_t c = 0; c <= top_; ++c) {
    count_[c] = kept_.count[c];
    if (count_[c] != 0) std::memcpy(members(c), kept_.members[c], sizeof kept_.members[c]);
  }
  total_ = kept_.total;
  slotted_ = kept_.slotted;
  for (uint32_t x = 0; slotted_ && x < total_; x += 64) std::memcpy(slot_ + x, kept_.slot + x, 64);
}

#if defined(SPRAYLAB_LB_AVX512) && defined(__AVX512VBMI__)
namespace {
// kSlotIndex[c][t][j] = (64t + j) / c: the member of class c that owns value 64t + j of its span.
struct SlotIndex {
  alignas(64) uint8_t at[Psp::kFastClasses + 1][Psp::kFastClasses][64];
};
constexpr SlotIndex make_slot_index() {
  SlotIndex x{};
  for (uint32_t c = 1; c <= Psp::kFastClasses; ++c) {
    for (uint32_t t = 0; t < Psp::kFastClasses; ++t) {
      for (uint32_t j = 0; j < 64; ++j)
        x.at[c][t][j] = static_cast<uint8_t>(((64 * t + j) / c) & 63);
    }
  }
  return x;
}
constexpr SlotIndex kSlotIndex = make_slot_index();
// Byte 2j of two vectors of 32 words: their low bytes.
const __m512i kLowBytes = _mm512_set_epi8(
    126, 124, 122, 120, 118, 116, 114, 112, 110, 108, 106, 104, 102, 100, 98, 96, 94, 92, 90, 88,
    86, 84, 82, 80, 78, 76, 74, 72, 70, 68, 66, 64, 62, 60, 58, 56, 54, 52, 50, 48, 46, 44, 42, 40,
    38, 36, 34, 32, 30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
}  // namespace
#endif

// slot_[r] = draw(r): class by class in draw order, each member repeated `weight` times, by one
// byte permute per 64 values.
void Psp::build_slots() {
  slotted_ = false;
#if defined(SPRAYLAB_LB_AVX512) && defined(__AVX512VBMI__)
  if (set_.w > 64 || top_ > kFastClasses) return;
  uint32_t pos = 0;
  for (uint32_t c = top_; c >= 1; --c) {
    const uint32_t span = c * count_[c];
    if (span == 0) continue;
    const uint16_t* mem = members(c);
    // The class's members (candidate indices below 64) as 64 bytes: the low byte of each of the
    // 64 words.
    const __m512i m =
        _mm512_permutex2var_epi8(_mm512_loadu_si512(mem), kLowBytes, _mm512_loadu_si512(mem + 32));
    for (uint32_t t = 0; 64 * t < span; ++t) {
      const __m512i idx = _mm512_load_si512(kSlotIndex.at[c][t]);
      _mm512_storeu_si512(slot_ + pos + 64 * t,
                          _mm512_maskz_permutexvar_epi8(~__mmask64{0}, idx, m));
    }
    pos += span;  // the next class overwrites what the last store wrote past the span
  }
  slotted_ = true;
#endif
}

// weigh() from the band edges: f = the number of edges at or below the depth (compares, no
// division), the weight as weigh() gives it, and next_ = the smallest edge above the depth where
// limit() is finite (edges rise with j, so that is e_{f+1}).
void Psp::weigh_by_edges() {
  const uint32_t w = set_.w;
  uint32_t i = 0;
#if defined(SPRAYLAB_LB_AVX512)
  const __m512i one = _mm512_set1_epi32(1);
  const __m512i vn = _mm512_set1_epi32(static_cast<int>(n_));
  const __m512i vsat = _mm512_set1_epi32(static_cast<int>(saturated_));
  const __m512i never = _mm512_set1_epi32(-1);
  for (; i < w; i += 16) {
    const __m512i d = _mm512_loadu_si512(set_.depth + i);
    __m512i f = _mm512_setzero_si512();
    __m512i next = never;
    for (uint32_t j = 0; j < n_; ++j) {
      const __m512i e = _mm512_load_si512(edges_.edge[j] + i);
      const __mmask16 reached = _mm512_cmpge_epu32_mask(d, e);
      f = _mm512_mask_add_epi32(f, reached, f, one);
      next = _mm512_mask_min_epu32(next, static_cast<__mmask16>(~reached), next, e);
    }
    const __mmask16 banded = _mm512_cmplt_epu32_mask(f, vn);
    const __m512i weight = _mm512_mask_sub_epi32(vsat, banded, vn, f);
    const __mmask16 moves = banded & _mm512_cmpneq_epu32_mask(weight, vsat);
    _mm512_storeu_si512(weight_ + i, weight);
    _mm512_storeu_si512(next_ + i, _mm512_mask_mov_epi32(never, moves, next));
  }
#endif
  for (; i < w; ++i) {
    const uint32_t f = edges_.floor_of(set_.depth[i], i);
    weight_[i] = weight_of_floor(f);
    next_[i] = next_edge(i, f);
  }
}

// weight_ and limit_ of every candidate from its depth and Th: band_floors' floor(q·n / Th), then
// the weight n − f (or saturated_weight at f = n) and the limit (f + 1)·Th, +inf where limit()
// gives it.
void Psp::weigh() {
  const uint32_t w = set_.w;
  uint32_t j = 0;
#if defined(SPRAYLAB_LB_AVX512)
  const double nd = n_;
  const __m512d vn = _mm512_set1_pd(nd);
  const __m256i vnu = _mm256_set1_epi32(static_cast<int>(n_));
  const __m256i vsat = _mm256_set1_epi32(static_cast<int>(saturated_));
  const __m512d inf = _mm512_set1_pd(HUGE_VAL);
  for (; j + 8 <= w; j += 8) {
    const __m512d q = _mm512_maskz_cvtepu32_pd(
        0xff, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(set_.depth + j)));
    const __m512d th = _mm512_loadu_pd(th_ + j);
    const __m512d f = _mm512_maskz_roundscale_pd(0xff, _mm512_div_pd(_mm512_mul_pd(q, vn), th),
                                                 _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
    const __mmask8 banded = _mm512_cmp_pd_mask(f, vn, _CMP_LT_OQ);  // f < n (not NaN, not inf)
    const __m256i weight =
        _mm256_mask_sub_epi32(vsat, banded, vnu, _mm512_maskz_cvttpd_epu32(banded, f));
    const __mmask8 moves = banded & ~_mm256_cmpeq_epu32_mask(weight, vsat);
    const __m512d limit = _mm512_mask_mul_pd(inf, moves, _mm512_add_pd(f, _mm512_set1_pd(1.0)), th);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(weight_ + j), weight);
    _mm512_storeu_pd(limit_ + j, limit);
  }
#endif
  for (; j < w; ++j) {
    uint32_t f;
    band_floors(&set_.depth[j], &th_[j], 1, n_, &f);
    weight_[j] = weight_of_floor(f);
    limit_[j] = limit(j);
  }
}

void Psp::spans() {
  uint32_t base = 0;
  for (uint32_t k = 0; k <= kFastClasses; ++k) {
    lo_[k] = base;
    if (k < top_) base += (top_ - k) * count_[top_ - k];
  }
}

// slot_ after candidate i's move from class `old` to a lighter class w (w < old: later in the
// draw order), as build_slots() would give it, without building it again: i's `old` values at its
// place `at` go to `last` (the member the swap-remove put there), the class's last `old` values
// leave, and i's w values join at the end of class w's span (`w_end`, before the move); everything
// between moves down by `old`, everything after by old − w. A few 64-byte blocks from the removed
// values to the end (`total`, after the move), each a blend of two unaligned loads: on short
// queues a port changes class every other packet it is sent, and rebuilding the table per move
// cost more than the draws it saved (so the table used to be dropped after one rebuild a burst,
// and later packets drew by draw(), a longer chain ahead of the move's branch).
void Psp::shift_slots(uint32_t old_start, uint32_t old, uint32_t at, uint32_t last, uint32_t w_end,
                      uint32_t w, uint32_t i, uint32_t total) {
#if defined(SPRAYLAB_LB_AVX512) && defined(__AVX512VBMI__)
  _mm_mask_storeu_epi8(slot_ + old_start + at * old, static_cast<__mmask16>((1u << old) - 1),
                       _mm_set1_epi8(static_cast<char>(last)));
  const uint32_t removed = old_start + old * count_[old];  // count_ after the move
  const uint32_t joined = w_end - old;                     // i's first value after the move
  const __m512i mine = _mm512_set1_epi8(static_cast<char>(i));
  for (uint32_t x = removed; x < total; x += 64) {
    // Bytes of this block below `joined` come from `old` further on, those past i's values
    // from old − w further on; loads stay ahead of the stores (old > w).
    const auto below = static_cast<__mmask64>(low_bits(joined > x ? joined - x : 0));
    const auto past = static_cast<__mmask64>(~low_bits(joined + w > x ? joined + w - x : 0));
    __m512i v = _mm512_mask_loadu_epi8(mine, below, slot_ + x + old);
    v = _mm512_mask_loadu_epi8(v, past, slot_ + x + old - w);
    _mm512_storeu_si512(slot_ + x, v);
  }
#else
  (void)old_start, (void)old, (void)at, (void)last, (void)w_end, (void)w, (void)i, (void)total;
#endif
}

void Psp::move(uint32_t i, uint32_t w) {
  const uint32_t old = weight_[i];
  // Where the two classes' spans are in the draw order before the move (the table's update
  // below): class c spans [lo_[top_ − c], lo_[top_ − c + 1]), class 0 none (at the end).
  const uint32_t old_start = slotted_ ? lo_[top_ - old] : 0;
  const uint32_t w_end = !slotted_ ? 0 : w == 0 ? total_ : lo_[top_ - w + 1];
  // Swap-remove from the old class (at i's place, kept in pos_), append to the new one.
  uint16_t* from = members(old);
  const uint16_t at = pos_[i];
  const uint16_t last = from[--count_[old]];
  from[at] = last;
  pos_[last] = at;
  pos_[i] = static_cast<uint16_t>(count_[w]);
  members(w)[count_[w]++] = static_cast<uint16_t>(i);
  weight_[i] = w;
  total_ = total_ - old + w;
  // lo_ as spans() would give it: the spans after class `old` (draw order k > top_ − old) lose
  // `old` values, those after class w gain w.
#if defined(SPRAYLAB_LB_AVX512)
  // One vector store: draw() reads lo_[1..8] as one vector, which scalar stores could not forward.
  const __m256i k = _mm256_set_epi32(8, 7, 6, 5, 4, 3, 2, 1);
  const __m256i top = _mm256_set1_epi32(static_cast<int>(top_));
  const __m256i vo = _mm256_set1_epi32(static_cast<int>(old));
  const __m256i vw = _mm256_set1_epi32(static_cast<int>(w));
  __m256i lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(lo_ + 1));
  lo = _mm256_mask_sub_epi32(lo, _mm256_cmpgt_epu32_mask(_mm256_add_epi32(k, vo), top), lo, vo);
  lo = _mm256_mask_add_epi32(lo, _mm256_cmpgt_epu32_mask(_mm256_add_epi32(k, vw), top), lo, vw);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(lo_ + 1), lo);
#else
  for (uint32_t k = 1; k <= kFastClasses; ++k)
    lo_[k] = lo_[k] - (k + old > top_ ? old : 0) + (k + w > top_ ? w : 0);
#endif
  if (!slotted_) return;
  if (w < old) {
    shift_slots(old_start, old, at, last, w_end, w, i, total_ + old - w);
  } else {
    build_slots();  // a rise (saturated_weight above the last band's): rare, rebuilt
  }
}

uint32_t Psp::draw(uint32_t r) const {
  // One draw r in [0, total): class w owns a span of w × members(w) values, and within it each
  // member owns w consecutive values. Branch-free over the few classes: a random class would
  // mispredict a branchy search almost every packet.
  uint32_t cls = 0, offset = 0;
#if defined(SPRAYLAB_LB_AVX512)
  if (top_ <= kFastClasses) {
    // The class is the number of class starts at or below r, counted in one compare.
    const __m256i starts = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(lo_ + 1));
    const auto k = static_cast<uint32_t>(std::popcount(static_cast<uint32_t>(
        _mm256_cmple_epu32_mask(starts, _mm256_set1_epi32(static_cast<int>(r))))));
    cls = top_ - k;
    offset = r - lo_[k];
    return members(cls)[(offset * reciprocal_[cls]) >> 32];
  }
#endif
  uint32_t base = 0;
  for (uint32_t w = top_; w >= 1; --w) {
    const uint32_t span = w * count_[w];
    const bool inside = r - base < span;  // unsigned: false below base
    cls = inside ? w : cls;
    offset = inside ? r - base : offset;
    base += span;
  }
  // offset / cls by a reciprocal (offset < 2^16, so the 32-bit fixed point is exact).
  return members(cls)[(offset * reciprocal_[cls]) >> 32];
}

// Re-weighs candidate c, whose depth reached its next edge (edges_ usable): its floor by compares
// with its edges above the one reached. A finite next_ means a weight in a band below Th, n − f
// for floor f, and a depth at or beyond e_{f+1}: the floor is f + 1 plus the further edges at or
// below the depth (edges rise with j), and the weight falls (or becomes saturated_weight, which a
// candidate with a finite next_ does not have), so the candidate always moves.
void Psp::reweigh(uint32_t c) {
  const uint32_t d = set_.depth[c];
  uint32_t f = n_ - weight_[c] + 1;
  while (f < edges_.m && d >= edges_.edge[f][c]) ++f;
  const uint32_t w = weight_of_floor(f);
  move(c, w);
  next_[c] = next_edge(c, n_ - w);
}

// choose()'s loop for a run of packets sharing a set with edges: a draw and a table load (or
// draw()) per packet, the rest in locals (through `this`, each depth store would make the
// compiler reload them). Returns the first packet after the run, the packet after a move that
// left no weight, or (kSlotted) the packet after a move that left no table.
template <bool kSlotted>
size_t Psp::choose_run(std::span<const Packet> burst, size_t i, PortId* out, Rng& kept_rng) {
  Rng rng = kept_rng;
  const PortId* ports = set_.ports;
  const uint32_t w = set_.w;
  uint32_t total = total_;
  // grow()'s inputs, read once (a store to out[] or a depth may alias them for the compiler).
  const bool live = !queues_.stale();
  const bool bytes = queues_.bytes();
  for (; i < burst.size(); ++i) {
    const Packet& p = burst[i];
    if (p.candidates != ports || p.num_candidates != w) break;
    const uint32_t r = rng.below(total);
    const uint32_t c = kSlotted ? slot_[r] : draw(r);
    const PortId port = ports[c];
    out[i] = port;
    if (const uint32_t grew = !live || port == kNoPort ? 0 : bytes ? p.bytes : 1) {  // grow()
      const uint32_t d = set_.depth[c] + grew;
      set_.depth[c] = d;
      if (d >= next_[c]) {  // as in choose()
        reweigh(c);
        total = total_;
        if (total == 0 || (kSlotted && !slotted_)) {
          ++i;
          break;
        }
      }
    }
  }
  kept_rng = rng;
  return i;
}

void Psp::choose(std::span<const Packet> burst, const BurstContext& ctx, PortId* out) {
  queues_.begin(ctx);
  set_.begin(queues_);
  Rng rng = *ctx.rng;   // in registers (rps.h)
  size_t recorded = 0;  // choices before this are in the queues' pending depths
  for (size_t i = 0; i < burst.size();) {
    const Packet& p = burst[i];
    if (p.num_candidates == 0) {
      out[i++] = kNoPort;
      continue;
    }
    if (p.candidates != set_.ports || p.num_candidates != set_.w) {
      // Another set may be loaded: it must see this burst's choices so far.
      queues_.record(burst, out, recorded, i);
      recorded = i;
    }
    if (set_.load(p, queues_)) classify();
    if (edges_.usable && total_ != 0) {
      if (slotted_) {
        i = choose_run<true>(burst, i, out, rng);
        continue;
      }
      if (top_ <= kFastClasses) {
        i = choose_run<false>(burst, i, out, rng);
        continue;
      }
    }
    const uint32_t c = total_ == 0 ? rng.below(set_.w) : draw(rng.below(total_));
    out[i] = set_.ports[c];
    if (const uint32_t grew = queues_.grow(out[i], p)) {
      set_.depth[c] += grew;
      // Weights 0 and saturated_weight are never re-weighed (limit +inf); the others only when
      // the depth reaches the band's upper edge.
      if (edges_.usable) {
        if (set_.depth[c] >= next_[c]) reweigh(c);
      } else if (static_cast<double>(set_.depth[c]) * n_ >= limit_[c]) {
        const uint32_t w = weight(c);
        if (w != weight_[c]) move(c, w);
        limit_[c] = limit(c);
      }
    }
    ++i;
  }
  *ctx.rng = rng;
  queues_.end({out, burst.size()});
}

}  // namespace spraylab::lb
