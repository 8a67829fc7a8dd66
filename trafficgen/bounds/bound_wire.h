// The wire a collective's lower bound is computed on, and what one message puts on it: the
// pieces the per-host bound (per_host_bound.h) and the critical path (steps_bound.h) share.
//
// Frames occupy a link as fabric::Link and the switch's Shaper charge them: a frame's
// serialisation t = (frame + FCS) / r, then the preamble and gap (g) as idle time, so a slot on a
// busy link is t + g and the frame has arrived t + p after it started (store and forward).
#pragma once

#include <cstdint>

namespace spraylab::gen {

struct BoundWire {
  double rate_bps = 100e9;     // every link's rate: the host links' (the bound's capacity)
  double link_delay_ns = 500;  // propagation per link (p)
  uint32_t header_bytes = 86;  // per data frame beyond the payload, FCS included
  uint32_t ack_bytes = 86;     // an ACK frame, FCS included
  uint32_t gap_bytes = 20;     // preamble + inter-frame gap
  uint32_t payload_bytes = 4096;
  uint32_t ack_every = 1;  // the receiver ACKs every ack_every packets and the last one

  double gap_ns() const;
  double ack_ns() const;                // t_a, an ACK's serialisation
  double ack_slot_ns() const;           // t_a + g
  double ack_hop_ns() const;            // t_a + p, an ACK's hop once it is on the wire
  double frame_ns(double bytes) const;  // serialisation of a frame of `bytes`
};

// What one message of `bytes` puts on the wire, at the least: its data frames (all full but the
// last) and the ACKs its receiver must send, ⌈packets / ack_every⌉ (an ACK each ack_every packets
// and one for the last; trafficgen/host_engine.cpp on_data).
struct MessageFrames {
  uint64_t packets = 0;
  uint64_t acks = 0;
  double data_slots_ns = 0;     // every data frame's slot, gaps included
  double shortest_data_ns = 0;  // the shortest data frame's serialisation (the last's)
  double ack_slots_ns = 0;      // every ACK's slot
};

MessageFrames message_frames(const BoundWire& w, uint64_t bytes);

}  // namespace spraylab::gen
