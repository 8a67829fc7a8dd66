// Credit-based flow control (buffer.flow_control: credit) at one node, both of its roles, per
// port: the switch's, and a host NIC's (fabric/emu/host_node.h). As UEC's CBFC and CAMINOS do it.
//
// Receiver. Every link's receiver has a buffer of `bytes` for that link alone (a switch: per
// ingress port; a host: its NIC's). Every byte in the switch is charged to the port it came in on,
// from admission to the moment it leaves (sent, or dropped after admission); as it leaves, its
// credits are freed and owed back to that port's sender in a credit frame (net/credit_frame.h),
// which carries the port's cumulative freed credits. A frame that finds its port's buffer full is
// a counted drop (credit_overrun): only a sender that ignored its credits gets there.
//
// Sender. Port p holds `bytes` of credits for its peer's buffer: it starts a frame only while the
// credits it has not spent cover the frame's, and spends them as the frame starts; a credit frame
// from the peer gives back what the peer freed. Egress tail drop is off: what waits, waits in the
// sender's queue. The time a port had a frame to start but not the credits is its stall.
//
// Credits count whole `unit`s: a frame of len bytes takes ceil(len / unit). Credit frames need no
// credits: they go ahead of the data queue, onto the link, as PFC frames do.
//
// Virtual channels (buffer.virtual_channels, net/virtual_channel.h): every link's receiver has a
// buffer of `bytes` per VC (as CAMINOS sizes them), and its sender credits per VC; a credit frame
// names its VC. With one VC this is exactly the single buffer above.
//
// Owned by one worker (SwitchRuntime refuses credits with several): plain state, no atomics but
// the counters the metrics read. The credit frames owed are taken with take_due(): the caller
// (the fabric's switch or host node) builds them and sends them ahead of the port's data.
#pragma once

#include <cstdint>
#include <vector>

#include "switch/dataplane/counter.h"

namespace spraylab::dataplane {

// Every receiver's buffer (conf: buffer.credit), per virtual channel (buffer.virtual_channels).
struct CreditLimits {
  uint64_t bytes = 0;  // per VC: each VC of a link has a buffer of its own, of this size
  uint64_t unit = 64;
  uint8_t vcs = 1;
};

// What the metrics and the results read of one port.
struct CreditPortCounters {
  Counter frames_sent;      // as the receiver: credit frames sent on this port to its sender
  Counter frames_received;  // as the sender: credit frames this port's peer sent
  Counter stalls;           // as the sender: times the port had a frame but not its credits
};

class Credits {
 public:
  Credits(const CreditLimits& l, uint16_t ports)
      : unit_(l.unit),
        limit_(l.bytes / l.unit),
        vcs_(l.vcs),
        held_(size_t{ports} * l.vcs, 0),
        consumed_(size_t{ports} * l.vcs, 0),
        freed_(size_t{ports} * l.vcs, 0),
        spent_(size_t{ports} * l.vcs, 0),
        granted_(size_t{ports} * l.vcs, 0),
        stall_start_(ports, 0),
        stalled_ns_(ports, 0),
        stalled_(ports, 0),
        due_(size_t{ports} * l.vcs, 0),
        counters_(ports) {
    due_channels_.reserve(due_.size());
  }

  uint16_t ports() const { return static_cast<uint16_t>(stalled_.size()); }
  uint8_t vcs() const { return vcs_; }
  // A frame's credits.
  uint64_t cost(uint32_t len) const { return (len + unit_ - 1) / unit_; }
  // Every buffer's credits (each VC's).
  uint64_t limit() const { return limit_; }

  // --- the receiver ---
  // A frame of `len` bytes from port p in VC `vc` asks for room: true (and charged) while that
  // VC's buffer holds it, else false (the caller drops it: DropReason::kCreditOverrun).
  bool admit(uint16_t p, uint8_t vc, uint32_t len) {
    const size_t i = at(p, vc);
    const uint64_t c = cost(len);
    if (held_[i] + c > limit_) return false;
    held_[i] += c;
    consumed_[i] += c;
    return true;
  }
  // A frame charged to port p's VC `vc` left the buffer: its credits are owed to p's sender.
  void left(uint16_t p, uint8_t vc, uint32_t len) {
    const size_t i = at(p, vc);
    const uint64_t c = cost(len);
    held_[i] -= c;
    freed_[i] += c;
    if (!due_[i]) {
      due_[i] = 1;
      due_channels_.push_back(static_cast<uint32_t>(i));
    }
  }
  // The credit frames owed, as send(port, vc, cumulative freed credits) → whether it went out;
  // one per port and VC that freed credits since its last. A frame the link refused stays owed.
  template <typename Send>
  void take_due(Send&& send) {
    size_t kept = 0;
    for (const uint32_t i : due_channels_) {
      const auto p = static_cast<uint16_t>(i / vcs_);
      if (!send(p, static_cast<uint8_t>(i % vcs_), freed_[i])) {
        due_channels_[kept++] = i;
        continue;
      }
      due_[i] = 0;
      counters_[p].frames_sent.inc();
    }
    due_channels_.resize(kept);
  }
  bool owes() const { return !due_channels_.empty(); }

  // --- the sender ---
  // How many of the frames m[0..n) (lengths from `len_of`) port p may start now in VC `vc`, in
  // order.
  template <typename Len>
  uint16_t fits(uint16_t p, uint8_t vc, uint16_t n, Len&& len_of) const {
    const size_t i = at(p, vc);
    uint64_t spent = spent_[i] - granted_[i];
    uint16_t k = 0;
    while (k < n) {
      spent += cost(len_of(k));
      if (spent > limit_) break;
      ++k;
    }
    return k;
  }
  bool may_send(uint16_t p, uint8_t vc, uint32_t len) const {
    const size_t i = at(p, vc);
    return spent_[i] - granted_[i] + cost(len) <= limit_;
  }
  // Port p started a frame of `len` bytes in VC `vc`.
  void sent(uint16_t p, uint8_t vc, uint32_t len) { spent_[at(p, vc)] += cost(len); }
  // Port p had frames to start at `now` but no VC with their credits: a stall begins (if none is
  // open).
  void stall(uint16_t p, uint64_t now) {
    if (stalled_[p]) return;
    stalled_[p] = 1;
    stall_start_[p] = now;
    counters_[p].stalls.inc();
  }
  bool stalled(uint16_t p) const { return stalled_[p] != 0; }
  // Port p's peer freed `freed` credits of VC `vc` in all (a credit frame arrived at `now`): the
  // stall, if any, ends (the caller tries again, and stalls again if the credits are still short).
  void received(uint16_t p, uint8_t vc, uint64_t freed, uint64_t now) {
    counters_[p].frames_received.inc();
    uint64_t& granted = granted_[at(p, vc)];
    if (freed > granted) granted = freed;  // a late frame's older count changes nothing
    if (!stalled_[p]) return;
    stalled_[p] = 0;
    stalled_ns_[p] += now - stall_start_[p];
  }
  // The time port p waited for credits, up to `now`.
  uint64_t stalled_ns(uint16_t p, uint64_t now) const {
    return stalled_ns_[p] + (stalled_[p] && now > stall_start_[p] ? now - stall_start_[p] : 0);
  }

  // --- the balance (results, tests): port p's sums over its VCs ---
  uint64_t consumed(uint16_t p) const { return sum(consumed_, p); }  // as the receiver, charged
  uint64_t freed(uint16_t p) const { return sum(freed_, p); }        // as the receiver, given back
  uint64_t held(uint16_t p) const { return sum(held_, p); }
  uint64_t spent(uint16_t p) const { return sum(spent_, p); }       // as the sender
  uint64_t granted(uint16_t p) const { return sum(granted_, p); }   // as the sender, returned
  // One VC's: what the receiver holds of it.
  uint64_t held(uint16_t p, uint8_t vc) const { return held_[at(p, vc)]; }
  const CreditPortCounters& counters(uint16_t p) const { return counters_[p]; }

  // --- for a reader on another thread (the metrics): the worker's words read as relaxed atomics,
  // each whole and as of a moment ago ---
  uint64_t consumed_seen(uint16_t p) const { return sum_seen(consumed_, p); }
  uint64_t freed_seen(uint16_t p) const { return sum_seen(freed_, p); }
  uint64_t stalled_ns_seen(uint16_t p, uint64_t now) const {
    const uint64_t start = racy_load(stall_start_[p]);
    const bool open = racy_load(stalled_[p]) != 0;
    return racy_load(stalled_ns_[p]) + (open && now > start ? now - start : 0);
  }

 private:
  // Port p's VCs are neighbours: one port's state in one or two cache lines.
  size_t at(uint16_t p, uint8_t vc) const { return size_t{p} * vcs_ + vc; }
  uint64_t sum(const std::vector<uint64_t>& v, uint16_t p) const {
    uint64_t s = 0;
    for (uint8_t vc = 0; vc < vcs_; ++vc) s += v[at(p, vc)];
    return s;
  }
  uint64_t sum_seen(const std::vector<uint64_t>& v, uint16_t p) const {
    uint64_t s = 0;
    for (uint8_t vc = 0; vc < vcs_; ++vc) s += racy_load(v[at(p, vc)]);
    return s;
  }

  uint64_t unit_;
  uint64_t limit_;                 // credits of every buffer (each VC's): bytes / unit
  uint8_t vcs_;
  // Per port and VC (at()):
  std::vector<uint64_t> held_;     // receiver: credits charged to each port and not yet freed
  std::vector<uint64_t> consumed_, freed_;  // receiver: cumulative
  std::vector<uint64_t> spent_, granted_;   // sender: cumulative; spent - granted outstanding
  // Per port: a port stalls when none of its VCs with frames has their credits.
  std::vector<uint64_t> stall_start_, stalled_ns_;
  std::vector<uint8_t> stalled_;
  std::vector<uint8_t> due_;               // per port and VC: a credit frame owed
  std::vector<uint32_t> due_channels_;     // at() of each owed one, in the order they fell due
  std::vector<CreditPortCounters> counters_;
};

}  // namespace spraylab::dataplane
