// The one interface every load balancer implements (ALGORITHMS.md, "Every algorithm is a pure
// object"): per burst, a packet's key fields and candidate ports in, one egress port per packet
// out. One virtual call per burst; the per-packet loop inside each algorithm is not virtual.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "switch/lb/queue_view.h"
#include "switch/lb/rng.h"
#include "topo/topology.h"

namespace spraylab::lb {

using PortId = topo::PortId;

// Largest candidate set an algorithm handles (per-packet scratch arrays live on the stack).
inline constexpr uint32_t kMaxCandidates = 256;
// Ofan groups at most this many packets at once; longer bursts are processed in chunks, which
// gives the same assignment (combining is exact for any grouping).
inline constexpr uint32_t kMaxBurst = 64;
// Chosen when a packet has no live candidate (every port of its set is down): the caller drops it
// and counts the drop.
inline constexpr PortId kNoPort = 0xffff;

// What the balancer sees of one packet. Filled by the route stage.
struct Packet {
  // The routing table's candidate set: egress ports, `num_candidates` of them (ecmp, rps, rr, jsq,
  // ar, topk, psp). Ofan, pOfan and Polarized keep their own per-switch tables instead.
  const PortId* candidates = nullptr;
  uint16_t num_candidates = 0;
  uint16_t ingress_port = 0;  // pOfan with `pipe: ports:W`
  uint16_t rx_queue = 0;      // pOfan with `pipe: queue`
  // Ofan/pOfan key destination: the destination leaf at an edge switch (and on MRLS), the
  // destination pod at an aggregation switch (Ofan §4.1). The size class comes from `bytes`.
  uint32_t dest = 0;
  uint32_t src_leaf = 0;  // Polarized: source leaf, as topo::Routing::leaf_rank()
  uint32_t dst_leaf = 0;  // Polarized: destination leaf, as topo::Routing::leaf_rank()
  uint32_t hash = 0;      // flow hash / entropy (the UDP source port is part of it)
  uint16_t entropy = 0;   // the UDP source port: the host's path entropy (ECMP `hash: digit`)
  uint32_t bytes = 0;     // frame length; under `ack_size` it is ACK class
  // ksp: the frame's path label (0: none yet; Traits::path_label).
  uint16_t path_label = 0;
};

// Per-burst inputs besides the packets: queue depths, the lcore's generator, the clock.
struct BurstContext {
  QueueView queues;     // live depths; queue-aware algorithms apply their own staleness
  Rng* rng = nullptr;   // the calling lcore's generator
  uint64_t now_ns = 0;  // wall clock or virtual time
  // ksp (Traits::path_label): the label each packet leaves with, one entry per packet, written by
  // the balancer; the caller writes a changed one into the frame. nullptr for the others.
  uint16_t* path_labels = nullptr;
};

class Balancer {
 public:
  virtual ~Balancer() = default;
  // Chooses out[i] for burst[i]. `out` has burst.size() entries. No allocation, locks or throws.
  virtual void choose(std::span<const Packet> burst, const BurstContext& ctx, PortId* out) = 0;
};

}  // namespace spraylab::lb
