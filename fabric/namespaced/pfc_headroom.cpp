#include "fabric/namespaced/pfc_headroom.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "conf/buffer_defaults.h"
#include "conf/units.h"
#include "net/wire.h"

namespace spraylab::fabric::namespaced {

// conf's copy of the wire's overhead (conf may not include net/wire.h) is what the headroom below
// is computed with, beside frames counted with net's: the two must be the same bytes.
static_assert(conf::BufferSpec::kFcsBytes == net::kFcsBytes);
static_assert(conf::BufferSpec::kWireGapBytes == net::kWireGapBytes);
static_assert(conf::BufferSpec::kWireOverhead == net::kWireOverhead);

namespace {

// A data frame on the wire: headers, then FCS, preamble and gap (net/wire.h).
uint64_t wire_frame_bytes(uint32_t payload_bytes) {
  return uint64_t{payload_bytes} + conf::BufferSpec::kFrameHeaderBytes + net::kWireOverhead;
}

uint64_t sleep_at_rate_bytes(const PollingLink& l) {
  return static_cast<uint64_t>(std::ceil(static_cast<double>(l.sleep_ns) * l.links.rate_bps / 8e9));
}

}  // namespace

uint64_t sleep_in_flight_bytes(const PollingLink& l) {
  const uint64_t ring = uint64_t{l.ring_slots} * wire_frame_bytes(l.payload_bytes);
  return std::min(sleep_at_rate_bytes(l) + l.burst_bytes, ring);
}

uint64_t polling_pfc_headroom_bytes(const PollingLink& l) {
  // The receiver's sleep (what its ring gathered before the turn that sends the pause) and the
  // sender's (what it sends before the turn that reads it): one each, in series.
  return conf::pfc_headroom_bytes(l.links, l.payload_bytes) + 2 * sleep_in_flight_bytes(l);
}

std::string polling_pfc_headroom_why(const PollingLink& l) {
  return fmt::format(
      "{} B: the wire's round trip, two frames and the pause ({} B) + 2 x ({} of --idle-sleep "
      "at {} + a {} B burst, at most a ring of {} frames: {} B)",
      polling_pfc_headroom_bytes(l), conf::pfc_headroom_bytes(l.links, l.payload_bytes),
      conf::format_time(static_cast<double>(l.sleep_ns)), conf::format_rate(l.links.rate_bps),
      l.burst_bytes, l.ring_slots, sleep_in_flight_bytes(l));
}

}  // namespace spraylab::fabric::namespaced
