// The experiment file as typed structs. The loader (conf/loader.h) fills these from YAML and
// validates every value; everything downstream sees only these structs.
// Every key is documented, with its default, in docs/configuration.md.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "conf/name_list.h"
#include "switch/lb/algorithm.h"
#include "topo/kind.h"
#include "trafficgen/cc_mode.h"
#include "trafficgen/entropy_mode.h"
#include "trafficgen/injection_mode.h"
#include "trafficgen/workloads/fsdp_spec.h"
#include "trafficgen/workloads/workload_type.h"

namespace spraylab::conf {

// One load balancer and its parameters (ALGORITHMS.md; docs/algorithms.md).
// Only the keys of the chosen algorithm may appear in the file; the rest keep their defaults
// (the algorithm's own ones, lb::AlgorithmInfo::defaults, applied by the loader).
struct BalancerSpec {
  // ksp's k at most: topo::KspPaths::kMaxK (asserted equal in switch/lb/factory.cpp).
  static constexpr uint32_t kKspMaxK = 65534;

  lb::Algorithm algorithm = lb::Algorithm::kEcmp;
  // Queue depth unit the algorithm reads (lb::Traits::queue_depths).
  lb::QueueUnit queue_unit = lb::QueueUnit::kPackets;
  // Queue view refresh period; 0 = live (lb::Traits::queue_depths).
  uint64_t state_update_ns = 0;
  uint32_t reshuffle_every = 0;   // rr: reshuffle the order every N wraps, 0 = never
  uint32_t bands = 0;             // jsq: 0 = exact; psp: n
  uint32_t k = 0;                 // topk: 0 = w/2; ksp: 1 .. kKspMaxK
  uint64_t threshold = 0;         // psp, jsq: Th in the queue unit; 0 = lb/band_thresholds.h
  uint32_t saturated_weight = 1;  // psp: weight of a queue at or beyond Th (0 excludes it)
  uint32_t pipe_ports = 0;        // pofan: W of `pipe: ports:W`; 0 = `pipe: queue`
  uint32_t ack_size = 128;        // ofan, pofan: packets under this many bytes are ACK class
  // polarized: added to a deroute's occupancy, in packets (scaled by the frame for bytes)
  double deroute_penalty = lb::kDefaultDeroutePenalty;
  bool atomic_per_packet = false;  // ofan: per-packet atomics (benchmark baseline only)
  lb::EcmpHash ecmp_hash = lb::EcmpHash::kMix;          // ecmp: `hash`, mix or digit
  lb::Consolidate consolidate = lb::Consolidate::kPod;  // ofan, pofan: aggregation switches' key
};

// `load_balancer.upgrade`: incremental deployment (the Ofan paper's §6.4). A share of the edge
// and aggregation switches (levels 0 and 1) runs `balancer`; which ones, `strategy` says
// (topo/upgrade.h resolves it on the topology, with the experiment seed).
enum class UpgradeStrategy : uint8_t { kEdge, kAggregation, kRandom, kPods };
struct UpgradeStrategyInfo {
  UpgradeStrategy id;
  std::string_view name;
};
inline constexpr std::array<UpgradeStrategyInfo, 4> kUpgradeStrategyTable{
    {{UpgradeStrategy::kEdge, "edge"},
     {UpgradeStrategy::kAggregation, "aggregation"},
     {UpgradeStrategy::kRandom, "random"},
     {UpgradeStrategy::kPods, "pods"}}};
static_assert(names::in_enum_order(kUpgradeStrategyTable));
inline constexpr std::array<std::string_view, 4> kUpgradeStrategyNames =
    names::names_of(kUpgradeStrategyTable);
struct UpgradeSpec {
  BalancerSpec balancer;
  UpgradeStrategy strategy = UpgradeStrategy::kEdge;
  double fraction = 0.5;  // of the edge and aggregation switches together
};

// Where a balancer applies. Precedence: per switch, then the upgrade, then per layer, then the
// default.
struct BalancerPlan {
  BalancerSpec fallback;                           // `load_balancer:` top-level keys
  std::map<uint32_t, BalancerSpec> per_layer;      // `load_balancer.layers.<level>`
  std::map<std::string, BalancerSpec> per_switch;  // `load_balancer.switches.<name>`
  // Where each per_switch name is written (1-based line and column): a generated topology's
  // names are known once it is built, and checked then (fabric/run/variants.cpp).
  struct KeyAt {
    int line = 0, column = 0;
  };
  std::map<std::string, KeyAt> per_switch_at;
  std::optional<UpgradeSpec> upgrade;  // `load_balancer.upgrade`
  const BalancerSpec& for_switch(const std::string& name, uint32_t level) const;
};

struct ExplicitSwitch {
  std::string name;
  uint32_t level = 0;
};
struct ExplicitLink {
  std::string a;
  std::string b;
  std::optional<double> rate_bps;  // default: links.rate
  std::optional<double> delay_ns;  // default: links.delay
  int line = 0;                    // where it was written, for errors found later
};

struct TopologySpec {
  // How the topology is made (topo/kind.h); kExplicit: switches/hosts/links given.
  topo::Kind generator = topo::Kind::kFatTree;
  // fat-tree
  uint32_t k = 4;
  uint32_t levels = 2;
  uint32_t pods = 0;  // 4 levels: the pods built, 0 = all k (topo::FatTreeParams)
  // leaf-spine
  uint32_t leaves = 4;
  uint32_t spines = 2;
  uint32_t hosts_per_leaf = 2;
  // mrls (uses leaves too)
  uint32_t uplinks = 3;
  uint32_t downlinks = 3;
  uint64_t seed = 1;  // default: the experiment seed
  uint32_t max_tries = 100;
  // dragonfly (p, a, h; Kim et al.)
  uint32_t hosts_per_router = 1;
  uint32_t routers_per_group = 2;
  uint32_t global_links_per_router = 1;
  // dragonfly, dragonfly-plus: 0 = the balanced maximum (topo/generators.h)
  uint32_t groups = 0;
  // dragonfly-plus (uses hosts_per_leaf too)
  uint32_t leaves_per_group = 2;
  uint32_t spines_per_group = 2;
  uint32_t global_links_per_spine = 1;
  // oft (uses hosts_per_leaf too): the projective plane's order, a prime
  uint32_t q = 2;
  // explicit
  std::vector<ExplicitSwitch> switches;
  std::vector<std::string> hosts;
  std::vector<ExplicitLink> links;
};

struct LinkSpec {
  double rate_bps = 100e9;  // `rate: 100Gbps`
  double delay_ns = 500;    // `delay: 500ns`
};

// buffer.flow_control: what a full buffer does. none: tail drop (lossy Ethernet); pfc: 802.1Qbb
// pause per ingress port (switch/dataplane/pfc.h); credit: credit-based links, a sender starts a
// frame only with credits for its bytes in the receiver's buffer (switch/dataplane/credit.h).
enum class FlowControl : uint8_t { kNone, kPfc, kCredit };
inline constexpr std::array<std::string_view, 3> kFlowControlNames{"none", "pfc", "credit"};

// buffer.pfc: each ingress port's thresholds in bytes; 0 = derived (conf/buffer_defaults.h).
struct PfcSpec {
  uint64_t xoff = 0;
  uint64_t xon = 0;
  uint64_t headroom = 0;
};

// buffer.credit: every link receiver's buffer (a switch's per ingress port, a host NIC's), which
// its sender holds credits for, in bytes (0 = derived, conf/buffer_defaults.h), counted in units
// of `unit` bytes (a frame takes its bytes rounded up to whole units).
struct CreditSpec {
  uint64_t bytes = 0;
  uint64_t unit = 64;
};

struct BufferSpec {
  uint64_t bytes = 800'000;    // per egress port
  uint64_t ecn_threshold = 0;  // bytes; 0 = no ECN marking
  // Above ecn_threshold, marking is random up to here (probability rising linearly to 1); 0 or
  // at most ecn_threshold: every frame beyond ecn_threshold is marked.
  uint64_t ecn_high = 0;
  // Trimming: data frames beyond trim_threshold bytes are cut to their headers (net/trim.h).
  bool trim = false;
  uint64_t trim_threshold = 0;
  FlowControl flow_control = FlowControl::kNone;
  PfcSpec pfc;
  CreditSpec credit;
  // Virtual channels of every lossless link (pfc or credit): a buffer per VC at every receiver,
  // hop h of a route in VC floor(h / 2) (MRLS §4.3; net/virtual_channel.h). 1: one buffer a link.
  uint8_t virtual_channels = 1;
  // virtual_channels at most: the PFC classes a pause frame names (802.1Qbb), and more than any
  // route here needs (Polarized's bound 2D* - 2 hops: 4 VCs for D* = 5).
  static constexpr uint8_t kMaxVirtualChannels = 8;
  // cc: dctcp without an ecn_threshold in the file marks beyond this share of `bytes`.
  static constexpr double kDctcpEcnShare = 0.2;
  // The UEC reference's defaults (main_uec.cpp), in bandwidth-delay products of the longest
  // host-to-host path: the buffer with and without trimming, and NSCC's marking thresholds.
  static constexpr double kTrimBufferBdp = 1;
  static constexpr double kDropBufferBdp = 5;
  static constexpr double kUecEcnLowBdp = 0.2;
  static constexpr double kUecEcnHighBdp = 0.8;
  // A data frame's bytes beyond its payload (Ethernet, IPv4, UDP, testbed header; FCS not
  // counted, as the buffer does not count it), and an ACK's, on the wire with FCS: the BDP's
  // inputs (trafficgen/host_plan.h checks them against the generator's own).
  static constexpr uint32_t kFrameHeaderBytes = 82;
  static constexpr uint32_t kFcsBytes = 4;
  // What a frame takes on the wire beyond its FCS (preamble and SFD 8, inter-frame gap 12), and
  // its whole overhead: the round-trip reserve's input (buffer_defaults.h). net/wire.h declares the
  // same for the data path, but conf may include no net/ header nor net/ a conf/ one (tests/
  // layering): fabric/namespaced/pfc_headroom.cpp, which sees both, asserts they agree.
  static constexpr uint32_t kWireGapBytes = 20;
  static constexpr uint32_t kWireOverhead = kFcsBytes + kWireGapBytes;
};

struct WorkloadSpec {
  gen::WorkloadType type = gen::WorkloadType::kPermutation;
  uint64_t message_bytes = 1'000'000;
  uint32_t payload_bytes = 4096;
  uint32_t iterations = 1;
  double load = 1.0;  // fraction of line rate
  // `load: feasible`: the highest load the topology carries with its failed links, perfectly
  // balanced (topo/feasible_load.h); `load` is then unused.
  bool load_feasible = false;
  // How hosts inject: paced at `load` x the line rate, or Bernoulli arrivals at `load` per packet
  // slot (trafficgen/injection_mode.h).
  gen::Injection injection = gen::Injection::kPaced;
  gen::EntropyMode entropy = gen::EntropyMode::kFlow;
  // The entropy values hosts draw from, REPS's ring size and freezing, and the bitmap selector's
  // penalties (entropy_mode.h).
  uint32_t entropy_range = gen::EntropyParams{}.range;
  uint32_t reps_buffer = gen::EntropyParams{}.reps_buffer;
  bool reps_freezing = gen::EntropyParams{}.reps_freezing;
  uint8_t bitmap_ecn_penalty = gen::EntropyParams{}.bitmap_ecn_penalty;
  uint8_t bitmap_nack_penalty = gen::EntropyParams{}.bitmap_nack_penalty;
  uint8_t bitmap_max_penalty = gen::EntropyParams{}.bitmap_max_penalty;
  // which host runs which rank (workload_type.h)
  gen::Placement placement = gen::Placement::kRank;
  // all-to-all
  gen::AllToAllOrder order = gen::AllToAllOrder::kRank;
  // all-to-all-v
  gen::Skew skew = gen::Skew::kZipf;
  double zipf_s = 1.0;
  std::vector<std::vector<double>> matrix;
  // incast
  uint32_t fan_in = 8;
  // uniform, switch-permutation, bipartite: messages per sender
  uint32_t messages = 1;
  // fsdp: the model description and the slice simulated (trafficgen/workloads/fsdp.h)
  gen::FsdpSpec fsdp;
  // trace
  std::string trace_file;
  uint32_t ack_every = 1;
  // The retransmission timeout; with cc: dctcp its floor (the timeout adapts to the RTT above it).
  uint64_t retransmit_timeout_ns = 1'000'000;
  gen::CongestionControl cc = gen::CongestionControl::kNone;
  // cc: dctcp's initial window: initial_window_bytes if not 0, else this many bandwidth-delay
  // products of the flow's path (docs/configuration.md says why the default is 2, not 1).
  double initial_window_bdp = 2;
  uint64_t initial_window_bytes = 0;
  // cc nscc's and mswift's keys, and whether the file set initial_window.
  gen::CcTuning tuning;
};

struct MeasurementSpec {
  uint64_t queue_sample_ns = 1000;  // queue-depth time series period
  uint64_t duration_ns = 0;         // 0 = until the workload completes
  // Virtual time: summary.json's throughput window starts at the first queue sample at or after
  // this (the fabric's fill left out); 0 = from the start.
  uint64_t warmup_ns = 0;
  // "messages": generator.json's per-message list (also with "plots", which draw from it); a
  // reproduction at scale leaves it out (68 MB a variant for 432 hosts at 420 messages each).
  std::vector<std::string> outputs = {"summary", "queues", "messages"};

  bool wants(std::string_view output) const {
    return std::find(outputs.begin(), outputs.end(), output) != outputs.end();
  }
  // generator.json lists every message's record: with "messages", or "plots" (drawn from it).
  bool lists_messages() const { return wants("messages") || wants("plots"); }
};

// What a link event does (docs/configuration.md, "events").
enum class LinkAction : uint8_t { kDown, kUp, kRate };
struct LinkActionInfo {
  LinkAction id;
  std::string_view name;
};
inline constexpr std::array<LinkActionInfo, 3> kLinkActionTable{
    {{LinkAction::kDown, "down"}, {LinkAction::kUp, "up"}, {LinkAction::kRate, "rate"}}};
static_assert(names::in_enum_order(kLinkActionTable));
inline constexpr std::array<std::string_view, 3> kLinkActionNames =
    names::names_of(kLinkActionTable);

// One entry of events.links: at `at_ns` after the workload's start, the switch-to-switch link
// between `a` and `b` goes down, comes up, or runs at `rate_bps`; both directions, or only the
// one leaving `from`. The names are checked against the topology when the fabric is built, so
// the entry keeps where it was written.
struct LinkEventSpec {
  uint64_t at_ns = 0;
  std::string a, b;
  LinkAction action = LinkAction::kDown;
  double rate_bps = 0;  // kRate only
  std::string from;     // empty: both directions
  std::string path;     // "events.links[2]", for errors found later
  int line = 0, column = 0;
};

struct EventsSpec {
  std::vector<LinkEventSpec> links;   // in time order
  uint32_t random_link_failures = 0;  // switch-to-switch links failed at random (the seed)
  uint64_t random_failures_at_ns = 0;
  // After a link goes down or up, the switches withdraw (or offer again) next hops that no longer
  // reach a destination (topo/minimal_reach.h), as a converged routing protocol would.
  bool reroute = true;
  bool empty() const { return links.empty() && random_link_failures == 0; }
};

struct Experiment {
  std::string name;    // default: the file's stem
  std::string source;  // the file it came from
  uint64_t seed = 1;
  TopologySpec topology;
  LinkSpec links;
  BufferSpec buffer;
  BalancerPlan balancer;
  WorkloadSpec workload;
  MeasurementSpec measurement;
  EventsSpec events;
};

}  // namespace spraylab::conf
