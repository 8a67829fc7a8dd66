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
// Owned by one worker (SwitchRuntime refuses credits with several): plain state, no atomics but
// the counters the metrics read. The credit frames owed are taken with take_due(): the caller
// (the fabric's switch or host node) builds them and sends them ahead of the port's data.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "switch/dataplane/counter.h"

namespace spraylab::dataplane {

// Every receiver's buffer (conf: buffer.credit).
struct CreditLimits {
  uint64_t bytes = 0;
  uint64_t unit = 64;
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
        held_(ports, 0),
        consumed_(ports, 0),
        freed_(ports, 0),
        spent_(ports, 0),
        granted_(ports, 0),
        stall_start_(ports, 0),
        stalled_ns_(ports, 0),
        stalled_(ports, 0),
        due_(ports, 0),
        counters_(ports) {
    due_ports_.reserve(ports);
  }

  uint16_t ports() const { return static_cast<uint16_t>(held_.size()); }
  // A frame's credits.
  uint64_t cost(uint32_t len) const { return (len + unit_ - 1) / unit_; }
  // Every buffer's credits.
  uint64_t limit() const { return limit_; }

  // --- the receiver ---
  // A frame of `len` bytes from port p asks for room: true (and charged) while the port's buffer
  // holds it, else false (the caller drops it: DropReason::kCreditOverrun).
  bool admit(uint16_t p, uint32_t len) {
    const uint64_t c = cost(len);
    if (held_[p] + c > limit_) return false;
    held_[p] += c;
    consumed_[p] += c;
    return true;
  }
  // A frame charged to port p left the buffer: its credits are owed to p's sender.
  void left(uint16_t p, uint32_t len) {
    const uint64_t c = cost(len);
    held_[p] -= c;
    freed_[p] += c;
    if (!due_[p]) {
      due_[p] = 1;
      due_ports_.push_back(p);
    }
  }
  // The credit frames owed, as send(port, cumulative freed credits) → whether it went out; one
  // per port that freed credits since its last. A frame the link refused stays owed.
  template <typename Send>
  void take_due(Send&& send) {
    size_t kept = 0;
    for (const uint16_t p : due_ports_) {
      if (!send(p, freed_[p])) {
        due_ports_[kept++] = p;
        continue;
      }
      due_[p] = 0;
      counters_[p].frames_sent.inc();
    }
    due_ports_.resize(kept);
  }
  bool owes() const { return !due_ports_.empty(); }

  // --- the sender ---
  // How many of the frames m[0..n) (lengths from `len_of`) port p may start now, in order.
  template <typename Len>
  uint16_t fits(uint16_t p, uint16_t n, Len&& len_of) const {
    uint64_t spent = spent_[p] - granted_[p];
    uint16_t k = 0;
    while (k < n) {
      spent += cost(len_of(k));
      if (spent > limit_) break;
      ++k;
    }
    return k;
  }
  bool may_send(uint16_t p, uint32_t len) const {
    return spent_[p] - granted_[p] + cost(len) <= limit_;
  }
  // Port p started a frame of `len` bytes.
  void sent(uint16_t p, uint32_t len) { spent_[p] += cost(len); }
  // Port p had a frame to start at `now` but not its credits: a stall begins (if none is open).
  void stall(uint16_t p, uint64_t now) {
    if (stalled_[p]) return;
    stalled_[p] = 1;
    stall_start_[p] = now;
    counters_[p].stalls.inc();
  }
  bool stalled(uint16_t p) const { return stalled_[p] != 0; }
  // Port p's peer freed `freed` credits in all (a credit frame arrived at `now`): the stall, if
  // any, ends (the caller tries again, and stalls again if the credits are still short).
  void received(uint16_t p, uint64_t freed, uint64_t now) {
    counters_[p].frames_received.inc();
    if (freed > granted_[p]) granted_[p] = freed;  // a late frame's older count changes nothing
    if (!stalled_[p]) return;
    stalled_[p] = 0;
    stalled_ns_[p] += now - stall_start_[p];
  }
  // The time port p waited for credits, up to `now`.
  uint64_t stalled_ns(uint16_t p, uint64_t now) const {
    return stalled_ns_[p] + (stalled_[p] && now > stall_start_[p] ? now - stall_start_[p] : 0);
  }

  // --- the balance (results, tests) ---
  uint64_t consumed(uint16_t p) const { return consumed_[p]; }  // as the receiver, charged
  uint64_t freed(uint16_t p) const { return freed_[p]; }        // as the receiver, given back
  uint64_t held(uint16_t p) const { return held_[p]; }
  uint64_t spent(uint16_t p) const { return spent_[p]; }       // as the sender
  uint64_t granted(uint16_t p) const { return granted_[p]; }   // as the sender, returned
  const CreditPortCounters& counters(uint16_t p) const { return counters_[p]; }

  // --- for a reader on another thread (the metrics): the worker's words read as relaxed atomics,
  // each whole and as of a moment ago ---
  uint64_t consumed_seen(uint16_t p) const { return seen(consumed_[p]); }
  uint64_t freed_seen(uint16_t p) const { return seen(freed_[p]); }
  uint64_t stalled_ns_seen(uint16_t p, uint64_t now) const {
    const uint64_t start = seen(stall_start_[p]);
    const bool open = std::atomic_ref<uint8_t>(const_cast<uint8_t&>(stalled_[p]))
                          .load(std::memory_order_relaxed) != 0;
    return seen(stalled_ns_[p]) + (open && now > start ? now - start : 0);
  }

 private:
  static uint64_t seen(const uint64_t& v) {
    return std::atomic_ref<uint64_t>(const_cast<uint64_t&>(v)).load(std::memory_order_relaxed);
  }

  uint64_t unit_;
  uint64_t limit_;                 // credits of every buffer: bytes / unit
  std::vector<uint64_t> held_;     // receiver: credits charged to each port and not yet freed
  std::vector<uint64_t> consumed_, freed_;  // receiver: cumulative
  std::vector<uint64_t> spent_, granted_;   // sender: cumulative; spent - granted outstanding
  std::vector<uint64_t> stall_start_, stalled_ns_;
  std::vector<uint8_t> stalled_;
  std::vector<uint8_t> due_;
  std::vector<uint16_t> due_ports_;
  std::vector<CreditPortCounters> counters_;
};

}  // namespace spraylab::dataplane
