// Virtual channels of lossless links (buffer.virtual_channels; docs/switch.md, "Deadlock and
// virtual channels"). MRLS paper §4.3 and §5.1: one VC per up-down phase, hop h of a route (h = 0
// out of the source leaf) in VC floor(h / 2), so that within a VC a wait only goes from an up link
// to a down link and every other wait moves to the next VC: the channel dependency graph has no
// cycle (topo/channel_dependency.h checks it).
//
// The frame carries nothing new: its VC on a link is a function of the IPv4 TTL it has on that
// link, which every switch decrements once (Forwarder::admit) and every host sends as kSentTtl.
// A frame that left k switches behind has TTL kSentTtl - k; the host's link to its leaf is k = 0,
// hop h between switches is k = h + 1, and the leaf's link to the destination host k = hops + 1.
// The link's sender reads the TTL after its decrement, the receiver before its own: both get the
// same VC. Routes longer than 2 x vcs hops stay in the last VC (no cycle guarantee beyond it).
#pragma once

#include <cstdint>

namespace spraylab::net {

// The IPv4 TTL of every frame a host sends (trafficgen's generator and the fabric's hosts).
inline constexpr uint8_t kSentTtl = 64;

// The VC of a frame with IPv4 TTL `ttl` on a link of `vcs` VCs.
inline uint8_t vc_on_link(uint8_t ttl, uint8_t vcs) {
  if (vcs <= 1 || ttl >= kSentTtl) return 0;
  const uint32_t hop = static_cast<uint32_t>(kSentTtl - ttl) - 1;  // k - 1
  const uint32_t vc = hop / 2;
  return static_cast<uint8_t>(vc < vcs ? vc : vcs - 1);
}

// The TTL of a frame's IPv4 header in the frame at `eth` (an untagged or one-VLAN-tagged frame
// the parser accepted).
inline uint8_t frame_ttl(const uint8_t* eth) {
  return eth[(eth[12] == 0x81 && eth[13] == 0x00 ? 18 : 14) + 8];
}

}  // namespace spraylab::net
