#include "switch/lb/ar.h"

namespace spraylab::lb {

void Ar::choose(std::span<const Packet> burst, const BurstContext& ctx, PortId* out) {
  choose_lowest_key(burst, ctx, out, queues_, set_, band_, low_, [this](uint32_t j) {
    return ar_band(set_.depth[j], queues_.capacity(set_.ports[j]));
  });
}

}  // namespace spraylab::lb
