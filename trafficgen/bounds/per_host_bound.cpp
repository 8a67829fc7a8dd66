#include "trafficgen/bounds/per_host_bound.h"

#include <algorithm>
#include <limits>

namespace spraylab::gen {
namespace {

constexpr double kNone = std::numeric_limits<double>::infinity();

// What crosses one host's two links, and the shortest path terms of the frames that may be last.
struct HostTraffic {
  double up_data = 0, up_acks = 0;      // slots on the uplink
  double down_data = 0, down_acks = 0;  // slots on the downlink
  double sent_tail = kNone;             // last data frame out: its other hops, then its ACK back
  double ack_out_tail = kNone;          // last ACK out: its path to its sender
  double data_in_first = kNone;         // earliest a data frame can start on the downlink
  double ack_in_first = kNone;          // earliest an ACK can start on the downlink
  double data_in_tail = kNone;          // last data frame in: its ACK back
};

void add_message(const Message& m, uint32_t hops, const BoundWire& w,
                 std::vector<HostTraffic>& hosts) {
  const MessageFrames f = message_frames(w, m.bytes);
  const double h = hops, p = w.link_delay_ns, t = f.shortest_data_ns;
  const double ack_path = h * w.ack_hop_ns();
  HostTraffic& src = hosts[m.src];
  src.up_data += f.data_slots_ns;
  src.down_acks += f.ack_slots_ns;
  src.sent_tail = std::min(src.sent_tail, p + (h - 1) * (t + p) + ack_path);
  // An ACK exists once data has crossed the whole path; it then crosses H-1 links to the downlink.
  src.ack_in_first = std::min(src.ack_in_first, h * (t + p) + (h - 1) * w.ack_hop_ns());
  HostTraffic& dst = hosts[m.dst];
  dst.up_acks += f.ack_slots_ns;
  dst.down_data += f.data_slots_ns;
  dst.ack_out_tail = std::min(dst.ack_out_tail, p + (h - 1) * w.ack_hop_ns());
  dst.data_in_first = std::min(dst.data_in_first, (h - 1) * (t + p));
  dst.data_in_tail = std::min(dst.data_in_tail, ack_path);
}

// The last frame on the uplink ends after every slot but its own gap.
double uplink_ns(const HostTraffic& x, double g) {
  double b = 0;
  if (x.up_data > 0) b = std::max(b, x.up_data - g + x.sent_tail);
  if (x.up_acks > 0) {
    b = std::max(b, x.up_data + x.up_acks - g + std::min(x.sent_tail, x.ack_out_tail));
  }
  return b;
}

// The downlink starts no earlier than its first frame can reach it; the last frame has arrived
// one propagation after its serialisation.
double downlink_ns(const HostTraffic& x, double g, double p) {
  double b = 0;
  if (x.down_data > 0) b = std::max(b, x.data_in_first + x.down_data - g + p + x.data_in_tail);
  if (x.down_acks > 0) {
    const double first = std::min(x.data_in_first, x.ack_in_first);
    b = std::max(b, first + x.down_data + x.down_acks - g + p);
  }
  return b;
}

}  // namespace

PerHostBound per_host_bound(const Schedule& s, std::span<const MessageId> messages,
                            const std::vector<uint32_t>& hops, const BoundWire& w) {
  std::vector<HostTraffic> hosts(s.ranks);
  for (MessageId id : messages) add_message(s.messages[id], hops[id], w, hosts);
  PerHostBound best;
  for (Rank r = 0; r < s.ranks; ++r) {
    const double up = uplink_ns(hosts[r], w.gap_ns());
    const double down = downlink_ns(hosts[r], w.gap_ns(), w.link_delay_ns);
    if (up > best.total_ns) best = {up, r, HostLink::kUplink};
    if (down > best.total_ns) best = {down, r, HostLink::kDownlink};
  }
  return best;
}

}  // namespace spraylab::gen
