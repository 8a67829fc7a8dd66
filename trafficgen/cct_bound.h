// The lower bound on collective completion time (CCT) of a permutation at full line rate, after
// the Ofan paper's appendix A ("Permutation CCT Lower-Bound"). CCT inflation = CCT / bound - 1.
//
// The model. In a permutation every host sends one message and receives one, so by symmetry all
// hosts behave alike and the bound follows one host link, which carries the host's own data
// packets and the ACKs for the data it receives. With
//   t_d = data frame / r, t_a = ACK frame / r       (serialisation, frame = payload + headers)
//   T_d = t_d + gap / r,  T_a = t_a + gap / r       (a slot on the host link, gap included)
//   p = propagation per link, H = hops (links) per path, m = data packets per message,
// that link passes through three phases (appendix A):
//   1. data only: no ACK can exist before the first data packet has crossed the fabric, at
//      L = H·(t_d + p) (store-and-forward: H serialisations, H propagations). The data slots that
//      start before then, n1 = min(m, ⌈L / T_d⌉), go out back to back (a started frame finishes).
//   2. data and ACKs interleaved: every remaining data slot is preceded by one ACK slot, since data
//      now arrives as fast as it leaves: (m - n1)·(T_d + T_a).
//   3. ACKs only: the host's data is out. The last data packet of its peer (which finished at the
//      same moment, by symmetry) needs (H - 1)·t_d + H·p more to arrive, and its ACK H·(t_a + p)
//      to get back.
//   CCT ≥ n1·T_d + (m - n1)·(T_d + T_a) + (H - 1)·t_d + H·p + H·(t_a + p).
// The gap is charged to every slot of the busy host link but not to the store-and-forward hops
// of the critical path. With 800 Gb/s, H = 6, p = 0.5 µs, 4096 + 62 B data frames, 64 B ACKs and
// a 20 B gap: L = 3249.48 ns, T_d = 41.78 ns, n1 = 78, and m = 256 gives 17056.94 ns — the
// paper's 17.05694 µs (appendix A; its htsim runs measure 17.0587 µs at k = 4). Serialising the
// last ACK once more at the receiver (H + 1 ACK serialisations) gives 17.0576 µs, the
// "straightforward reconstruction" ALGORITHMS.md mentions; the appendix does not.
#pragma once

#include <cstdint>

#include "net/wire.h"

namespace spraylab::gen {

struct PathModel {
  double rate_bps = 800e9;     // every link on the path, and the host's sending rate
  uint32_t hops = 6;           // links per path (H); 6 across the core of a 3-level fat tree
  double link_delay_ns = 500;  // propagation per link (p)
  uint32_t header_bytes = 62;  // per data packet on the wire, beyond the payload
  uint32_t ack_bytes = 64;     // an ACK frame
  uint32_t gap_bytes = net::kWireGapBytes;  // preamble + inter-frame gap per frame
};

struct CctBound {
  uint64_t packets = 0;            // m
  uint64_t data_only_packets = 0;  // n1
  double data_only_ns = 0;         // phase 1: n1 data slots
  double interleaved_ns = 0;       // phase 2: the other data slots and one ACK slot each
  double acks_only_ns = 0;         // phase 3: last data's remaining hops + its ACK's path
  double total_ns = 0;             // the bound: the sum of the three
};

// Serialisation time of `bytes` at `rate_bps`, in ns.
double serialisation_ns(double bytes, double rate_bps);

// The bound for a permutation of `message_bytes` per host, cut into packets of `payload_bytes`
// (the last may be shorter: its frame, and so its slot and hops, are shorter too).
CctBound permutation_cct_bound(const PathModel& path, uint64_t message_bytes,
                               uint32_t payload_bytes = 4096);

// The same for m full packets (the appendix's form).
CctBound permutation_cct_bound_packets(const PathModel& path, uint64_t packets,
                                       uint32_t payload_bytes = 4096);

}  // namespace spraylab::gen
