// Ofan Theorem 6 (§4.2, appendix G): the CCT model behind the packet-size sweet spot. A message
// of m bytes goes out in packets of P bytes on the wire, H of them header and inter-frame gap
// (P - H of payload), at rate C, behind a queue of alpha packets of size P ("for DR schemes the
// paper models O(1) network queueing as a constant number of packets"); a zero-load RTT that
// does not depend on P is added:
//   CCT(P) = RTT0 + (m · P / (P − H) + alpha · P) / C,
// strictly convex for P > H, minimised at P* = H + sqrt(m · H / alpha). A reproduction draws it
// beside a measured CCT over the payload (docs/reproduce.md, `models:`).
#pragma once

namespace spraylab::fabric {

struct PacketSizeModel {
  double message_bytes = 0;  // m
  double header_bytes = 0;   // H: a packet's bytes on the wire beyond its payload
  double rate_bps = 0;       // C
  double alpha = 1;          // packets of queueing in front of the message
  double latency_ns = 0;     // the zero-load RTT, independent of P

  // The model's CCT for packets of `payload_bytes` (P − H) of payload.
  double cct_ns(double payload_bytes) const;
  // The payload of Theorem 6's optimum, P* − H = sqrt(m · H / alpha).
  double best_payload_bytes() const;
};

}  // namespace spraylab::fabric
