#include "switch/lb/ugal.h"

#include <algorithm>
#include <utility>

namespace spraylab::lb {

Ugal::Ugal(std::shared_ptr<const DragonflyTable> table, uint32_t packet, size_t ports,
           BurstQueues queues)
    : table_(std::move(table)), packet_(packet), live_(ports), queues_(std::move(queues)) {}

uint32_t Ugal::draw_middle(uint32_t a, uint32_t b, Rng& rng) const {
  const topo::DragonflyGroups& g = table_->groups();
  const uint32_t lo = std::min(a, b), hi = std::max(a, b);
  const uint32_t others = g.groups() - (lo == hi ? 1 : 2);
  uint32_t group = rng.below(others);
  if (group >= lo) ++group;  // skip the two excluded groups, lowest first
  if (lo != hi && group >= hi) ++group;
  const std::span<const uint32_t> leaves = g.leaves_of(group);
  return leaves[rng.below(static_cast<uint32_t>(leaves.size()))];
}

PortId Ugal::at_entry(const Packet& p, Rng& rng, uint16_t& label) {
  const DragonflyTable& t = *table_;
  const std::span<const PortId> minimal = t.toward(p.dst_leaf);
  LowestScore best;  // scores carry 8 fractional bits, so the Valiant mean is not rounded away
  for (PortId port : minimal) {
    if (live_.live(port)) best.offer(port, uint64_t{queues_.depth(port)} << 8, rng);
  }
  label = 0;
  const topo::DragonflyGroups& g = t.groups();
  const uint32_t middle = draw_middle(g.group_of_leaf(p.src_leaf), g.group_of_leaf(p.dst_leaf), rng);
  // The Valiant candidates: one drawn uniformly (they all score alike), and their score, the
  // mean depth of those that are not minimal ports too (CAMINOS `exclude_minimal_ports`), or of
  // all of them when every one is.
  PortId valiant = kNoPort;
  uint64_t sum = 0, all_sum = 0;
  uint32_t count = 0, all_count = 0;
  for (PortId port : t.toward(middle)) {
    if (!live_.live(port)) continue;
    const uint32_t d = queues_.depth(port);
    all_sum += d;
    if (rng.below(++all_count) == 0) valiant = port;
    if (std::find(minimal.begin(), minimal.end(), port) == minimal.end()) {
      sum += d;
      ++count;
    }
  }
  if (count == 0) {
    sum = all_sum;
    count = all_count;
  }
  if (valiant == kNoPort) return best.port();
  const uint64_t valiant_score = (kValiantWeight * (sum << 8)) / count + (packet_ << 8);
  bool take_valiant = best.port() == kNoPort || valiant_score < best.score();
  if (!take_valiant && valiant_score == best.score()) {
    // Uniform over every tied candidate: the minimal ports at the lowest score and the Valiant ones.
    take_valiant = rng.below(best.ties() + all_count) < all_count;
  }
  if (!take_valiant) return best.port();
  label = static_cast<uint16_t>(middle + 1);
  return valiant;
}

PortId Ugal::in_transit(const Packet& p, Rng& rng, uint16_t& label) {
  const DragonflyTable& t = *table_;
  if (label == 0) return least_deep_live(t.toward(p.dst_leaf), live_, queues_, rng);
  if (label == kSecondLeg) return random_live(t.toward(p.dst_leaf), live_, rng);
  const uint32_t middle = label - 1u;
  if (middle >= t.leaves()) return kNoPort;  // a label no source wrote
  if (middle == t.leaf_rank()) {
    label = kSecondLeg;
    return random_live(t.toward(p.dst_leaf), live_, rng);
  }
  return random_live(t.toward(middle), live_, rng);
}

void Ugal::choose(std::span<const Packet> burst, const BurstContext& ctx, PortId* out) {
  const DragonflyTable& t = *table_;
  queues_.begin(ctx);
  Rng rng = *ctx.rng;
  for (size_t i = 0; i < burst.size(); ++i) {
    const Packet& p = burst[i];
    uint16_t label = p.path_label;
    PortId port = kNoPort;
    if (p.src_leaf < t.leaves() && p.dst_leaf < t.leaves() && p.dst_leaf != t.leaf_rank()) {
      live_.mark(p);
      port = t.host_port(p.ingress_port) ? at_entry(p, rng, label) : in_transit(p, rng, label);
    }
    out[i] = port;
    if (ctx.path_labels != nullptr) ctx.path_labels[i] = label;
    queues_.add(port, p);
  }
  *ctx.rng = rng;
  queues_.end({out, burst.size()});
}

}  // namespace spraylab::lb
