// Routing data over the switch graph: all-pairs switch distances, minimal next hops toward every
// leaf, Polarized labels (MRLS paper §4.3) and corner detection.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "topo/topology.h"

namespace spraylab::topo {

inline constexpr uint8_t kUnreachable = 0xff;

class KspPaths;

// The switch-to-switch graph in compressed sparse rows. Switches are renumbered 0..S-1
// ("switch index") in Topology::switches() order; host links are left out.
class SwitchGraph {
 public:
  explicit SwitchGraph(const Topology& t);

  uint32_t size() const { return static_cast<uint32_t>(node_of_.size()); }
  NodeId node_of(uint32_t sw) const { return node_of_[sw]; }
  // Switch index of a node, or UINT32_MAX for a host.
  uint32_t index_of(NodeId n) const { return index_of_[n]; }
  // Neighbours of switch `sw` as [begin, end) into neighbour()/port().
  uint32_t begin(uint32_t sw) const { return offset_[sw]; }
  uint32_t end(uint32_t sw) const { return offset_[sw + 1]; }
  uint32_t neighbour(uint32_t e) const { return neighbour_[e]; }
  PortId port(uint32_t e) const { return port_[e]; }
  uint32_t edges() const { return static_cast<uint32_t>(neighbour_.size()); }

 private:
  std::vector<NodeId> node_of_;
  std::vector<uint32_t> index_of_;
  std::vector<uint32_t> offset_;
  std::vector<uint32_t> neighbour_;
  std::vector<PortId> port_;
};

// Polarized link classes: (Δd(·,s), Δd(·,t)) of a hop from c to n (MRLS paper §4.3).
enum class PolarizedLabel : uint8_t {
  kForward,      // (+1, −1): always allowed
  kExpansion,    // (+1, +1): allowed only while d(s,c) < d(c,t)
  kContraction,  // (−1, −1): allowed only once d(s,c) ≥ d(c,t)
  kBacktrack,    // (−1, +1): never allowed
};
const char* to_string(PolarizedLabel l);

struct PolarizedHop {
  PortId port;
  uint32_t next;  // switch index of the neighbour
  bool deroute;   // Expansion or Contraction
};

// A switch c with no allowed Polarized hop for some source leaf s (and a destination t).
struct Corner {
  uint32_t src_leaf;  // switch indices
  uint32_t sw;
};

class Routing {
 public:
  // Computes all-pairs switch distances by one BFS per switch, spread over the machine's cores.
  // Throws TopologyError for switches 255 or more hops apart (a distance is a byte).
  explicit Routing(const Topology& t);

  const Topology& topology() const { return topo_; }
  const SwitchGraph& graph() const { return graph_; }
  // Switch indices of the leaves (switches with hosts), ascending.
  const std::vector<uint32_t>& leaves() const { return leaves_; }
  bool is_leaf(uint32_t sw) const { return leaf_rank_[sw] != UINT32_MAX; }
  // Position of a leaf in leaves(), or UINT32_MAX.
  uint32_t leaf_rank(uint32_t sw) const { return leaf_rank_[sw]; }

  // Hop distance between two switches (switch indices), kUnreachable if disconnected.
  uint8_t distance(uint32_t a, uint32_t b) const {
    return dist_[static_cast<size_t>(a) * graph_.size() + b];
  }
  bool connected() const { return connected_; }

  // Minimal next hops from switch `sw` toward leaf `dst`: neighbours one hop closer.
  std::vector<PolarizedHop> minimal_hops(uint32_t sw, uint32_t dst) const;

  PolarizedLabel label(uint32_t src, uint32_t sw, uint32_t next, uint32_t dst) const;
  // The hops Polarized routing allows at `sw` for a packet from leaf `src` to leaf `dst`.
  std::vector<PolarizedHop> polarized_hops(uint32_t src, uint32_t sw, uint32_t dst) const;

  // Every (s, c) pair for which c is a corner. A corner needs d(s,c) < d(c,t) for some leaf t
  // (else a Forward or Contraction hop exists) and every neighbour of c closer to s (no Forward
  // or Expansion hop), so one scan per source leaf finds them all. Stops after `limit`.
  std::vector<Corner> corners(size_t limit = SIZE_MAX) const;

  // The K shortest paths of every ordered leaf pair (ksp_paths.h), built on the first call for
  // this K and shared by every later caller: every switch of a fabric reads the same set, so a
  // path label means the same path everywhere. Throws std::invalid_argument as KspPaths does.
  std::shared_ptr<const KspPaths> ksp_paths(uint32_t k) const;

 private:
  const Topology& topo_;
  SwitchGraph graph_;
  std::vector<uint8_t> dist_;
  std::vector<uint32_t> leaves_;
  std::vector<uint32_t> leaf_rank_;
  bool connected_ = true;
  mutable std::mutex ksp_lock_;
  mutable std::map<uint32_t, std::shared_ptr<const KspPaths>> ksp_;  // by K
};

}  // namespace spraylab::topo
