// What a queue-aware algorithm (jsq, ar, topk, psp, polarized) reads during one burst: the live or
// stale view, plus what this lcore has itself sent to each port earlier in the same burst.
//
// Why the in-burst term: the egress stage enqueues a burst only after balancing it, so with a live
// view a greedy algorithm would send all 32 packets of a burst to the same port, which no
// per-packet switch does. With a live view (state_update_ns = 0) we therefore count this burst's
// own choices, which makes burst processing equal to packet-at-a-time processing. With a stale
// view we do not: the paper's scheduler (PSP §IV) acts on state it cannot see change.
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif
#include <span>
#include <vector>

#include "switch/lb/balancer.h"
#include "switch/lb/queue_view.h"

namespace spraylab::lb {

class BurstQueues {
 public:
  // `ports`: size of the switch's queue arrays; `bytes`: the queue unit is bytes, not packets.
  BurstQueues(size_t ports, uint64_t state_update_ns, bool bytes)
      : stale_(ports, state_update_ns), pending_(ports, 0), bytes_(bytes) {}

  void begin(const BurstContext& ctx) {
    view_ = stale_.at(ctx.queues, ctx.now_ns);
    snapshot_ = stale() ? ctx.now_ns / stale_.period_ns() : snapshot_ + 1;
  }
  uint32_t depth(PortId p) const { return view_.depth(p) + pending_[p]; }
  // out[i] = depth(ports[i]) for i < w, by vector gathers where there are any; out has room for a
  // multiple of 16 entries past w (kMaxCandidates), which may be overwritten.
  void load(const PortId* ports, uint32_t w, uint32_t* out) const;
  uint32_t capacity(PortId p) const { return view_.capacity(p); }
  const uint32_t* capacities() const { return view_.capacities(); }
  // A stale view: depths change only when the snapshot does, and the burst's own choices are
  // not counted (add returns 0).
  bool stale() const { return stale_.period_ns() != 0; }
  bool bytes() const { return bytes_; }  // the queue unit is bytes (grow() adds Packet::bytes)
  // Equal values, equal snapshots: StaleQueueView copies a new one once per period.
  uint64_t snapshot() const { return snapshot_; }
  // Records a choice; returns the amount the port's depth grew by (0 with a stale view).
  uint32_t add(PortId p, const Packet& pkt) {
    if (stale_.period_ns() != 0 || p == kNoPort) return 0;
    const uint32_t unit = bytes_ ? pkt.bytes : 1;
    pending_[p] += unit;
    any_pending_ = true;
    return unit;
  }
  // What a choice of p adds to its depth (0 with a stale view or no port), without recording it
  // in pending_: a loop that keeps its own copy of the depths records its choices with record()
  // only before the burst loads another set, the one reader of pending_ within a burst.
  uint32_t grow(PortId p, const Packet& pkt) const {
    if (stale_.period_ns() != 0 || p == kNoPort) return 0;
    return bytes_ ? pkt.bytes : 1;
  }
  // The view's depths and this burst's pending counts as plain arrays (depth(p) is their sum),
  // for a loop that keeps them in locals and adds its choices to pending itself, grow() of each:
  // it calls mark_pending() after, so that end() clears them.
  const uint32_t* view_depths() const { return view_.raw(); }
  uint32_t* pending() { return pending_.data(); }
  void mark_pending() { any_pending_ = true; }
  void record(std::span<const Packet> burst, const PortId* out, size_t from, size_t to) {
    for (size_t j = from; j < to; ++j) add(out[j], burst[j]);
  }
  void end(std::span<const PortId> chosen) {
    if (!any_pending_) return;
    for (PortId p : chosen) {
      if (p != kNoPort) pending_[p] = 0;
    }
    any_pending_ = false;
  }

 private:
  StaleQueueView stale_;
  QueueView view_;
  std::vector<uint32_t> pending_;
  uint64_t snapshot_ = UINT64_MAX;
  bool bytes_;
  bool any_pending_ = false;  // some pending_ entry is not 0 (this burst made a live choice)
};

#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__)
#define SPRAYLAB_LB_AVX512 1
#endif

// out[i] = base[ports[i]] (+ extra[ports[i]] when extra is not null) for i < w. Sixteen ports per
// vector gather; out has room for a multiple of 16 entries past w, which may be overwritten.
#if defined(SPRAYLAB_LB_AVX512)
// Whether ports[i] = ports[0] + i for i < w (w > 0), 32 ports per compare.
inline bool consecutive_ports(const PortId* ports, uint32_t w) {
  const __m512i iota = _mm512_set_epi16(31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17,
                                        16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  for (uint32_t i = 0; i < w; i += 32) {
    const auto m = static_cast<__mmask32>(w - i >= 32 ? ~0u : (1u << (w - i)) - 1);
    const __m512i want =
        _mm512_add_epi16(iota, _mm512_set1_epi16(static_cast<short>(ports[0] + i)));
    if (_mm512_mask_cmpneq_epi16_mask(m, _mm512_maskz_loadu_epi16(m, ports + i), want) != 0)
      return false;
  }
  return true;
}
#endif

// Whether a[i] == b[i] for i < n: memcmp inline, 32 ports per compare (it runs once per burst
// for every loaded set; a call to the library's memcmp costs more than the compares).
inline bool same_ports(const PortId* a, const PortId* b, uint32_t n) {
#if defined(SPRAYLAB_LB_AVX512)
  for (uint32_t i = 0; i < n; i += 32) {
    const auto m = static_cast<__mmask32>(n - i >= 32 ? ~0u : (1u << (n - i)) - 1);
    if (_mm512_mask_cmpneq_epi16_mask(m, _mm512_maskz_loadu_epi16(m, a + i),
                                      _mm512_maskz_loadu_epi16(m, b + i)) != 0)
      return false;
  }
  return true;
#else
  return std::memcmp(a, b, n * sizeof(PortId)) == 0;
#endif
}

inline void gather_ports(const PortId* ports, uint32_t w, const uint32_t* base,
                         const uint32_t* extra, uint32_t* out) {
#if defined(SPRAYLAB_LB_AVX512)
  // A route group's ports are often consecutive (every fabric port of a spine, the uplinks of a
  // leaf): plain vector loads then, a fraction of a gather's cost.
  if (w != 0 && consecutive_ports(ports, w)) {
    const uint32_t* b = base + ports[0];
    const uint32_t* e = extra != nullptr ? extra + ports[0] : nullptr;
    for (uint32_t i = 0; i < w; i += 16) {
      const auto m = static_cast<__mmask16>(w - i >= 16 ? 0xffff : (1u << (w - i)) - 1);
      __m512i d = _mm512_maskz_loadu_epi32(m, b + i);
      if (e != nullptr) d = _mm512_add_epi32(d, _mm512_maskz_loadu_epi32(m, e + i));
      _mm512_storeu_si512(out + i, d);
    }
    return;
  }
  for (uint32_t i = 0; i < w; i += 16) {
    const auto m = static_cast<__mmask16>(w - i >= 16 ? 0xffff : (1u << (w - i)) - 1);
    const __m512i idx = _mm512_maskz_cvtepu16_epi32(m, _mm256_maskz_loadu_epi16(m, ports + i));
    __m512i d = _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), m, idx, base, 4);
    if (extra != nullptr) {
      d = _mm512_add_epi32(d,
                           _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), m, idx, extra, 4));
    }
    _mm512_storeu_si512(out + i, d);
  }
#else
  for (uint32_t i = 0; i < w; ++i) out[i] = base[ports[i]] + (extra ? extra[ports[i]] : 0);
#endif
}

inline void BurstQueues::load(const PortId* ports, uint32_t w, uint32_t* out) const {
  gather_ports(ports, w, view_.raw(), any_pending_ ? pending_.data() : nullptr, out);
}

}  // namespace spraylab::lb
