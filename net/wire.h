// What the switch, the generator and the emulated links all assume about frames on a link: the
// burst one device call moves, and what Ethernet adds to every frame on the wire. Declared once
// here (no DPDK, no other header) so that every layer counts the same bytes.
#pragma once

#include <cstdint>

namespace spraylab::net {

// Frames per rx/tx burst, per balancer call, per egress ring operation (DESIGN.md: bursts of 32).
inline constexpr uint16_t kBurst = 32;

// On the wire every frame also carries a 4 B FCS (which mbuf lengths leave out) and is followed by
// a 20 B preamble + inter-frame gap (8 + 12): idle time that a link rate must still pay for.
inline constexpr uint32_t kFcsBytes = 4;
inline constexpr uint32_t kWireGapBytes = 20;
inline constexpr uint32_t kWireOverhead = kFcsBytes + kWireGapBytes;

}  // namespace spraylab::net
