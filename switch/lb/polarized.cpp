#include "switch/lb/polarized.h"

#include <algorithm>
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
  if (ports() > kMaxCandidates) {
    throw std::invalid_argument("polarized: switch " + std::to_string(sw) + " has " +
                                std::to_string(ports()) + " fabric ports; at most " +
                                std::to_string(kMaxCandidates) + " are supported");
  }
  words_ = (ports() + 63) / 64;
  if (words_ == 0) words_ = 1;
  valid_.assign(words_, 0);
  for (uint32_t f = 0; f < ports(); ++f) valid_[f / 64] |= uint64_t{1} << (f % 64);
  PortId top = 0;
  for (PortId p : port_) top = std::max(top, p);
  fabric_index_.assign(static_cast<size_t>(top) + 1, kNoFabric);
  for (uint32_t f = 0; f < ports(); ++f) fabric_index_[port_[f]] = static_cast<uint16_t>(f);
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
      queues_(std::move(queues)),
      live_(table_->words(), 0) {}

const uint64_t* Polarized::live(const Packet& p) {
  const PolarizedTable& t = *table_;
  if (p.candidates == nullptr) return t.valid_words();  // every fabric port (tests, benchmarks)
  if (p.candidates == live_of_ && p.num_candidates == live_count_) return live_.data();
  std::fill(live_.begin(), live_.end(), 0);
  for (uint32_t i = 0; i < p.num_candidates; ++i) {
    const uint16_t f = t.fabric_index(p.candidates[i]);
    if (f != PolarizedTable::kNoFabric) live_[f / 64] |= uint64_t{1} << (f % 64);
  }
  live_of_ = p.candidates;
  live_count_ = p.num_candidates;
  return live_.data();
}

// The score of the lowest fabric port of mask m in word w: its depth (8 fractional bits), plus the
// penalty if it is a deroute.
uint64_t Polarized::score(const PolarizedTable& t, uint32_t w, uint64_t m, uint64_t deroute) const {
  const uint32_t f = w * 64 + static_cast<uint32_t>(std::countr_zero(m));
  const uint64_t bit = m & (0 - m);
  return (static_cast<uint64_t>(queues_.depth(t.port(f))) << 8) + ((deroute & bit) ? penalty_ : 0);
}

void Polarized::choose(std::span<const Packet> burst, const BurstContext& ctx, PortId* out) {
  const PolarizedTable& t = *table_;
  queues_.begin(ctx);
  for (size_t i = 0; i < burst.size(); ++i) {
    const Packet& p = burst[i];
    if (p.src_leaf >= t.leaves() || p.dst_leaf >= t.leaves()) {
      out[i] = kNoPort;  // no labels without both leaves: never read beyond the tables
      continue;
    }
    const uint64_t* to_s = t.closer(p.src_leaf);
    const uint64_t* to_t = t.closer(p.dst_leaf);
    const uint64_t* up = live(p);
    const bool expanding = t.distance(p.src_leaf) < t.distance(p.dst_leaf);
    // Away from s and toward t: Forward. Away from both: Expansion. Toward both: Contraction.
    uint64_t allowed[kMaxCandidates / 64], deroute[kMaxCandidates / 64];
    for (uint32_t w = 0; w < t.words(); ++w) {
      deroute[w] = (expanding ? ~to_s[w] & ~to_t[w] : to_s[w] & to_t[w]) & up[w];
      allowed[w] = (~to_s[w] & to_t[w] & up[w]) | deroute[w];
    }
    // The lowest score, then one draw among the ports that have it (in fabric-port order).
    uint64_t best = UINT64_MAX;
    uint32_t ties = 0;
    for (uint32_t w = 0; w < t.words(); ++w) {
      for (uint64_t m = allowed[w]; m != 0; m &= m - 1) {
        const uint64_t sc = score(t, w, m, deroute[w]);
        ties = sc < best ? 1 : ties + (sc == best);
        best = sc < best ? sc : best;
      }
    }
    PortId choice = kNoPort;
    if (ties != 0) {
      uint32_t r = ties == 1 ? 0 : ctx.rng->below(ties);
      for (uint32_t w = 0; w < t.words() && choice == kNoPort; ++w) {
        for (uint64_t m = allowed[w]; m != 0; m &= m - 1) {
          if (score(t, w, m, deroute[w]) == best && r-- == 0) {
            choice = t.port(w * 64 + static_cast<uint32_t>(std::countr_zero(m)));
            break;
          }
        }
      }
    }
    out[i] = choice;
    queues_.add(choice, p);
  }
  queues_.end({out, burst.size()});
}

}  // namespace spraylab::lb
