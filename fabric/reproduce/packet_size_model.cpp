#include "fabric/reproduce/packet_size_model.h"

#include <cmath>

namespace spraylab::fabric {

double PacketSizeModel::cct_ns(double payload_bytes) const {
  const double packet = payload_bytes + header_bytes;  // P
  const double bytes = message_bytes * packet / payload_bytes + alpha * packet;
  return latency_ns + bytes * 8 / rate_bps * 1e9;
}

double PacketSizeModel::best_payload_bytes() const {
  return std::sqrt(message_bytes * header_bytes / alpha);
}

}  // namespace spraylab::fabric
