// The host engine: the emulated hosts of one lcore, sending their messages and acknowledging
// their peers'. One poll() is one turn of the burst loop (STYLE.md: l3fwd's shape):
//   rx burst per port ─▶ parse + decode ─▶ data: reorder/loss accounting, queue an ACK
//                                        ─▶ ACK: mark packets acknowledged, REPS feedback, RTT
//   per host: pacer (TSC) ─▶ ACKs first, then data of the ready messages round robin ─▶ tx burst
//   retransmission timeouts, messages whose dependencies completed become ready
// All state is allocated at construction; the data path does no allocation, takes no locks and
// throws nothing. DPDK mbufs appear only at the edges (rx, tx).
#pragma once

#include <rte_mbuf.h>
#include <rte_mempool.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "net/pfc_frame.h"
#include "net/pfc_pause.h"
#include "net/wire.h"
#include "trafficgen/entropy.h"
#include "trafficgen/flow_window.h"
#include "trafficgen/frame_template.h"
#include "trafficgen/host_plan.h"
#include "trafficgen/injection.h"
#include "trafficgen/latency_histogram.h"
#include "trafficgen/packet.h"
#include "trafficgen/rccc_credits.h"
#include "trafficgen/reorder.h"
#include "trafficgen/rng.h"

namespace spraylab::gen {

// Every counter of the engine, declared once: the results JSON, --stats-json and the docs read
// this list.
#define SPRAYLAB_GEN_COUNTERS(X)                                                            \
  X(kTxData, "tx_data_packets", "data packets sent, retransmissions included")              \
  X(kTxAck, "tx_ack_packets", "ACKs sent")                                                  \
  X(kTxBytes, "tx_bytes", "frame bytes sent (no FCS)")                                      \
  X(kRetransmits, "retransmits", "data packets sent again (timeout or NACK)")               \
  X(kTimeouts, "timeouts", "retransmission timeouts")                                       \
  X(kRxData, "rx_data_packets", "data packets received (after injected loss)")              \
  X(kRxAck, "rx_ack_packets", "ACKs received (after injected loss)")                        \
  X(kRxBytes, "rx_bytes", "frame bytes received")                                           \
  X(kRxCe, "rx_ce_marked", "data packets that arrived CE-marked")                           \
  X(kRxEcnEcho, "rx_ecn_echoes", "ACKs that echoed a CE mark")                              \
  X(kRxForeign, "rx_foreign", "frames not for a local host or not generator traffic")       \
  X(kRxMalformed, "rx_malformed", "generator frames with a bad header or unknown ids")      \
  X(kLossData, "injected_data_drops", "data packets dropped by --loss")                     \
  X(kLossAck, "injected_ack_drops", "ACKs dropped by --loss")                               \
  X(kAckQueueFull, "ack_queue_full", "ACKs not sent: the host's ACK queue was full")        \
  X(kNoMbuf, "no_mbuf", "packets not built: the mempool was empty")                         \
  X(kRxTrimmed, "rx_trimmed_headers", "data packets that arrived trimmed to headers")       \
  X(kTxNack, "tx_nack_packets", "NACKs sent, one per trimmed header")                       \
  X(kRxNack, "rx_nack_packets", "NACKs received (after injected loss)")                     \
  X(kNackRetransmits, "nack_retransmits", "data packets sent again at once on a NACK")      \
  X(kNackQueueFull, "nack_queue_full", "NACKs not acted on: the resend queue was full")     \
  X(kTxPull, "tx_pull_packets", "cc rccc: PULLs (credit) sent by receivers")                \
  X(kRxPull, "rx_pull_packets", "cc rccc: PULLs received (after injected loss)")            \
  X(kTxRts, "tx_rts_packets", "cc rccc: RTSs sent by senders out of credit")                \
  X(kCreditGranted, "credit_granted_bytes", "cc rccc: credit the receivers' PULLs granted") \
  X(kCreditSpent, "credit_spent_bytes", "cc rccc: credit senders spent (data wire bytes)") \
  X(kRxPfcPause, "rx_pfc_pauses", "802.1Qbb PFC frames received that paused a class")      \
  X(kRxPfcResume, "rx_pfc_resumes", "802.1Qbb PFC frames received that resumed a class")   \
  X(kRxBadControl, "rx_bad_mac_control", "MAC control frames that were no PFC (dropped)")
// Counters of time, in ns: named <name>_ns in the results, exported as seconds
// (spraylab_gen_<name>_seconds_total: Prometheus wants base units). They follow the list above.
#define SPRAYLAB_GEN_NS_COUNTERS(X) \
  X(kPfcPausedNs, "pfc_paused", "time the ports' data class was paused, summed over ports")

enum class GenCounter : uint8_t {
#define SPRAYLAB_GEN_ENUM(id, name, doc) id,
  SPRAYLAB_GEN_COUNTERS(SPRAYLAB_GEN_ENUM) SPRAYLAB_GEN_NS_COUNTERS(SPRAYLAB_GEN_ENUM)
#undef SPRAYLAB_GEN_ENUM
      kCount,
};
inline constexpr size_t kGenCounters = static_cast<size_t>(GenCounter::kCount);
// The counters only cc rccc moves: the results list them with it alone (results as they were
// without).
constexpr bool rccc_counter(GenCounter c) {
  return c >= GenCounter::kTxPull && c <= GenCounter::kCreditSpent;
}
// The counters only MAC control frames move (a link running PFC): listed with it alone, too.
constexpr bool pfc_counter(GenCounter c) {
  return c >= GenCounter::kRxPfcPause && c <= GenCounter::kPfcPausedNs;
}
// The first counter of time (SPRAYLAB_GEN_NS_COUNTERS): ns in the engine and the results.
inline constexpr size_t kGenFirstNsCounter = static_cast<size_t>(GenCounter::kPfcPausedNs);
inline constexpr std::array<const char*, kGenCounters> kGenCounterNames = {
#define SPRAYLAB_GEN_NAME(id, name, doc) name,
#define SPRAYLAB_GEN_NS_NAME(id, name, doc) name "_ns",
    SPRAYLAB_GEN_COUNTERS(SPRAYLAB_GEN_NAME) SPRAYLAB_GEN_NS_COUNTERS(SPRAYLAB_GEN_NS_NAME)
#undef SPRAYLAB_GEN_NAME
#undef SPRAYLAB_GEN_NS_NAME
};

// A message this engine sends: its progress and acknowledgements.
struct SendState {
  MessageId id = 0;
  uint32_t host = 0;  // local host index (sender)
  uint32_t dst = 0;   // rank
  uint32_t flow = 0;  // index into the engine's flows (one per host and destination)
  uint32_t tmpl = 0;  // its frames' headers: index into the engine's frame templates
  uint64_t bytes = 0;
  uint32_t packets = 0;
  uint32_t next_seq = 0;     // first pass: next packet to send
  uint32_t retx_cursor = 0;  // retransmission pass: next sequence to look at
  bool retx_pass = false;    // sending a retransmission pass
  bool active = false;       // in the host's active list
  bool started = false;
  bool done = false;
  uint32_t pending_deps = 0;  // dependencies not yet complete at this host
  uint32_t acked = 0;         // packets acknowledged
  uint32_t cum_acked = 0;     // every sequence below is acknowledged
  std::vector<uint64_t> acked_bits;
  uint64_t ready_tsc = 0;  // when it may start (dependencies done + start_ns)
  uint64_t first_tx_tsc = 0;
  uint64_t done_tsc = 0;  // the last ACK
  uint64_t last_progress_tsc = 0;
  uint64_t tx_packets = 0;
  uint64_t retransmits = 0;
  uint64_t ecn_echoes = 0;
  // cc dctcp, nscc, mswift: payload bytes of this message in its flow's window; and the flow's list
  // of messages its window stopped (parked: out of the active list until an ACK opens the window).
  uint64_t flight_bytes = 0;
  bool parked = false;
  // cc rccc: wire bytes of this message still to send, counted in its flow's backlog.
  uint64_t credit_backlog = 0;
  uint32_t next_parked = UINT32_MAX;

  // Packets not yet sent once, and not in a retransmission pass.
  bool first_pass_left() const { return !done && !retx_pass && next_seq < packets; }
};

// A message this engine receives.
struct RecvState {
  MessageId id = 0;
  uint32_t host = 0;  // local host index (receiver)
  uint32_t src = 0;   // rank
  uint32_t tmpl = 0;  // its ACKs' headers: index into the engine's frame templates
  uint32_t packets = 0;
  uint64_t bytes = 0;
  uint32_t cum = 0;        // every sequence below has arrived
  uint32_t since_ack = 0;  // data packets since the last ACK
  bool ce_since_ack = false;
  bool done = false;
  uint64_t first_rx_tsc = 0;
  uint64_t done_tsc = 0;
  ReorderTracker reorder;
  uint32_t sink_flow = 0;  // cc rccc: index into the engine's sink flows
};

struct PendingAck {
  TestbedHeader header;
  uint32_t tmpl;  // index into the engine's frame templates
};

// One emulated host of this engine.
struct HostState {
  uint32_t index = 0;  // into RunPlan::hosts
  uint16_t port = 0;
  uint32_t port_slot = 0;        // index into the engine's ports
  uint64_t next_tx_q16 = 0;      // pacer: the link is free from this TSC - pace_base_tsc_ (x 2^16)
  std::vector<uint32_t> active;  // SendState indices with packets to send
  uint32_t rr = 0;               // round robin over active
  // A ring of a power of two: the ACKs this host owes at most, kAckQueue at most (add_acks()).
  PendingAck* acks = nullptr;  // ack_mask + 1 of them, in the engine's ack_store_
  uint32_t ack_mask = 0;
  uint32_t ack_head = 0, ack_count = 0;
  // Packets NACKed (a switch trimmed them), to send again before any other data: (SendState
  // index, sequence), a ring of a power of two (add_ack_queues()); full, a NACK is counted and
  // left to the timeout.
  std::vector<std::pair<uint32_t, uint32_t>> resend;
  uint32_t resend_mask = 0;
  uint32_t resend_head = 0, resend_count = 0;
  // cc rccc: flows sending from this host with a backlog (the pull target's share), and the
  // pull pacer of the flows it receives from: armed, next turn at next_pull_q16 (TSC cycles
  // from pace_base_tsc_, x 2^16).
  uint32_t backlogged_flows = 0;
  RcccPullPacer pacer;
  bool pull_armed = false;
  uint64_t next_pull_q16 = 0;
  // workload.injection bernoulli: the host's arrivals, and the data frames it sent against them
  // (a frame goes only when arrivals() > injected: the rest wait, open loop, as a source queue).
  BernoulliArrivals arrivals;
  uint64_t injected = 0;
  // Payload bytes of data packets this host received for the first time (HostTally).
  uint64_t delivered_bytes = 0;
};

// One local host's offered and accepted traffic so far (workload.injection bernoulli): its
// arrivals, and the payload it received (each packet once).
struct HostTally {
  uint32_t host = 0;  // index into RunPlan::hosts
  uint64_t arrivals = 0;
  uint64_t delivered_bytes = 0;
};

// A burst of frames in or out of a host's port: (port, mbufs, count) → frames taken. The engine's
// only I/O; by default rte_eth_rx_burst / rte_eth_tx_burst on queue 0 of the DPDK port. The
// in-process fabric (fabric/emu/host_node.h) gives its in-memory links instead.
using BurstIo = std::function<uint16_t(uint16_t port, rte_mbuf** pkts, uint16_t n)>;

// Which SendState and RecvState of its engine each message of the plan is: message id -> index
// into the engine's sends or receives, -1 where not local. A message has one sender and one
// receiver, so the engines of one process can share one table (their entries never overlap):
// the fabric's engines do, O(messages) in all, where a table per engine (one engine per leaf)
// was O(messages x leaves): 8 B x 1 M messages x 3125 leaves would be 25 GB at 100 K hosts.
struct MessageSlots {
  std::vector<int32_t> send, recv;
};

struct EngineSetup {
  const RunPlan* plan = nullptr;
  // Shared with the process's other engines (written while each is built; read only after); null:
  // a table of the engine's own.
  MessageSlots* message_slots = nullptr;
  std::vector<uint32_t> hosts;  // indices into plan->hosts
  rte_mempool* pool = nullptr;
  uint64_t tsc_hz = 0;
  uint64_t start_tsc = 0;  // no message starts before this
  // What ns_of() counts from: the TSC reading `epoch_tsc` is `epoch_ns`. spraylab-gen pairs a
  // TSC reading with the realtime clock at start, so that its times compare with other
  // processes' (the namespaced fabric merges several generators' first and last packets into one
  // CCT; each process estimates the TSC's rate for itself, and a TSC count since boot scaled by
  // two estimates 0.01 % apart differs by 0.4 s after an hour of uptime). The emulated fabric's
  // clock is its own ns: 0 and 0.
  uint64_t epoch_tsc = 0;
  uint64_t epoch_ns = 0;
  uint32_t engine_id = 0;
  BurstIo rx;  // empty: rte_eth_rx_burst
  BurstIo tx;  // empty: rte_eth_tx_burst
  // poll()'s `now` is the TSC, so the engine can count the cycles its busy turns take. A virtual
  // clock (fabric/run/result.h) is no TSC: busy cycles stay 0 and results stay deterministic.
  bool tsc_clock = true;
};

class HostEngine {
 public:
  static constexpr uint32_t kAckQueue = 4096;  // per host, at most

  explicit HostEngine(const EngineSetup& s);
  ~HostEngine();
  HostEngine(const HostEngine&) = delete;
  HostEngine& operator=(const HostEngine&) = delete;

  // Before the first poll(): the run starts at `start_tsc` instead of the setup's start_tsc
  // (every first message, and the pacer, move by the difference). spraylab-gen builds its engines
  // and serves their metrics before a --start-file names the start (docs/generator.md).
  void move_start(uint64_t start_tsc);

  // One turn of the loop at TSC `now`. Returns true if it did any work.
  bool poll(uint64_t now);
  // The earliest TSC at which poll() has work besides receiving: a paced host with an ACK or
  // data to send, a message's start, a retransmission deadline; `now` if frames wait for a full
  // device; UINT64_MAX if none. An event-driven clock (the fabric's virtual time) wakes the
  // engine then, and whenever a frame arrives.
  uint64_t next_wake(uint64_t now) const;
  // The same where a port's frames wait for the link itself (a PFC pause, the wire busy):
  // `ready(port)` says when that port's link may take a frame (UINT64_MAX: when something
  // arrives), so a waiting port does not make every later time `now`.
  template <typename Ready>
  uint64_t next_wake(uint64_t now, Ready&& ready) const;

  // All local messages sent and acknowledged, all local messages received. Readable from
  // another thread (the main lcore's progress line).
  bool finished() const { return finished_.load(std::memory_order_acquire); }
  uint64_t messages_done() const { return done_count_.load(std::memory_order_relaxed); }
  uint64_t messages_total() const { return sends_.size() + recvs_.size(); }
  // The messages this host sends, and those of them acknowledged in full: counted at one end
  // only, so their sums over a fabric's hosts are its messages (the summary's count), where
  // messages_done() and messages_total() count each message at both ends.
  uint64_t sends_acked() const { return sends_acked_.load(std::memory_order_relaxed); }
  uint64_t sends_total() const { return sends_.size(); }
  uint64_t acked_bytes() const { return acked_bytes_.load(std::memory_order_relaxed); }
  uint64_t tx_bytes_live() const { return tx_bytes_live_.load(std::memory_order_relaxed); }
  // From any thread: send no more data (first passes and retransmissions alike) but keep
  // receiving and acknowledging, so a run stopped by --duration drains the network it filled
  // and every packet sent is accounted for at the end (bench/soak).
  void stop_data() { data_stopped_.store(true, std::memory_order_relaxed); }
  // After the loop has stopped: frames counted as sent but still waiting for the device.
  uint32_t tx_pending() const;

  // After the loop has stopped:
  const std::vector<SendState>& sends() const { return sends_; }
  const std::vector<RecvState>& recvs() const { return recvs_; }
  uint64_t counter(GenCounter c) const { return counters_[static_cast<size_t>(c)]; }
  // Every counter, for a reader on another thread while the loop runs (trafficgen/gen_metrics.h
  // reads them with relaxed atomic loads).
  const std::array<uint64_t, kGenCounters>& counters() const { return counters_; }
  const LatencyHistogram& one_way() const { return one_way_; }
  const LatencyHistogram& rtt() const { return rtt_; }
  // Data packets received, by the switches they crossed (index: kSentTtl - the arriving TTL;
  // every switch decrements the TTL once, the last leaf included). The MRLS paper's hop count is
  // the switch-to-switch links, index - 1.
  const std::array<uint64_t, kSentTtl + 1>& path_switches() const { return path_switches_; }
  // Payload bytes of data packets received for the first time, so far (the fabric reads it at
  // its warm-up time: the accepted-throughput window of summary.json).
  uint64_t delivered_bytes() const { return delivered_bytes_; }
  // Each local host's tally at time `ns` (the epoch's clock: the fabric's in virtual time), its
  // arrivals counted up to then whether or not the host was polled since (a copy of the process
  // is advanced; the engine is not changed). Start-up and results only: it allocates.
  std::vector<HostTally> host_tallies(uint64_t ns) const;
  // workload.injection bernoulli: a packet slot, in ns (a full data frame at the line rate).
  double slot_ns() const { return static_cast<double>(slot_q16_) / 65536.0 * 1e9 / tsc_hz_d(); }
  // cc dctcp, nscc, mswift: each flow's window (index: SendState::flow); empty with cc none.
  const std::vector<FlowWindow>& windows() const { return windows_; }
  // cc rccc: each flow's credit at its sender (index: SendState::flow), each source's at its
  // receiver (RecvState::sink_flow); empty without.
  const std::vector<RcccSender>& credits() const { return credits_; }
  const std::vector<RcccSinkFlow>& sink_flows() const { return sink_flows_; }
  uint64_t busy_cycles() const { return busy_cycles_; }
  // The time of TSC reading `tsc` in ns, from EngineSetup's epoch.
  uint64_t ns_of(uint64_t tsc) const {
    if (tsc >= epoch_tsc_) {
      return epoch_ns_ +
             static_cast<uint64_t>(
                 (static_cast<unsigned __int128>(tsc - epoch_tsc_) * ns_per_tsc_q32_) >> 32);
    }
    return epoch_ns_ -
           static_cast<uint64_t>(
               (static_cast<unsigned __int128>(epoch_tsc_ - tsc) * ns_per_tsc_q32_) >> 32);
  }

 private:
  struct PortSlot {
    uint16_t port;
    std::vector<std::pair<uint32_t, uint32_t>> hosts;  // (ip, local host slot)
    std::array<rte_mbuf*, 2 * net::kBurst> tx{};
    uint32_t tx_count = 0;
    // The link's PFC pauses (docs/generator.md, "PFC pauses"): while the data class is paused the
    // device is offered nothing and the frames wait in `tx`.
    net::PfcPause pause;
  };

  void count(GenCounter c, uint64_t n = 1) { counters_[static_cast<size_t>(c)] += n; }
  // Start-up (the constructor's steps).
  std::vector<int32_t> add_hosts(const std::vector<uint32_t>& hosts);
  void add_messages(const std::vector<int32_t>& slot_of_rank);
  void add_send(const Message& m, uint32_t host_slot, uint32_t flow);
  void add_recv(const Message& m, uint32_t host_slot);
  void add_dependents();
  void add_ack_queues();
  void receive(PortSlot& p, rte_mbuf* m, uint64_t now);
  // A MAC control frame on port `p`: a PFC frame sets the port's pauses; anything else is counted.
  void on_mac_control(PortSlot& p, const uint8_t* data, uint32_t len, uint64_t now);
  // Port p may offer the device no frame now (its peer paused the data class).
  bool tx_paused(const PortSlot& p, uint64_t now) const {
    return pfc_seen_ && p.pause.paused(net::kPfcDataClass, now);
  }
  void count_paused_time(uint64_t now);
  void build_header_templates();
  void on_data(uint32_t host_slot, const TestbedHeader& h, bool ce, uint8_t ttl, uint64_t now);
  void on_ack(uint32_t host_slot, const TestbedHeader& h, uint64_t now);
  // buffer.trim (docs/generator.md, "Trimming and NACKs").
  void on_trimmed(uint32_t host_slot, const TestbedHeader& h, uint64_t now);
  void on_nack(uint32_t host_slot, const TestbedHeader& h, uint64_t now);
  struct TxTurn;
  void send(HostState& h, uint64_t now);
  void send_acks(HostState& h, TxTurn& t);
  void send_data(HostState& h, TxTurn& t);
  void send_resends(HostState& h, TxTurn& t);
  bool next_data(HostState& h, uint32_t* send_idx, uint32_t* seq, bool* retx);
  // Packets first .. first + count - 1 of sends_[send_idx], sent back to back.
  struct DataRun {
    uint32_t send_idx;
    uint32_t first;
    uint32_t count;
    bool retx;
  };
  bool next_run(HostState& h, uint32_t max, DataRun* run);
  rte_mbuf* take_mbuf();
  rte_mbuf* build(const FrameTemplate& tmpl, const TestbedHeader& t, uint32_t payload,
                  uint16_t sport);
  bool mark_acked(SendState& s, uint32_t seq);  // true if newly acknowledged
  // cc dctcp, nscc, mswift (docs/generator.md, "Congestion control").
  FlowWindow make_window(const Message& m) const;
  void window_on_ack(SendState& s, const AckSignal& a);
  void park(uint32_t send_idx);
  void wake_parked(uint32_t flow);
  // Whether the flow's window and credit let a data packet go (gated_ only).
  bool flow_open(uint32_t flow) const {
    return (!windowed_ || windows_[flow].may_send(plan_.payload_bytes)) &&
           (!rccc_ || credits_[flow].may_send());
  }
  // cc rccc (docs/generator.md, "Receiver credits").
  void add_credit_flows(const std::vector<int32_t>& slot_of_rank);
  void set_backlog(SendState& s, uint64_t bytes);
  uint16_t pull_target(const SendState& s) const;
  void queue_control(HostState& h, const TestbedHeader& header, uint32_t tmpl);
  void send_rts(SendState& s);
  void sink_target(const RecvState& r, uint16_t wire_target, bool request, uint64_t now);
  // A data frame of `payload` bytes of `s` spends its credit: returns the pull target it carries.
  uint16_t spend_credit(SendState& s, uint32_t payload);
  void refund_credit(SendState& s, uint32_t payload);
  void on_pull(uint32_t host_slot, const TestbedHeader& h, uint64_t now);
  void on_rts(uint32_t host_slot, const TestbedHeader& h, uint64_t now);
  void run_pacer(HostState& h, uint64_t now);
  bool resend_ready(const HostState& h) const;
  uint32_t frame_credit(uint32_t payload) const {
    return payload + kFrameHeaderBytes + net::kWireOverhead;
  }
  uint64_t rto_of(const SendState& s) const {
    return windowed_ ? static_cast<uint64_t>(static_cast<double>(windows_[s.flow].rto_ns()) *
                                             static_cast<double>(tsc_hz_) / 1e9)
                     : rto_cycles_;
  }
  void complete_send(SendState& s, uint64_t now);
  void complete_recv(RecvState& r, uint64_t now);
  void release_dependents(const std::vector<uint32_t>& list, uint64_t now);
  void make_ready(SendState& s, uint64_t now);
  void start_due(uint64_t now);
  // workload.injection bernoulli: the slots started by `now` (pace_base_tsc_ counts as slot 0's
  // start), and the TSC at which slot `k` starts.
  uint64_t slots_started(uint64_t now) const;
  // next_wake()'s parts for one host, each at or after `now` (UINT64_MAX: none): its pull
  // pacer's next turn (cc rccc), and its sender's (the pacer's next slot; with bernoulli
  // injection, data also waits for the next arrival). Both next_wake()s use them, so a lossless
  // link's wake and a lossy one's agree on when a host next sends.
  uint64_t pull_turn(const HostState& h, uint64_t now) const;
  uint64_t send_turn(const HostState& h, uint64_t now) const;
  bool wants_to_send(const HostState& h) const {
    return h.ack_count > 0 || !h.active.empty() || resend_ready(h);
  }
  uint64_t slot_start_tsc(uint64_t k) const;
  double tsc_hz_d() const { return static_cast<double>(tsc_hz_); }
  void check_timeouts(uint64_t now);
  void update_finished();

  const RunPlan& plan_;
  rte_mempool* pool_;
  uint64_t tsc_hz_;
  uint64_t epoch_tsc_ = 0;  // EngineSetup::epoch_tsc, epoch_ns
  uint64_t epoch_ns_ = 0;
  uint64_t ns_per_tsc_q32_;
  uint64_t cycles_per_byte_q16_;  // pacing; 0 = unlimited
  uint64_t rto_cycles_;
  uint64_t burst_slack_q16_;  // how far the pacer may lag behind now (catch-up limit)
  const bool bernoulli_;      // workload.injection bernoulli
  uint64_t slot_q16_ = 0;     // its packet slot in TSC cycles (x 2^16)
  // The pacer counts TSC cycles from here (the run's start) in 48.16 fixed point: an absolute
  // TSC overflows that after 2^48 cycles (about 30 hours of the host's uptime at 2.6 GHz; the
  // TSC of a VM counts from its host's boot), and the pacer then let everything through.
  uint64_t pace_base_tsc_ = 0;

  std::vector<HostState> hosts_;
  // Every local host's ACK ring, one anonymous mapping: pages the kernel supplies when first
  // written, so a ring costs what its ACKs touch (a ring is sized for every ACK its host could
  // owe at once but seldom holds more than a burst: 512 slots, 24 KB, a host at 8192 hosts).
  struct AckStore {
    PendingAck* at = nullptr;
    size_t bytes = 0;
    AckStore() = default;
    AckStore(const AckStore&) = delete;
    AckStore& operator=(const AckStore&) = delete;
    ~AckStore();
  };
  AckStore ack_store_;
  std::vector<PortSlot> ports_;
  std::vector<SendState> sends_;
  std::vector<RecvState> recvs_;
  std::vector<PathEntropy> flows_;
  const bool windowed_;              // a cc with a window: dctcp, nscc, mswift, nscc+rccc
  const bool rccc_;                  // receiver credits: nscc+rccc, rccc
  const bool gated_;                 // windowed_ or rccc_: messages may park
  std::vector<FlowWindow> windows_;  // per flow, windowed_ only
  // cc rccc: per flow (sender side) its credit, backlog (wire bytes) and host slot; per source of
  // a local receiver (sink flow) its credit state, host slot, ACK template, last message id.
  RcccParams rccc_params_;
  std::vector<RcccSender> credits_;
  std::vector<uint64_t> flow_backlog_;
  std::vector<uint32_t> flow_host_;
  std::vector<RcccSinkFlow> sink_flows_;
  struct SinkPeer {
    uint32_t host = 0;
    uint32_t tmpl = 0;
    uint32_t message = 0;  // the last message heard from the source: what its PULLs name
    uint16_t entropy = 0;  // PULLs go round the entropy values (UecSink::nextEntropy)
  };
  std::vector<SinkPeer> sink_peers_;
  uint64_t pull_cycles_per_quantum_q16_ = 0;
  std::vector<uint32_t> parked_head_;  // per flow: first parked message, UINT32_MAX if none
  MessageSlots own_slots_;             // without EngineSetup::message_slots
  MessageSlots* slots_ = &own_slots_;  // message id -> sends_ / recvs_ index, -1
  // The index of message `id` in sends_ (recvs_), -1 if it is not this engine's.
  int32_t send_of(uint64_t id) const {
    if (id >= slots_->send.size()) return -1;
    const int32_t i = slots_->send[id];
    return i >= 0 && static_cast<size_t>(i) < sends_.size() && sends_[i].id == id ? i : -1;
  }
  int32_t recv_of(uint64_t id) const {
    if (id >= slots_->recv.size()) return -1;
    const int32_t i = slots_->recv[id];
    return i >= 0 && static_cast<size_t>(i) < recvs_.size() && recvs_[i].id == id ? i : -1;
  }
  // Per local send / local receive (sends_, recvs_ index): local sends to release when it
  // completes. (Per message id they cost 48 B x every message of the workload in every engine:
  // 200 MB for the 512 engines of an 8192-host permutation.)
  std::vector<std::vector<uint32_t>> after_send_;
  std::vector<std::vector<uint32_t>> after_recv_;
  std::vector<uint32_t> waiting_start_;  // ready, waiting for ready_tsc
  uint64_t earliest_start_ = UINT64_MAX;
  std::vector<uint32_t> outstanding_;  // started, not done (timeout candidates)
  // No retransmission deadline falls before this: the earliest deadline of a message that left
  // its host's active list (deadlines only move later as progress is made). One comparison per
  // turn until then; at it, one scan of the outstanding messages.
  uint64_t timeout_due_ = UINT64_MAX;
  uint32_t sends_done_ = 0, recvs_done_ = 0;

  std::array<rte_mbuf*, net::kBurst> mbuf_cache_{};  // allocated, not yet built
  // Ethernet + IPv4 + UDP headers per (local host, destination rank), built once
  // (frame_template.h); host slot s, rank r at s * ranks + r.
  std::vector<FrameTemplate> frame_tmpl_;
  uint32_t mbuf_cache_count_ = 0;
  Rng loss_rng_;
  uint64_t loss_threshold_ = 0;  // drop when next() < this
  std::array<uint64_t, kGenCounters> counters_{};
  LatencyHistogram one_way_;
  LatencyHistogram rtt_;
  std::array<uint64_t, kSentTtl + 1> path_switches_{};
  uint64_t delivered_bytes_ = 0;
  uint64_t busy_cycles_ = 0;
  bool pfc_seen_ = false;  // a PFC frame arrived: the ports' pauses are worth asking
  BurstIo rx_, tx_;
  bool tsc_clock_ = true;
  std::atomic<bool> finished_{false};
  std::atomic<uint64_t> done_count_{0};
  std::atomic<uint64_t> sends_acked_{0};
  std::atomic<uint64_t> acked_bytes_{0};
  std::atomic<uint64_t> tx_bytes_live_{0};  // kTxBytes, published for the progress line
  std::atomic<bool> data_stopped_{false};
};

template <typename Ready>
uint64_t HostEngine::next_wake(uint64_t now, Ready&& ready) const {
  uint64_t t = std::min(earliest_start_, timeout_due_);
  for (const PortSlot& p : ports_) {
    if (p.tx_count > 0) t = std::min(t, std::max<uint64_t>(ready(p.port), now));
  }
  for (const HostState& h : hosts_) {
    t = std::min(t, pull_turn(h, now));
    // Frames already wait for this host's link: its readiness (above) is the host's next turn.
    if (ports_[h.port_slot].tx_count > 0) continue;
    if (!wants_to_send(h)) continue;
    if (cycles_per_byte_q16_ == 0) return now;  // unpaced: sends whenever polled
    t = std::min(t, send_turn(h, now));
  }
  return t;
}

}  // namespace spraylab::gen
