// What the switch, the generator and the emulated links all assume about frames on a link: the
// burst one device call moves, what Ethernet adds to every frame on the wire, and where a link's
// control frames go. Declared once here (no DPDK, no other header) so that every layer counts the
// same bytes.
#pragma once

#include <array>
#include <cstdint>

namespace spraylab::net {

// Frames per rx/tx burst, per balancer call, per egress ring operation (DESIGN.md: bursts of 32).
inline constexpr uint16_t kBurst = 32;

// On the wire every frame also carries a 4 B FCS (which mbuf lengths leave out) and is followed by
// a 20 B preamble + inter-frame gap (8 + 12): idle time that a link rate must still pay for.
inline constexpr uint32_t kFcsBytes = 4;
inline constexpr uint32_t kWireGapBytes = 20;
inline constexpr uint32_t kWireOverhead = kFcsBytes + kWireGapBytes;
// conf::BufferSpec repeats these three for the buffer defaults (conf may include no net/ header,
// tests/layering): fabric/namespaced/pfc_headroom.cpp asserts they agree.

// The destination of the control frames a link's two ends exchange: 01:80:C2:00:00:01, the MAC
// Control multicast (IEEE 802.3 Annex 31B). Link-local: a bridge never forwards it. 802.1Qbb
// pause frames (net/pfc_frame.h) and spraylab's credit frames (net/credit_frame.h) both use it.
inline constexpr std::array<uint8_t, 6> kMacControlDestination{0x01, 0x80, 0xc2, 0x00, 0x00, 0x01};

}  // namespace spraylab::net
