// Priority-based flow control (IEEE 802.1Qbb, buffer.flow_control: pfc) at one switch: both of
// its roles, per port.
//
// Receiver (ingress accounting). Every byte in the switch's buffer is charged to the port it came
// in on, from admission to the moment it leaves (sent, or dropped after admission). When a port's
// bytes pass XOFF the switch owes that port's upstream a PAUSE (maximum quanta); when they fall
// to XON again, a resume (quanta 0). Above XOFF the buffer still takes what was already on its way
// — the frames on the wire and the one the upstream had started — up to XOFF + headroom; a frame
// beyond that is a counted drop (pfc_headroom), which a headroom sized for the link's round trip
// never sees. Egress tail drop is off: the ingress limit is what bounds the buffer.
//
// Sender (paused transmitter). A PAUSE received on port p stops p's egress from starting frames
// for its quanta (at p's rate) or until a resume; a frame already on the wire finishes. The pause
// covers data only: PFC frames themselves go ahead of the data queue, whatever the port's state.
//
// One priority class, kPfcDataClass (0), carries every data frame: the frames keep the class
// vector and all eight quanta, and a pause for another class is counted and has no effect.
//
// Owned by one worker (SwitchRuntime refuses PFC with several): plain state, no atomics but the
// counters the metrics read. The control frames owed are taken with take_due(): the caller (the
// fabric's switch node) builds them and sends them ahead of the port's data.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <vector>

#include "net/pfc_frame.h"
#include "switch/dataplane/counter.h"

namespace spraylab::dataplane {

// The thresholds of every ingress port, in bytes (conf: buffer.pfc).
struct PfcThresholds {
  uint64_t xoff = 0;
  uint64_t xon = 0;
  uint64_t headroom = 0;
};

// What the metrics and the results read of one port.
struct PfcPortCounters {
  Counter pause_sent, resume_sent;          // as the receiver: frames sent upstream on this port
  Counter pause_received, resume_received;  // as the sender: frames this port's peer sent
  Counter other_class;                      // pauses for a class carrying no data (no effect)
  Counter send_failed;  // owed frames not sent at a try (no mbuf, link or tx queue full): owed still
};

class Pfc {
 public:
  // `rates_bps`: each port's link rate (the quanta's unit).
  Pfc(const PfcThresholds& t, std::vector<double> rates_bps)
      : t_(t),
        rates_(std::move(rates_bps)),
        bytes_(rates_.size(), 0),
        xoff_(rates_.size(), 0),
        told_(rates_.size(), 1),
        told_pause_(rates_.size(), 0),
        refresh_at_(rates_.size(), 0),
        paused_until_(rates_.size(), 0),
        pause_start_(rates_.size(), 0),
        paused_ns_(rates_.size(), 0),
        due_(rates_.size(), 0),
        counters_(rates_.size()) {
    due_ports_.reserve(rates_.size());
  }

  const PfcThresholds& thresholds() const { return t_; }
  uint16_t ports() const { return static_cast<uint16_t>(rates_.size()); }

  // --- the receiver ---
  // A frame of `len` bytes from ingress port p asks for room: true (and charged) while the port
  // is within XOFF + headroom, else false (the caller drops it: DropReason::kPfcHeadroom).
  bool admit(uint16_t p, uint32_t len) {
    if (bytes_[p] + len > t_.xoff + t_.headroom) return false;
    bytes_[p] += len;
    if (bytes_[p] > t_.xoff && !xoff_[p]) {
      xoff_[p] = 1;
      owe(p);
    }
    return true;
  }
  // A frame charged to ingress port p left the buffer.
  void left(uint16_t p, uint32_t len) {
    bytes_[p] -= len;
    if (xoff_[p] && bytes_[p] <= t_.xon) {
      xoff_[p] = 0;
      owe(p);
    }
  }
  // A frame arrived on port p at `now`: if the port is still over XOFF and the upstream's pause
  // has run half its quanta (it sends again when they end), the PAUSE is owed again.
  void arrived(uint16_t p, uint64_t now) {
    if (xoff_[p] && told_[p] && told_pause_[p] && now >= refresh_at_[p]) {
      told_[p] = 0;
      owe(p);
    }
  }
  // The control frames owed, as send(port, frame) → whether it went out; one per port whose state
  // the upstream does not know yet. A frame the link refused stays owed.
  template <typename Send>
  void take_due(uint64_t now, Send&& send);
  bool owes() const { return !due_ports_.empty(); }
  uint64_t ingress_bytes(uint16_t p) const { return bytes_[p]; }

  // --- the sender ---
  // Port p's peer sent `f` at arrival time `now`.
  void received(uint16_t p, const net::PfcFrame& f, uint64_t now);
  // True while port p may start no data frame; paused_until(p) says until when at most.
  bool paused(uint16_t p, uint64_t now) const { return now < paused_until_[p]; }
  uint64_t paused_until(uint16_t p) const { return paused_until_[p]; }
  // The time port p was paused, up to `now`.
  uint64_t paused_ns(uint16_t p, uint64_t now) const {
    const uint64_t open = pause_start_[p] < paused_until_[p] && pause_start_[p] < now
                              ? std::min(now, paused_until_[p]) - pause_start_[p]
                              : 0;
    return paused_ns_[p] + open;
  }
  // The same for a reader on another thread (the metrics): the worker's words read as relaxed
  // atomics, each whole, the sum as of a moment ago (never more than the worker's clock allows).
  uint64_t paused_ns_seen(uint16_t p, uint64_t now) const {
    const uint64_t start = seen(pause_start_[p]), until = seen(paused_until_[p]);
    const uint64_t open = start < until && start < now ? std::min(now, until) - start : 0;
    return seen(paused_ns_[p]) + open;
  }

  const PfcPortCounters& counters(uint16_t p) const { return counters_[p]; }

 private:
  void owe(uint16_t p) {
    if (due_[p]) return;
    due_[p] = 1;
    due_ports_.push_back(p);
  }

  static uint64_t seen(const uint64_t& v) {
    return std::atomic_ref<uint64_t>(const_cast<uint64_t&>(v)).load(std::memory_order_relaxed);
  }

  PfcThresholds t_;
  std::vector<double> rates_;
  std::vector<uint64_t> bytes_;      // charged to each ingress port
  std::vector<uint8_t> xoff_;        // over XOFF (not yet back to XON)
  std::vector<uint8_t> told_;        // told_pause_ is what the upstream knows (0: send again)
  std::vector<uint8_t> told_pause_;  // the last state sent upstream: paused or not
  std::vector<uint64_t> refresh_at_;  // a PAUSE sent: when it is owed again, still over XOFF
  std::vector<uint64_t> paused_until_, pause_start_, paused_ns_;  // the sender's pause
  std::vector<uint8_t> due_;
  std::vector<uint16_t> due_ports_;
  std::vector<PfcPortCounters> counters_;
};

template <typename Send>
void Pfc::take_due(uint64_t now, Send&& send) {
  size_t kept = 0;
  for (const uint16_t p : due_ports_) {
    // told_ means the upstream knows xoff_: a resume owed after a pause still unsent cancels it.
    const bool pause = xoff_[p] != 0;
    if (told_[p] && (told_pause_[p] != 0) == pause) {
      due_[p] = 0;
      continue;
    }
    const net::PfcFrame f =
        net::PfcFrame::for_class(net::kPfcDataClass, pause ? net::kPfcMaxQuanta : 0);
    if (!send(p, f)) {
      counters_[p].send_failed.inc();
      due_ports_[kept++] = p;
      continue;
    }
    due_[p] = 0;
    told_[p] = 1;
    told_pause_[p] = pause;
    if (pause) {
      counters_[p].pause_sent.inc();
      // Half the pause's time: the next arrival after it renews the pause (arrived()).
      refresh_at_[p] = now + net::pfc_quanta_ns(net::kPfcMaxQuanta, rates_[p]) / 2;
    } else {
      counters_[p].resume_sent.inc();
    }
  }
  due_ports_.resize(kept);
}

inline void Pfc::received(uint16_t p, const net::PfcFrame& f, uint64_t now) {
  constexpr uint16_t kData = 1u << net::kPfcDataClass;
  if ((f.class_enable & ~kData) != 0) counters_[p].other_class.inc();
  if ((f.class_enable & kData) == 0) return;
  const uint16_t q = f.quanta[net::kPfcDataClass];
  if (q == 0) {
    counters_[p].resume_received.inc();
    if (!paused(p, now)) return;
    paused_ns_[p] += now - pause_start_[p];
    pause_start_[p] = paused_until_[p] = now;
    return;
  }
  counters_[p].pause_received.inc();
  const uint64_t until = now + net::pfc_quanta_ns(q, rates_[p]);
  if (!paused(p, now)) {  // a new pause: the last one (resumed or run out) is closed
    paused_ns_[p] += paused_until_[p] - pause_start_[p];
    pause_start_[p] = now;
  }
  paused_until_[p] = until;  // a pause renewed counts from its own arrival
}

}  // namespace spraylab::dataplane
