// The one list of load balancers: each algorithm's name, the experiment-file parameters it takes,
// its own defaults and the traits the data path reads. The YAML schema, the factory, the switch's
// route tables and forwarder, the CLI, the benchmarks and the docs test all read it; no algorithm
// name is spelled anywhere else, and nothing outside this list compares algorithms by name.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "conf/name_list.h"

namespace spraylab::lb {

enum class Algorithm : uint8_t {
  kEcmp,
  kRps,
  kRr,
  kJsq,
  kAr,
  kTopk,
  kPsp,
  kOfan,
  kPofan,
  kPolarized,
  kKsp,
  kDragonflyMin,
  kUgal,
  kFpar,
};

// What of a Packet an algorithm reads, each set inside the next: the forwarder fills only these
// fields (lb::Packet's others hold whatever an earlier burst left). An algorithm stays kAll until
// tests/lb shows it reads less (Factory.AnAlgorithmReadsOnlyItsInputs: garbage in every other
// field leaves its choices as they were).
enum class Inputs : uint8_t {
  kCandidates,  // candidates, num_candidates
  kBytes,       // and bytes (the queue-aware algorithms' depth growth)
  kDestBytes,   // and dest (Ofan's key)
  kAll,
};

// What the data path must prepare for an algorithm, so that it asks a trait, never a name.
struct Traits {
  // Reads queue depths: takes `queue_unit` and `state_update` besides its own parameters.
  bool queue_depths = false;
  // Reads Packet::hash; the forwarder computes the flow hash only for these.
  bool flow_hash = false;
  // Reads Packet::src_leaf; the forwarder looks up the source leaf only for these.
  bool source_leaf = false;
  // Chooses among every fabric port by its own labels rather than among the minimal next hops:
  // its route groups hold every fabric port (so a switch cannot change to or from it at run time),
  // and a packet with a single live candidate still goes to it.
  bool every_fabric_port = false;
  // Keeps an order of every destination's candidate ports (SwitchContext::dest_ports): only
  // these are given the lists, which are O(destinations x ports) a switch (an MRLS of 100 K hosts
  // has 14 580 switches x 8 748 leaves).
  bool destination_orders = false;
  // Routes by a path label the frame carries (lb/ksp.h): the forwarder reads it into
  // Packet::path_label and writes back what the balancer leaves in BurstContext::path_labels.
  bool path_label = false;
  // Routes by a Dragonfly's groups (topo/dragonfly_groups.h): the loader refuses it on any
  // topology the dragonfly or dragonfly-plus generator did not make.
  bool dragonfly = false;
  // The fields of a Packet it reads: the forwarder writes no others (eight stores and the loads
  // behind them a packet for rps).
  Inputs inputs = Inputs::kAll;
};

// The queue-aware algorithms' own defaults; the rest of BalancerSpec's defaults are common.
struct AlgorithmDefaults {
  uint32_t bands = 0;
  uint64_t state_update_ns = 0;
  uint32_t k = 0;
};

struct AlgorithmInfo {
  Algorithm id;
  std::string_view name;  // as written in the experiment YAML (`load_balancer.algorithm`)
  Traits traits;
  // Its own keys of `load_balancer`, space-separated, in the order messages list them
  // (queue-depth readers also take kQueueKeys, listed after these).
  std::string_view keys;
  AlgorithmDefaults defaults;
  std::string_view summary;
};

// The parameters of every algorithm that reads queue depths.
inline constexpr std::string_view kQueueKeys = "state_update queue_unit";

inline constexpr std::array<AlgorithmInfo, 14> kAlgorithms{{
    {Algorithm::kEcmp,
     "ecmp",
     {.flow_hash = true},
     "hash",
     {},
     "hash of the flow entropy modulo w"},
    {Algorithm::kRps,
     "rps",
     {.inputs = Inputs::kCandidates},
     "",
     {},
     "uniform random port per packet"},
    {Algorithm::kRr,
     "rr",
     {.inputs = Inputs::kCandidates},
     "reshuffle_every",
     {},
     "SimpleRR: one round-robin counter, optional reshuffle"},
    {Algorithm::kJsq,
     "jsq",
     {.queue_depths = true, .inputs = Inputs::kBytes},
     "bands threshold",
     {},
     "join the shortest queue, exact or banded"},
    // htsim's AR refreshes its quantised state every 100 ns (ALGORITHMS.md), and hashes frames
    // under 100 B (ACKs) as ECMP does: it reads the flow hash too.
    {Algorithm::kAr,
     "ar",
     {.queue_depths = true, .flow_hash = true},
     "",
     {.state_update_ns = 100},
     "htsim adaptive routing: 5/10/20% bands"},
    {Algorithm::kTopk,
     "topk",
     {.queue_depths = true, .inputs = Inputs::kBytes},
     "k",
     {},
     "uniform among the k shortest queues"},
    // PSP §3: n bands; the paper's evaluation uses n = 4. Its scheduler acts on queue state
    // reported once per period, never on its own choices in between (§II, §IV: 20 µs stale, 1 µs
    // "near real time"): the default is the near-real-time 1 µs snapshot (`state_update: 0`
    // still gives the live view that also counts the burst's own choices).
    {Algorithm::kPsp,
     "psp",
     {.queue_depths = true, .inputs = Inputs::kBytes},
     "bands threshold saturated_weight",
     {.bands = 4, .state_update_ns = 1000},
     "probabilistic state-proportional selection"},
    {Algorithm::kOfan,
     "ofan",
     {.destination_orders = true, .inputs = Inputs::kDestBytes},
     "ack_size atomic_per_packet consolidate",
     {},
     "shared per-destination rotation, combined per burst"},
    {Algorithm::kPofan,
     "pofan",
     {.destination_orders = true},
     "ack_size pipe consolidate",
     {},
     "per-pipe per-destination rotation"},
    {Algorithm::kPolarized,
     "polarized",
     {.queue_depths = true, .source_leaf = true, .every_fabric_port = true},
     "deroute_penalty",
     {},
     "MRLS Polarized routing"},
    // MRLS paper §4.3.1: K = 250 paths per leaf pair in its runs.
    {Algorithm::kKsp,
     "ksp",
     {.queue_depths = true,
      .source_leaf = true,
      .every_fabric_port = true,
      .path_label = true},
     "k deroute_penalty",
     {.k = 250},
     "MRLS K shortest paths, adaptive at the first hop"},
    // The MRLS paper's Dragonfly routings (§5, Table 2; docs/algorithms.md).
    {Algorithm::kDragonflyMin,
     "dragonfly-min",
     {.every_fabric_port = true, .dragonfly = true},
     "",
     {},
     "Dragonfly minimal routing, random among minimal ports"},
    {Algorithm::kUgal,
     "ugal",
     {.queue_depths = true,
      .source_leaf = true,
      .every_fabric_port = true,
      .path_label = true,
      .dragonfly = true},
     "",
     {},
     "Dragonfly UGAL-L: minimal or Valiant at the source"},
    {Algorithm::kFpar,
     "fpar",
     {.queue_depths = true, .source_leaf = true, .every_fabric_port = true, .dragonfly = true},
     "",
     {},
     "Dragonfly+ FPAR: progressive deroutes in the source group"},
}};

constexpr bool table_in_enum_order() {
  for (size_t i = 0; i < kAlgorithms.size(); ++i) {
    if (static_cast<size_t>(kAlgorithms[i].id) != i) return false;
  }
  return true;
}
static_assert(table_in_enum_order(), "kAlgorithms is indexed by Algorithm");

inline constexpr std::array<std::string_view, kAlgorithms.size()> kAlgorithmNames = [] {
  std::array<std::string_view, kAlgorithms.size()> names{};
  for (size_t i = 0; i < kAlgorithms.size(); ++i) names[i] = kAlgorithms[i].name;
  return names;
}();

// Suffix of the benchmark name of Ofan's per-packet-atomic baseline ("ofan" + this).
inline constexpr std::string_view kAtomicSuffix = "_atomic";

constexpr const AlgorithmInfo& info(Algorithm a) { return kAlgorithms[static_cast<size_t>(a)]; }
constexpr const Traits& traits(Algorithm a) { return info(a).traits; }
constexpr std::string_view to_string(Algorithm a) { return info(a).name; }
constexpr std::optional<Algorithm> algorithm_from_name(std::string_view name) {
  for (const AlgorithmInfo& i : kAlgorithms) {
    if (i.name == name) return i.id;
  }
  return std::nullopt;
}

// The unit a queue-aware algorithm reads depths in (`queue_unit`).
enum class QueueUnit : uint8_t { kPackets, kBytes };
struct QueueUnitInfo {
  QueueUnit id;
  std::string_view name;
};
inline constexpr std::array<QueueUnitInfo, 2> kQueueUnitTable{
    {{QueueUnit::kPackets, "packets"}, {QueueUnit::kBytes, "bytes"}}};
static_assert(names::in_enum_order(kQueueUnitTable));
inline constexpr std::array<std::string_view, 2> kQueueUnitNames = names::names_of(kQueueUnitTable);
constexpr std::string_view to_string(QueueUnit u) {
  return kQueueUnitNames[static_cast<size_t>(u)];
}

// How ECMP maps a packet to a port (`hash`): `mix`, a salted hash of the flow's 5-tuple (the
// default: what switches do); `digit`, the entropy (UDP source port - 49152) read as a number in
// base w, a switch at level L taking digit L: so a host that rotates its entropy over w^levels
// values visits every up-path once per turn (DRB over ECMP switches, docs/algorithms.md).
enum class EcmpHash : uint8_t { kMix, kDigit };
struct EcmpHashInfo {
  EcmpHash id;
  std::string_view name;
};
inline constexpr std::array<EcmpHashInfo, 2> kEcmpHashTable{
    {{EcmpHash::kMix, "mix"}, {EcmpHash::kDigit, "digit"}}};
static_assert(names::in_enum_order(kEcmpHashTable));
inline constexpr std::array<std::string_view, 2> kEcmpHashNames = names::names_of(kEcmpHashTable);

// What an Ofan or pOfan aggregation switch keys traffic leaving its pod by (`consolidate`):
// `pod`, the destination pod, one pointer shared by every leaf of that pod (Ofan §4.1, the
// default); `leaf`, the destination edge switch, as edge switches key: Ofan without the
// aggregation switches' consolidation (the Ofan paper's Figure 6 split of the gap to DRB).
enum class Consolidate : uint8_t { kPod, kLeaf };
struct ConsolidateInfo {
  Consolidate id;
  std::string_view name;
};
inline constexpr std::array<ConsolidateInfo, 2> kConsolidateTable{
    {{Consolidate::kPod, "pod"}, {Consolidate::kLeaf, "leaf"}}};
static_assert(names::in_enum_order(kConsolidateTable));
inline constexpr std::array<std::string_view, 2> kConsolidateNames =
    names::names_of(kConsolidateTable);

// Polarized's default deroute penalty, in packets (CAMINOS' MRLS runs: 80 phits, 5 packets of 16;
// under `queue_unit: bytes` the factory scales it by the data frame).
inline constexpr double kDefaultDeroutePenalty = 5;

}  // namespace spraylab::lb
