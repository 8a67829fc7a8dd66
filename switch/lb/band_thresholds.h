// The maximum band threshold Th of PSP and banded JSQ (PSP §III-C: thresholds Th/n, 2Th/n, …, Th),
// one per egress port, in the queue unit.
//
// Default (`threshold: 0`): the depth one port drains at its line rate in one state-update period,
// at least kBandFloorPackets (and at least n) packets. Why: the paper fixes Th_max "according to
// engineering constraints" with a formula (its appendix C) that our copy lacks. The port buffer,
// our former default, puts every queue of a lossless-enough run in the lowest band, so PSP and
// banded JSQ collapse to RPS. One update period of line rate is the scale on which stale state is
// informative: a queue deeper than that is still non-empty when the next update arrives, one below
// it may have drained; bands finer than that period's worth cannot be told apart by a scheduler
// that sees state once per period. The floor keeps a live or near-live view (state_update 0 or
// 1 µs at a slow link) from bands narrower than a packet.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "net/wire.h"
#include "switch/lb/balancer.h"

namespace spraylab::lb {

// The default Th never goes below this many packets (nor below n, so a band is at least one
// packet wide).
inline constexpr uint32_t kBandFloorPackets = 8;

// Default Th of one port: `rate_bps` line rate, `period_ns` the state-update period, `frame_bytes`
// the nominal data frame (the experiment's payload plus headers), `bytes` the queue unit.
inline uint32_t default_band_threshold(double rate_bps, uint64_t period_ns, uint32_t frame_bytes,
                                       uint32_t bands, bool bytes) {
  const double wire = static_cast<double>(frame_bytes) + net::kWireOverhead;
  const double per_period = rate_bps * static_cast<double>(period_ns) * 1e-9 / 8 / wire;
  const double floor = std::max<double>(kBandFloorPackets, bands);
  const double packets = std::max(floor, std::floor(per_period));
  const double th = bytes ? packets * frame_bytes : packets;
  return static_cast<uint32_t>(std::min<double>(th, UINT32_MAX));
}

// Th per port as a balancer reads it: a per-port table (what the factory builds), or one value for
// every port (0 = each port's buffer: direct construction in tests and benchmarks).
struct BandThresholds {
  BandThresholds(uint64_t uniform = 0) : uniform(uniform) {}  // NOLINT: a plain Th converts
  explicit BandThresholds(std::shared_ptr<const std::vector<uint32_t>> per_port)
      : per_port(std::move(per_port)) {}

  // Th of port p whose buffer is `capacity`.
  uint64_t at(PortId p, uint32_t capacity) const {
    if (per_port) return (*per_port)[p];
    return uniform != 0 ? uniform : capacity;
  }

  uint64_t uniform = 0;
  std::shared_ptr<const std::vector<uint32_t>> per_port;
};

}  // namespace spraylab::lb
