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
}  // namespace
#endif

// Every candidate into its weight class: weights from one vector pass (band_floors), then each
// class's members read off a compare mask in candidate order, the order the per-candidate loop
// gave (32 at a time by a vector compress where there is one).
void Psp::classify() {
  const uint32_t w = set_.w;
  // Th depends only on the ports (and their buffers): kept while the set's ports are.
  if (!th_of_.same(set_.ports, w, queues_.capacities()))
    load_thresholds(threshold_, set_.ports, w, queues_.capacities(), th_);
  weigh();
  total_ = 0;
  for (uint32_t c = 0; c <= top_; ++c) {
    CandidateMask m;
    m.build<Cmp::kEqual>(weight_, w, c);
    uint16_t* mem = members(c);
    uint32_t k = 0;
    for (uint32_t j = 0; j * 64 < w; ++j) {
#if defined(SPRAYLAB_LB_AVX512) && defined(__AVX512VBMI2__)
      const __m512i lo = _mm512_add_epi16(kLanes, _mm512_set1_epi16(static_cast<short>(64 * j)));
      const __m512i hi = _mm512_add_epi16(lo, _mm512_set1_epi16(32));
      const auto m0 = static_cast<__mmask32>(m.word[j]);
      const auto m1 = static_cast<__mmask32>(m.word[j] >> 32);
      _mm512_storeu_si512(mem + k, _mm512_maskz_compress_epi16(m0, lo));
      k += static_cast<uint32_t>(std::popcount(m0));
      _mm512_storeu_si512(mem + k, _mm512_maskz_compress_epi16(m1, hi));
      k += static_cast<uint32_t>(std::popcount(m1));
#else
      for (uint64_t bits = m.word[j]; bits != 0; bits &= bits - 1)
        mem[k++] = static_cast<uint16_t>(64 * j + static_cast<uint32_t>(std::countr_zero(bits)));
#endif
    }
    count_[c] = k;
    total_ += c * k;
  }
  spans();
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
    weight_[j] = f < n_ ? n_ - f : saturated_;
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

void Psp::move(uint32_t i, uint32_t w) {
  const uint32_t old = weight_[i];
  // Swap-remove from the old class (i's place found by a search: it moves only when a chosen
  // port crosses a band edge), append to the new one.
  uint16_t* from = members(old);
  uint32_t at = 0;
  while (from[at] != i) ++at;
  from[at] = from[--count_[old]];
  members(w)[count_[w]++] = static_cast<uint16_t>(i);
  weight_[i] = w;
  total_ = total_ - old + w;
  spans();
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

void Psp::choose(std::span<const Packet> burst, const BurstContext& ctx, PortId* out) {
  queues_.begin(ctx);
  set_.begin(queues_);
  Rng rng = *ctx.rng;   // in registers (rps.h)
  size_t recorded = 0;  // choices before this are in the queues' pending depths
  for (size_t i = 0; i < burst.size(); ++i) {
    const Packet& p = burst[i];
    if (p.num_candidates == 0) {
      out[i] = kNoPort;
      continue;
    }
    if (p.candidates != set_.ports || p.num_candidates != set_.w) {
      // Another set may be loaded: it must see this burst's choices so far.
      queues_.record(burst, out, recorded, i);
      recorded = i;
    }
    if (set_.load(p, queues_)) classify();
    const uint32_t c = total_ == 0 ? rng.below(set_.w) : draw(rng.below(total_));
    out[i] = set_.ports[c];
    if (const uint32_t grew = queues_.grow(out[i], p)) {
      set_.depth[c] += grew;
      // Weights 0 and saturated_weight are never re-weighed (limit +inf); the others only when
      // the depth reaches the band's upper edge.
      if (static_cast<double>(set_.depth[c]) * n_ >= limit_[c]) {
        const uint32_t w = weight(c);
        if (w != weight_[c]) move(c, w);
        limit_[c] = limit(c);
      }
    }
  }
  *ctx.rng = rng;
  queues_.end({out, burst.size()});
}

}  // namespace spraylab::lb
