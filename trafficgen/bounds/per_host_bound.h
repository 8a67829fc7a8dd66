// The per-host lower bound on a collective's completion time: the Ofan paper's "naive lower bound
// for non-permutation workloads", exact about frames, gaps and ACKs (docs/workloads.md).
//
// Every frame of the collective crosses its sender's host link (uplink) and its receiver's
// (downlink), and none leaves before the collective's first transmission (time 0 here). A host h
// sends its data and the ACKs for the data it receives on its uplink, and receives its data and
// the ACKs for the data it sends on its downlink. With slots (t + g) summed per link:
//   uplink, data:    the last data frame ends ≥ data slots - g after 0; it then crosses its other
//                    H-1 links (t + p each) and its ACK comes back (H·(t_a + p)).
//   uplink, all:     the last frame ends ≥ data + ACK slots - g; if it is an ACK, that ACK still
//                    has to reach its sender (p + (H-1)·(t_a + p)); the smaller tail counts.
//   downlink, data:  the first frame cannot start on the downlink before it crossed H-1 links;
//                    from then every slot follows; the last data frame is there + p later and
//                    its ACK goes back (H·(t_a + p)).
//   downlink, all:   the same with the ACKs h receives; an ACK arriving last ends the collective.
// Each path term takes the message that makes it smallest (the shortest frame, the fewest hops),
// since any of them may be the last. The collective's bound is the largest over hosts and terms.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "conf/name_list.h"
#include "trafficgen/bounds/bound_wire.h"
#include "trafficgen/schedule.h"

namespace spraylab::gen {

enum class HostLink : uint8_t { kUplink, kDownlink };
struct HostLinkInfo {
  HostLink id;
  std::string_view name;
};
inline constexpr std::array<HostLinkInfo, 2> kHostLinkTable{
    {{HostLink::kUplink, "uplink"}, {HostLink::kDownlink, "downlink"}}};
static_assert(names::in_enum_order(kHostLinkTable));
inline constexpr std::array<std::string_view, 2> kHostLinkNames = names::names_of(kHostLinkTable);
constexpr std::string_view to_string(HostLink l) { return kHostLinkNames[static_cast<size_t>(l)]; }

struct PerHostBound {
  double total_ns = 0;
  Rank host = 0;                      // the host whose link sets the bound
  HostLink link = HostLink::kUplink;  // and which of its two links
};

// The bound for `messages` of `s` (ids; each message's path has hops[id] links).
PerHostBound per_host_bound(const Schedule& s, std::span<const MessageId> messages,
                            const std::vector<uint32_t>& hops, const BoundWire& w);

}  // namespace spraylab::gen
