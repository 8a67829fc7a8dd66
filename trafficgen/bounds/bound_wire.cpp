#include "trafficgen/bounds/bound_wire.h"

#include "trafficgen/cct_bound.h"

namespace spraylab::gen {

double BoundWire::gap_ns() const { return serialisation_ns(gap_bytes, rate_bps); }
double BoundWire::ack_ns() const { return serialisation_ns(ack_bytes, rate_bps); }
double BoundWire::ack_slot_ns() const { return ack_ns() + gap_ns(); }
double BoundWire::ack_hop_ns() const { return ack_ns() + link_delay_ns; }
double BoundWire::frame_ns(double bytes) const { return serialisation_ns(bytes, rate_bps); }

MessageFrames message_frames(const BoundWire& w, uint64_t bytes) {
  MessageFrames f;
  f.packets = (bytes + w.payload_bytes - 1) / w.payload_bytes;
  f.acks = (f.packets + w.ack_every - 1) / w.ack_every;
  const uint64_t last_payload = bytes - (f.packets - 1) * w.payload_bytes;
  const double full = w.frame_ns(w.payload_bytes + w.header_bytes);
  f.shortest_data_ns = w.frame_ns(static_cast<double>(last_payload) + w.header_bytes);
  f.data_slots_ns =
      static_cast<double>(f.packets - 1) * (full + w.gap_ns()) + f.shortest_data_ns + w.gap_ns();
  f.ack_slots_ns = static_cast<double>(f.acks) * w.ack_slot_ns();
  return f;
}

}  // namespace spraylab::gen
