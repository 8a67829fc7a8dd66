// What one spraylab-gen process runs, resolved once at start-up from the experiment file and the
// command line: the emulated hosts (rank, addresses, DPDK port), the schedule, every rank's
// addresses, the path model of each message for the CCT lower bound, and the sender's and
// receiver's settings. Plain C++: no DPDK, so it is built and checked before EAL touches a port.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "conf/experiment.h"
#include "topo/addressing.h"
#include "topo/topology.h"
#include "trafficgen/bounds/bound_kind.h"
#include "trafficgen/bounds/bound_wire.h"
#include "trafficgen/cc_mode.h"
#include "trafficgen/cct_bound.h"
#include "trafficgen/entropy.h"
#include "trafficgen/injection_mode.h"
#include "trafficgen/schedule.h"

namespace spraylab::gen {

// Bytes of Ethernet + IPv4 + UDP + testbed header before a data packet's payload; an ACK is
// exactly this long. On a wire every frame also has an FCS and a preamble + gap
// (net/wire.h).
inline constexpr uint32_t kFrameHeaderBytes = 14 + 20 + 8 + 40;
static_assert(conf::BufferSpec::kFrameHeaderBytes == kFrameHeaderBytes);  // the BDP default's
// The UDP destination port of generator traffic (the source port carries the path entropy).
// Not RoCEv2's 4791: the testbed header is not a BTH, and Wireshark would decode it as one.
inline constexpr uint16_t kGenUdpPort = 4792;

// Thrown for command-line values and host lists that cannot be run; the message says what.
class PlanError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// "h0,h1", "h0-h3" (a range of equal prefix), or a mix: "h0-h3,h7". Names must exist in the
// topology; duplicates are an error. Returned in the order written.
std::vector<std::string> parse_host_list(const std::string& list, const topo::Topology& t);

// "--rate": a fraction of the link rate ("1", "0.5"), a rate with units ("10Gbps", "2.5G"), or
// "unlimited" (no pacing: as fast as the port takes packets). Returns bits per second, 0 for
// unlimited.
double parse_send_rate(const std::string& text, double link_rate_bps);

struct HostPlanOptions {
  std::vector<std::string> hosts;  // names, in --hosts order
  std::vector<uint16_t> port_map;  // DPDK port per host; empty: host i on port i
  double rate_bps = 0;             // pacing rate per host; 0 = unlimited
  uint32_t ack_every = 1;
  EntropyMode entropy = EntropyMode::kFlow;
  EntropyParams entropy_params;
  uint64_t retransmit_timeout_ns = 1'000'000;
  double loss = 0;             // drop probability for arriving packets (tests)
  uint32_t payload_bytes = 0;  // 0: the workload's
  bool back_to_back = false;   // ports wired host to host: one link, no propagation delay
  uint64_t seed = 1;
  CongestionControl cc = CongestionControl::kNone;
  double initial_window_bdp = 2;      // cc dctcp: in bandwidth-delay products of the path ...
  uint64_t initial_window_bytes = 0;  // ... unless this is set
  bool trim = false;  // buffer.trim: switches trim, senders keep a resend queue for NACKs
  CcTuning cc_tuning;  // the workload's (trafficgen/cc_mode.h)
  // workload.injection: bernoulli gates the data by arrivals at injection_load per packet slot
  // (trafficgen/injection.h); the pacer then runs at the line rate.
  Injection injection = Injection::kPaced;
  double injection_load = 1;
};

// The generator options an experiment implies: every host of the topology in order, host i on
// port i; pacing at workload.load x the slowest host link; the workload's ACK, entropy and
// retransmission settings; the experiment's seed. The fabric runs them as they are;
// spraylab-gen's command line overrides some (trafficgen/gen_cli.h).
HostPlanOptions options_from_experiment(const conf::Experiment& exp, const topo::Topology& t);

struct HostSpec {
  uint32_t rank = 0;  // index in Topology::hosts(): the schedule's rank
  topo::NodeId node = 0;
  std::string name;
  uint32_t ip = 0;
  topo::Mac mac{};
  uint16_t port = 0;  // DPDK port
};

struct RankAddress {
  uint32_t ip = 0;
  topo::Mac mac{};       // the host's own MAC
  topo::Mac next_hop{};  // where its frames go first: its leaf's port, or the peer host
};

struct RunPlan {
  Schedule schedule;
  std::vector<HostSpec> hosts;         // the local hosts
  std::vector<int32_t> local_of_rank;  // rank -> index into hosts, -1 if not local
  std::vector<RankAddress> ranks;      // every rank
  std::vector<uint32_t> message_hops;  // per message: links on its path (H)
  // The most of message_hops (1 without messages): the fabric's unloaded RTT as NSCC and RCCC
  // scale by it. Kept here because every flow's window reads it, and a scan per flow was 7 % of
  // a 432-host all-to-all-v's simulation.
  uint32_t most_hops = 1;
  // Each rank's messages, as sender or receiver, in id order: rank r's are
  // rank_messages[rank_message_start[r] .. rank_message_start[r + 1]). An engine reads its own
  // hosts' messages from them (HostEngine::add_messages): a pass over the whole schedule for each
  // engine read 17 GB of messages for a 1296-host uniform run of 432 leaves.
  std::vector<uint32_t> rank_message_start;
  std::vector<MessageId> rank_messages;
  PathModel path;                      // rate, delay, frame sizes; hops set per message
  // The workload's type: it picks the collectives' CCT bound (trafficgen/bounds/).
  WorkloadType workload = WorkloadType::kPermutation;
  // Offered when every link of the topology has the host links' rate and delay and no link
  // event changes them: then the bounds' capacity is the fabric's.
  BoundCapacity bound_capacity = BoundCapacity::kOffered;
  uint32_t payload_bytes = 0;
  uint32_t ack_every = 1;
  EntropyMode entropy = EntropyMode::kFlow;
  EntropyParams entropy_params;
  uint64_t retransmit_timeout_ns = 0;
  double loss = 0;
  double rate_bps = 0;       // pacing rate, 0 = unlimited
  double link_rate_bps = 0;  // the topology's host link rate
  uint64_t seed = 0;
  uint16_t ports_needed = 0;
  CongestionControl cc = CongestionControl::kNone;
  double initial_window_bdp = 2;
  uint64_t initial_window_bytes = 0;
  bool trim = false;
  CcTuning cc_tuning;
  Injection injection = Injection::kPaced;
  double injection_load = 1;  // arrivals per packet slot, with injection bernoulli
};

// Builds the topology and schedule of `exp` and resolves the local hosts. Throws PlanError,
// topo::TopologyError or WorkloadError with a precise message.
RunPlan make_run_plan(const conf::Experiment& exp, const HostPlanOptions& o);

// The lower bound for messages of `bytes` over `hops` links (trafficgen/cct_bound.h) with the
// plan's rate (the pacing rate, or the link rate when unpaced) and frame sizes.
CctBound message_bound(const RunPlan& plan, uint64_t bytes, uint32_t hops);

// The wire of the per-host and critical-path bounds (trafficgen/bounds/): the host link's rate
// (never the pacing rate: received data comes at line rate), delay, frame sizes and ACK rule.
BoundWire bound_wire(const RunPlan& plan);

// One round trip of the path model over `hops` links: a full data packet there and its ACK
// back, store and forward, with propagation (the CCT bound's first ACK, cct_bound.h).
double path_rtt_ns(const RunPlan& plan, uint32_t hops);
// cc dctcp: a flow's initial window over `hops` links, in payload bytes: initial_window_bytes,
// or initial_window_bdp x the path's rate x path_rtt_ns(); at least one packet.
uint64_t initial_window_bytes(const RunPlan& plan, uint32_t hops);

}  // namespace spraylab::gen
