#include "trafficgen/cct_bound.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace spraylab::gen {

double serialisation_ns(double bytes, double rate_bps) { return bytes * 8.0 / rate_bps * 1e9; }

CctBound permutation_cct_bound(const PathModel& path, uint64_t message_bytes,
                               uint32_t payload_bytes) {
  if (message_bytes == 0 || payload_bytes == 0 || path.hops == 0 || !(path.rate_bps > 0)) {
    throw std::invalid_argument("cct bound: message, payload, hops and rate must be positive");
  }
  const double r = path.rate_bps;
  const uint64_t m = (message_bytes + payload_bytes - 1) / payload_bytes;
  const uint64_t last_payload = message_bytes - (m - 1) * payload_bytes;
  const double t_full = serialisation_ns(payload_bytes + path.header_bytes, r);
  const double t_last = serialisation_ns(static_cast<double>(last_payload) + path.header_bytes, r);
  const double t_first = m == 1 ? t_last : t_full;
  const double t_a = serialisation_ns(path.ack_bytes, r);
  const double g = serialisation_ns(path.gap_bytes, r);
  const double h = path.hops;
  const double p = path.link_delay_ns;

  CctBound b;
  b.packets = m;
  // Phase 1: slots i·T_d (all full but possibly the last) that start before the first ACK exists.
  const double first_ack = h * (t_first + p);
  const auto started = static_cast<uint64_t>(std::ceil(first_ack / (t_full + g)));
  b.data_only_packets = std::min(m, started);
  const uint64_t n1 = b.data_only_packets;
  const double last_slot = t_last + g;
  if (n1 == m) {
    b.data_only_ns = (m - 1) * (t_full + g) + last_slot;
  } else {
    b.data_only_ns = n1 * (t_full + g);
    // Phase 2: the remaining data slots, the last possibly short, each with one ACK slot.
    b.interleaved_ns = (m - n1 - 1) * (t_full + g) + last_slot + (m - n1) * (t_a + g);
  }
  // Phase 3: the peer's last data packet crosses the other H-1 links, then its ACK all H.
  b.acks_only_ns = (h - 1) * t_last + h * p + h * (t_a + p);
  b.total_ns = b.data_only_ns + b.interleaved_ns + b.acks_only_ns;
  return b;
}

CctBound permutation_cct_bound_packets(const PathModel& path, uint64_t packets,
                                       uint32_t payload_bytes) {
  return permutation_cct_bound(path, packets * payload_bytes, payload_bytes);
}

}  // namespace spraylab::gen
