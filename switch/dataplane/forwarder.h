// The per-burst pipeline of DESIGN.md, "How a packet flows": parse → route → balance → egress
// queue, and the drain of an egress queue through its shaper into the device. One Forwarder per
// worker; the standalone switch and the in-process fabric both drive it.
#pragma once

#include <rte_mbuf.h>

#include <array>
#include <span>
#include <vector>

#include "net/frame.h"
#include "net/virtual_channel.h"
#include "switch/dataplane/switch_runtime.h"
#include "switch/lb/rng.h"

namespace spraylab::dataplane {

class Forwarder {
 public:
  Forwarder(SwitchRuntime& rt, uint32_t worker);

  // Takes ownership of pkts[0..n): each is enqueued on an egress port (or sent, set_direct_tx)
  // or freed and counted. `hold`: the frames stay staged per egress port until flush_staged()
  // (or until a port has kStaged of them), so that frames of several bursts leave together.
  void process(rte_mbuf** pkts, uint16_t n, uint16_t rx_port, uint16_t rx_queue, uint64_t now_ns,
               bool hold = false);
  // Enqueues (or sends) what process() held, port by port.
  void flush_staged();
  // Sends what port `p`'s shaper allows through `tx`: a function (port, mbufs, count) → sent,
  // e.g. rte_eth_tx_burst on queue 0. Returns packets sent. Only the port's drainer calls it: its
  // owner, or with per-worker tx queues every worker (each its own egress queue).
  template <typename Tx>
  uint16_t drain(uint16_t p, uint64_t now_ns, Tx&& tx);

  uint32_t worker() const { return worker_; }

  // A device send, (ctx, port, mbufs, count) → sent: type-erased, so that process() stays out of
  // line and the fabric, which never sets one, keeps its code path.
  using DirectTx = uint16_t (*)(void* ctx, uint16_t port, rte_mbuf** m, uint16_t n);
  // Sends through `send` straight from the burst's staging: from now on a port of `ports` (the
  // egress ports this worker owns: only a port's owner may send on it) that is unshaped and whose
  // egress queue is empty gets the burst's frames for it at once, without the ring enqueue, the
  // depth updates and a later drain; what the device does not take is queued, behind nothing, so
  // the port stays FIFO. A shaped port (virtual time, a fabric) always queues: its frames must
  // wait for the shaper.
  void set_direct_tx(DirectTx send, void* ctx, std::span<const uint16_t> ports) {
    direct_send_ = send;
    direct_ctx_ = ctx;
    for (uint16_t p : ports) direct_[p] = true;
  }
  // WorkerPlan::tx_coalesce_turns: true if port `p` skips this turn's drain (`want`, and it has
  // not yet skipped `max_turns` turns in a row); false when it drains, which starts the count anew.
  bool defer_drain(uint16_t p, bool want, uint32_t max_turns) {
    uint32_t& waited = drain_waits_[p];
    if (want && waited < max_turns) {
      ++waited;
      return true;
    }
    waited = 0;
    return false;
  }

 private:
  struct Burst;  // the burst between the steps of process()
  // The steps of process(), in order. Inline, defined in forwarder.cpp (their only caller): one
  // body again once compiled, as before they had names.
  template <bool kAllFields>
  inline uint16_t parse(rte_mbuf** pkts, uint16_t n, Burst& b);
  inline uint16_t route(Burst& b, const lb::Traits& traits);
  inline void source_leaves(Burst& b);
  inline const std::vector<topo::PortId>* candidates(Burst& b, uint16_t i,
                                                     const LiveGroups& groups);
  inline void describe_choice(lb::Packet& p, const Burst& b, uint16_t i, const RouteEntry& re,
                              const std::vector<topo::PortId>& cands);
  inline void balance(Burst& b, uint16_t choices, const BalancerSet& set,
                      const lb::Traits& traits, uint64_t now_ns);
  inline void enqueue(Burst& b);

  void drop(rte_mbuf* m, uint16_t port, DropReason r);
  // Stages `m` (`len` bytes on the wire) for `port`.
  void stage(rte_mbuf* m, uint16_t port, uint32_t len) {
    uint16_t& count = staged_count_[port];
    if (count == 0) {
      if (!listed_[port]) {
        listed_[port] = true;
        touched_[touched_count_++] = port;
      }
    } else if (count == kStaged) {
      flush(port);  // held frames of several bursts fill it: out with them first
    }
    staged_[port * size_t{kStaged} + count++] = m;
    staged_bytes_[port] += len;
  }
  void flush(uint16_t port);
  // True if `port`'s frames may skip its egress queue now (set_direct_tx): an empty queue (ring
  // and held frames: the depth counts both, and another worker's frames from before their ring
  // enqueue), so nothing queued is overtaken. A rate request pending would shape the port from
  // its next drain on: queue, and let that drain apply it.
  bool may_send_direct(uint16_t port) const {
    // PFC, credits: every frame through drain().
    if (!direct_[port] || pfc_ != nullptr || credits_ != nullptr) return false;
    // Several workers, each with a tx queue of its own: its own egress queue, and nothing of
    // another worker's (the ports are unshaped then, and set_port_rate refuses them).
    const EgressQueues& eq = rt_.egress_queues();
    if (eq.per_worker_tx()) return eq.queue(port, worker_).depth_packets() == 0;
    // Sharing the port's: every worker's queue (the total: the owner must not overtake another
    // worker's queued frames).
    return rt_.depth_packets_now(port) == 0 && !rt_.egress(port).shaper().shaping() &&
           !rt_.rate_requested(port);
  }
  // Sends pkts[0..n) (`bytes` in all) through direct_send_; returns how many the device took and
  // takes their bytes off `bytes`, which then counts the frames left to the caller.
  uint16_t send_direct(uint16_t port, rte_mbuf** pkts, uint16_t n, uint32_t& bytes);
  // Tail drop, trimming, MAC rewrite and ECN mark of frames bound for `port`: keeps the frames the
  // buffer has room for at the front of pkts[0..n), returns how many, and adds their bytes to
  // `bytes`; the frames it trimmed go to trimmed_ (trimmed_count_ of them, trimmed_bytes_).
  // `staged` is the frames' bytes in all. With rewrite_at_stage_ the headers are rewritten
  // already, and a batch the buffer takes whole below the ECN threshold costs no loop.
  inline uint16_t admit(uint16_t port, rte_mbuf** pkts, uint16_t n, uint32_t staged,
                        uint32_t& bytes);
  // The header's one rewrite for `port`: MAC addresses, then the TTL and its checksum.
  inline void rewrite(uint8_t* eth, uint16_t ip_offset, uint16_t port);
  // Whether a frame that finds `depth` bytes queued is CE-marked (SwitchTables' thresholds).
  inline bool ecn_mark(uint64_t depth);
  // Drops and counts everything queued on a down port.
  void discard(uint16_t p);

  // A MAC control frame received on `rx_port` at `now_ns` (PFC, or a counted drop).
  void control_frame(rte_mbuf* m, uint16_t rx_port, uint64_t now_ns);
  // A credit frame received on `rx_port` at `now_ns` (credits, or a counted drop).
  void credit_frame(rte_mbuf* m, uint16_t rx_port, uint64_t now_ns);
  // drain() with credits: starts what port p's credits cover, and uncharges what leaves.
  template <typename Tx>
  uint16_t drain_credited(uint16_t p, uint64_t now_ns, Tx&& tx, uint32_t& bytes);
  // drain() with virtual channels (credits or PFC): port p's VC queues, round robin from the one
  // after the VC served last, each as far as its own credits (or pause) let it; a VC held back
  // holds up no other. The port's one shaper paces them all.
  template <typename Tx>
  uint16_t drain_channels(uint16_t p, uint64_t now_ns, Tx&& tx, uint32_t& bytes);
  // With VCs: enqueues the admitted pkts[0..n) (`bytes` in all) of `port` on their VCs' queues;
  // drops (queue_full) what a ring refuses.
  void enqueue_channels(uint16_t port, rte_mbuf** pkts, uint16_t n);
  // The VC frame `m` arrives in, before this switch decrements its TTL (admit()).
  uint8_t vc_arriving(const rte_mbuf* m) const {
    if (vcs_ == 1) return 0;
    return net::vc_on_link(net::frame_ttl(rte_pktmbuf_mtod(m, const uint8_t*)), vcs_);
  }
  // The VC frame `m` came in on, after this switch decremented its TTL.
  uint8_t vc_in(const rte_mbuf* m) const {
    if (vcs_ == 1) return 0;
    const uint8_t ttl = net::frame_ttl(rte_pktmbuf_mtod(m, const uint8_t*));
    return net::vc_on_link(static_cast<uint8_t>(ttl + 1), vcs_);
  }
  // The VC frame `m` leaves in (its TTL decremented).
  uint8_t vc_out(const rte_mbuf* m) const {
    return net::vc_on_link(net::frame_ttl(rte_pktmbuf_mtod(m, const uint8_t*)), vcs_);
  }
  // A frame admitted to the buffer leaves it without being sent (dropped): its ingress port's
  // PFC bytes or credits are freed.
  void uncharge(const rte_mbuf* m) {
    if (pfc_ != nullptr) pfc_->left(m->port, vc_in(m), rte_pktmbuf_pkt_len(m));
    if (credits_ != nullptr) credits_->left(m->port, vc_in(m), rte_pktmbuf_pkt_len(m));
  }

  SwitchRuntime& rt_;
  Pfc* pfc_;  // buffer.flow_control: pfc; nullptr without
  Credits* credits_;  // buffer.flow_control: credit; nullptr without
  uint8_t vcs_;       // buffer.virtual_channels
  // Per port, with VCs: the VC its drain tries first (the one after the VC it served last).
  std::array<uint8_t, kMaxPorts> next_vc_{};
  // Per port, with VCs: bit v set when VC v's queue may hold frames (set by enqueue_channels(),
  // cleared when drain_channels() finds the queue empty). The drain looks only at those: asking
  // each VC's queue for its frames touched its struct and both ends of its ring, three lines a
  // VC, on every transmit, and that was the largest share of a credited fabric's simulation
  // (a quarter of SwitchNode::transmit's samples, itself 11 % of an mrls-100k variant, 4 VCs).
  std::array<uint32_t, kMaxPorts> vc_busy_{};
  uint32_t worker_;
  WorkerCounters& c_;
  lb::Rng rng_;
  // The burst's balancing inputs and outputs: members, not locals, because lb::Packet's default
  // member initialisers would clear 1.3 KB on every burst.
  std::array<lb::Packet, net::kBurst> choice_;
  std::array<uint16_t, net::kBurst> choice_of_;  // index into the burst of each choice_ packet
  // Per-port staging for the current burst (or the bursts process() holds): enqueued with one
  // ring operation, or sent with one device call, per port.
  // kStaged frames a port, for the switch's ports only (not kMaxPorts: 64 KB a forwarder, 71 KB
  // of a fabric's switch node, was the largest per-switch cost of a large virtual fabric).
  static constexpr uint16_t kStaged = 2 * net::kBurst;
  std::vector<rte_mbuf*> staged_;
  std::array<uint16_t, kMaxPorts> staged_count_{};
  std::array<uint32_t, kMaxPorts> staged_bytes_{};  // their bytes on the wire
  // The header rewrite (MACs, TTL) as a frame is staged, its header still in the cache from
  // parse, rather than in admit(): unless trimming or virtual channels read the header as it came
  // in (a trimmed frame is cut before its rewrite; a VC is told by the arriving TTL). A frame
  // admit() then drops was rewritten for nothing, and is freed unseen.
  bool rewrite_at_stage_;
  // Balancing decisions of the current burst per port, added to the port's counter by flush():
  // a plain array, because an atomic counter's load-add-store per packet was a hot spot.
  std::array<uint16_t, kMaxPorts> decided_{};
  std::array<uint16_t, kMaxPorts> touched_{};  // ports with frames staged, each once (listed_)
  std::array<bool, kMaxPorts> listed_{};
  uint16_t touched_count_ = 0;
  std::array<uint32_t, kMaxPorts> drain_waits_{};  // turns each port's drain was deferred in a row
  DirectTx direct_send_ = nullptr;
  void* direct_ctx_ = nullptr;
  std::array<bool, kMaxPorts> direct_{};  // ports this worker may send on straight (set_direct_tx)
  // Each port's Ethernet addresses as its frames carry them (destination, source) in bytes
  // 0..11 of 16: the rewrite is one 16-byte load, blend and store of the header's first 16 bytes
  // (l3fwd's processx4_step3), the ethertype and what follows it kept (rewrite_macs()).
  struct alignas(16) MacPair {
    uint8_t bytes[16];
  };
  std::array<MacPair, kMaxPorts> macs_{};
  // The frames admit() trimmed for the port it admits to: its priority class's.
  std::array<rte_mbuf*, kStaged> trimmed_{};
  uint16_t trimmed_count_ = 0;
  uint32_t trimmed_bytes_ = 0;
  // Several workers: the ports' total depths as this worker's balancer reads them, summed once per
  // burst (SwitchRuntime::queue_view; docs/switch.md, "Several workers").
  std::array<std::atomic<uint32_t>, kMaxPorts> depth_snapshot_{};
};

template <typename Tx>
uint16_t Forwarder::drain(uint16_t p, uint64_t now_ns, Tx&& tx) {
  if (!rt_.port_up(p)) {
    discard(p);
    return 0;
  }
  if (const double rate = rt_.take_rate_request(p); rate > 0) rt_.egress_queues().set_rate(p, rate);
  uint32_t bytes;
  uint16_t sent;
  if (vcs_ > 1) {
    sent = drain_channels(p, now_ns, tx, bytes);
  } else if (credits_ != nullptr) {
    sent = drain_credited(p, now_ns, tx, bytes);
  } else if (pfc_ == nullptr) {
    sent = rt_.egress_queues().drain(
        p, worker_, now_ns,
        [&tx, p](rte_mbuf** m, uint16_t n) -> uint16_t { return tx(p, m, n); }, bytes);
  } else {
    if (pfc_->paused(p, 0, now_ns)) return 0;  // the peer paused the port: nothing starts
    // What leaves is uncharged from the port it came in on (Forwarder::process put it in
    // mbuf::port), read before the device owns the frames.
    sent = rt_.egress_queues().drain(
        p, worker_, now_ns,
        [this, &tx, p](rte_mbuf** m, uint16_t n) -> uint16_t {
          std::array<uint16_t, 2 * net::kBurst> from;
          std::array<uint32_t, 2 * net::kBurst> len;
          for (uint16_t i = 0; i < n; ++i) {
            from[i] = m[i]->port;
            len[i] = rte_pktmbuf_pkt_len(m[i]);
          }
          const uint16_t k = tx(p, m, n);
          for (uint16_t i = 0; i < k; ++i) pfc_->left(from[i], 0, len[i]);
          return k;
        },
        bytes);
  }
  if (sent == 0) return 0;
  c_.port[p].tx_packets.add(sent);
  c_.port[p].tx_bytes.add(bytes);
  return sent;
}

template <typename Tx>
uint16_t Forwarder::drain_credited(uint16_t p, uint64_t now_ns, Tx&& tx, uint32_t& bytes) {
  return rt_.egress_queues().drain(
      p, worker_, now_ns,
      [this, &tx, p, now_ns](rte_mbuf** m, uint16_t n) -> uint16_t {
        const uint16_t k =
            credits_->fits(p, 0, n, [m](uint16_t i) { return rte_pktmbuf_pkt_len(m[i]); });
        if (k == 0) {
          credits_->stall(p, now_ns);  // a credit frame from the peer ends it
          return 0;
        }
        // What leaves spends p's credits and frees those of the port it came in on
        // (mbuf::port), read before the device owns the frames.
        std::array<uint16_t, 2 * net::kBurst> from;
        std::array<uint32_t, 2 * net::kBurst> len;
        for (uint16_t i = 0; i < k; ++i) {
          from[i] = m[i]->port;
          len[i] = rte_pktmbuf_pkt_len(m[i]);
        }
        const uint16_t sent = tx(p, m, k);
        for (uint16_t i = 0; i < sent; ++i) {
          credits_->sent(p, 0, len[i]);
          credits_->left(from[i], 0, len[i]);
        }
        return sent;
      },
      bytes);
}

template <typename Tx>
uint16_t Forwarder::drain_channels(uint16_t p, uint64_t now_ns, Tx&& tx, uint32_t& bytes) {
  EgressQueues& eq = rt_.egress_queues();
  Shaper& shaper = eq.port_queue(p).shaper();
  uint16_t sent = 0;
  bytes = 0;
  bool short_of_credits = false;  // some VC had a frame the shaper let start but no credits
  uint8_t served = vcs_;          // the first VC that sent (vcs_: none)
  uint8_t vc = next_vc_[p];
  for (uint8_t k = 0; k < vcs_; ++k, vc = static_cast<uint8_t>(vc + 1 == vcs_ ? 0 : vc + 1)) {
    if ((vc_busy_[p] & (1u << vc)) == 0) continue;  // empty since its last drain
    EgressQueue& q = eq.vc_queue(p, vc);
    if (q.frames() == 0) {
      vc_busy_[p] &= ~(1u << vc);
      continue;
    }
    if (pfc_ != nullptr && pfc_->paused(p, vc, now_ns)) continue;  // this class only
    uint32_t b = 0;
    const uint16_t s = q.drain(
        now_ns, shaper,
        [&](rte_mbuf** m, uint16_t n) -> uint16_t {
          // What may start: all (PFC, not paused), or what the VC's credits cover.
          const uint16_t k = credits_ == nullptr
                                 ? n
                                 : credits_->fits(p, vc, n, [m](uint16_t i) {
                                     return rte_pktmbuf_pkt_len(m[i]);
                                   });
          if (k == 0) {
            short_of_credits = true;
            return 0;
          }
          // What leaves frees the bytes or credits of the port and VC it came in on, read
          // before the device owns the frames. The VC in is read off the TTL (vc_in()).
          std::array<uint16_t, 2 * net::kBurst> from;
          std::array<uint8_t, 2 * net::kBurst> from_vc;
          std::array<uint32_t, 2 * net::kBurst> len;
          for (uint16_t i = 0; i < k; ++i) {
            from[i] = m[i]->port;
            from_vc[i] = vc_in(m[i]);
            len[i] = rte_pktmbuf_pkt_len(m[i]);
          }
          const uint16_t out = tx(p, m, k);
          for (uint16_t i = 0; i < out; ++i) {
            if (credits_ != nullptr) {
              credits_->sent(p, vc, len[i]);
              credits_->left(from[i], from_vc[i], len[i]);
            } else {
              pfc_->left(from[i], from_vc[i], len[i]);
            }
          }
          return out;
        },
        b);
    if (s > 0 && served == vcs_) served = vc;
    if (q.frames() == 0) vc_busy_[p] &= ~(1u << vc);
    sent = static_cast<uint16_t>(sent + s);
    bytes += b;
  }
  if (served != vcs_) next_vc_[p] = static_cast<uint8_t>(served + 1 == vcs_ ? 0 : served + 1);
  if (sent == 0 && short_of_credits) credits_->stall(p, now_ns);  // a credit frame ends it
  return sent;
}

}  // namespace spraylab::dataplane
