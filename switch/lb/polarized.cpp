#include "switch/lb/polarized.h"

#include <bit>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

namespace spraylab::lb {

PolarizedTable::PolarizedTable(const topo::Routing& routing, uint32_t sw) {
  const topo::SwitchGraph& g = routing.graph();
  const std::vector<uint32_t>& leaves = routing.leaves();
  std::vector<uint32_t> neighbour;
  for (uint32_t e = g.begin(sw); e < g.end(sw); ++e) {
    port_.push_back(g.port(e));
    neighbour.push_back(g.neighbour(e));
  }
  words_ = (ports() + 63) / 64;
  if (words_ == 0) words_ = 1;
  valid_.assign(words_, 0);
  for (uint32_t f = 0; f < ports(); ++f) valid_[f / 64] |= uint64_t{1} << (f % 64);
  closer_.assign(static_cast<size_t>(leaves.size()) * words_, 0);
  distance_.resize(leaves.size());
  for (uint32_t l = 0; l < leaves.size(); ++l) {
    const uint8_t here = routing.distance(sw, leaves[l]);
    distance_[l] = here;
    for (uint32_t f = 0; f < ports(); ++f) {
      const uint8_t there = routing.distance(neighbour[f], leaves[l]);
      if (there == here) {
        throw std::invalid_argument("polarized: switch " + std::to_string(sw) +
                                    " has a neighbour at its own distance to leaf " +
                                    std::to_string(leaves[l]) + ": the graph is not leveled");
      }
      if (there < here)
        closer_[static_cast<size_t>(l) * words_ + f / 64] |= uint64_t{1} << (f % 64);
    }
  }
}

Polarized::Polarized(std::shared_ptr<const PolarizedTable> table, double penalty,
                     BurstQueues queues)
    : table_(std::move(table)),
      penalty_(static_cast<uint64_t>(std::llround(penalty * 256))),
      queues_(std::move(queues)) {}

void Polarized::choose(std::span<const Packet> burst, const BurstContext& ctx, PortId* out) {
  const PolarizedTable& t = *table_;
  queues_.begin(ctx);
  for (size_t i = 0; i < burst.size(); ++i) {
    const Packet& p = burst[i];
    const uint64_t* to_s = t.closer(p.src_leaf);
    const uint64_t* to_t = t.closer(p.dst_leaf);
    const bool expanding = t.distance(p.src_leaf) < t.distance(p.dst_leaf);
    uint64_t best = UINT64_MAX;
    uint32_t ties = 0;
    PortId choice = kNoPort;
    for (uint32_t w = 0; w < t.words(); ++w) {
      // Away from s and toward t: Forward. Away from both: Expansion. Toward both: Contraction.
      const uint64_t forward = ~to_s[w] & to_t[w];
      const uint64_t deroute = (expanding ? ~to_s[w] & ~to_t[w] : to_s[w] & to_t[w]) & t.valid(w);
      for (uint64_t m = forward | deroute; m != 0; m &= m - 1) {
        const uint32_t f = w * 64 + static_cast<uint32_t>(std::countr_zero(m));
        const PortId port = t.port(f);
        const uint64_t bit = m & (0 - m);
        const uint64_t score =
            (static_cast<uint64_t>(queues_.depth(port)) << 8) + ((deroute & bit) ? penalty_ : 0);
        if (score < best) {
          best = score;
          ties = 1;
          choice = port;
        } else if (score == best && ctx.rng->below(++ties) == 0) {
          choice = port;  // reservoir sampling: uniform among the tied ports
        }
      }
    }
    out[i] = choice;
    queues_.add(choice, p);
  }
  queues_.end({out, burst.size()});
}

}  // namespace spraylab::lb
