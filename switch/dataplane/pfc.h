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
// Each (port, class) obeys its pauses as the generator's ports do: net::PfcClassPause
// (net/pfc_pause.h) holds that rule; this class converts the quanta at the port's rate and counts.
//
// Classes: with one virtual channel, kPfcDataClass (0) carries every data frame; with V
// (buffer.virtual_channels) VC v travels in class v, 0..V-1, and every state above is per
// (port, class): its own bytes, XOFF and XON at each ingress port, its own pause at each egress
// port, a pause frame per class. The frames keep the class vector and all eight quanta, and a
// pause for a class carrying no data is counted and has no effect.
//
// Owned by one worker (SwitchRuntime refuses PFC with several): plain state, no atomics but the
// counters the metrics read. The control frames owed are taken with take_due(): the caller (the
// fabric's switch node) builds them and sends them ahead of the port's data.
#pragma once

#include <cstdint>
#include <vector>

#include "net/pfc_frame.h"
#include "net/pfc_pause.h"
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
  // Owed frames not sent at a try (no mbuf, link or tx queue full): owed still.
  Counter send_failed;
};

class Pfc {
 public:
  // `rates_bps`: each port's link rate (the quanta's unit). `classes`: the priority classes that
  // carry data, 0..classes-1 (one per virtual channel; 1: kPfcDataClass alone).
  Pfc(const PfcThresholds& t, std::vector<double> rates_bps, uint8_t classes = 1)
      : t_(t),
        classes_(classes),
        rates_(std::move(rates_bps)),
        bytes_(rates_.size() * classes, 0),
        xoff_(rates_.size() * classes, 0),
        told_(rates_.size() * classes, 1),
        told_pause_(rates_.size() * classes, 0),
        refresh_at_(rates_.size() * classes, 0),
        pause_(rates_.size() * classes),
        due_(rates_.size() * classes, 0),
        counters_(rates_.size()) {
    due_channels_.reserve(due_.size());
  }

  const PfcThresholds& thresholds() const { return t_; }
  uint16_t ports() const { return static_cast<uint16_t>(rates_.size()); }
  uint8_t classes() const { return classes_; }

  // --- the receiver: per ingress port and class ---
  // A frame of `len` bytes from ingress port p in class c asks for room: true (and charged) while
  // the port's class is within XOFF + headroom, else false (the caller drops it:
  // DropReason::kPfcHeadroom).
  bool admit(uint16_t p, uint8_t c, uint32_t len) {
    const size_t i = at(p, c);
    if (bytes_[i] + len > t_.xoff + t_.headroom) return false;
    bytes_[i] += len;
    if (bytes_[i] > t_.xoff && !xoff_[i]) {
      xoff_[i] = 1;
      owe(i);
    }
    return true;
  }
  // A frame charged to ingress port p's class c left the buffer.
  void left(uint16_t p, uint8_t c, uint32_t len) {
    const size_t i = at(p, c);
    bytes_[i] -= len;
    if (xoff_[i] && bytes_[i] <= t_.xon) {
      xoff_[i] = 0;
      owe(i);
    }
  }
  // A frame arrived on port p at `now`: for each class still over XOFF whose upstream pause has
  // run half its quanta (it sends again when they end), the PAUSE is owed again.
  void arrived(uint16_t p, uint64_t now) {
    for (uint8_t c = 0; c < classes_; ++c) {
      const size_t i = at(p, c);
      if (xoff_[i] && told_[i] && told_pause_[i] && now >= refresh_at_[i]) {
        told_[i] = 0;
        owe(i);
      }
    }
  }
  // The control frames owed, as send(port, frame) → whether it went out; one per port and class
  // whose state the upstream does not know yet. A frame the link refused stays owed.
  template <typename Send>
  void take_due(uint64_t now, Send&& send);
  bool owes() const { return !due_channels_.empty(); }
  uint64_t ingress_bytes(uint16_t p, uint8_t c) const { return bytes_[at(p, c)]; }

  // --- the sender: per egress port and class ---
  // Port p's peer sent `f` at arrival time `now`.
  void received(uint16_t p, const net::PfcFrame& f, uint64_t now);
  // True while port p may start no data frame of class c; paused_until(p, c) says until when at
  // most.
  bool paused(uint16_t p, uint8_t c, uint64_t now) const { return pause_[at(p, c)].paused(now); }
  uint64_t paused_until(uint16_t p, uint8_t c) const { return pause_[at(p, c)].until(); }
  // The time port p's classes were paused, up to `now`: their sum (one class: the time the
  // port's transmitter was paused).
  uint64_t paused_ns(uint16_t p, uint64_t now) const {
    uint64_t sum = 0;
    for (uint8_t c = 0; c < classes_; ++c) sum += pause_[at(p, c)].paused_ticks(now);
    return sum;
  }
  // The same for a reader on another thread (the metrics): the worker's words read as relaxed
  // atomics, each whole, the sum as of a moment ago (never more than the worker's clock allows).
  uint64_t paused_ns_seen(uint16_t p, uint64_t now) const {
    uint64_t sum = 0;
    for (uint8_t c = 0; c < classes_; ++c) {
      sum += pause_[at(p, c)].paused_ticks(now, racy_load<uint64_t>);
    }
    return sum;
  }

  const PfcPortCounters& counters(uint16_t p) const { return counters_[p]; }

 private:
  // Port p's classes are neighbours.
  size_t at(uint16_t p, uint8_t c) const { return size_t{p} * classes_ + c; }
  void owe(size_t i) {
    if (due_[i]) return;
    due_[i] = 1;
    due_channels_.push_back(static_cast<uint32_t>(i));
  }

  PfcThresholds t_;
  uint8_t classes_;
  std::vector<double> rates_;
  // Per port and class (at()):
  std::vector<uint64_t> bytes_;            // charged to each ingress port's class
  std::vector<uint8_t> xoff_;              // over XOFF (not yet back to XON)
  std::vector<uint8_t> told_;              // told_pause_ is what the upstream knows (0: send again)
  std::vector<uint8_t> told_pause_;        // the last state sent upstream: paused or not
  std::vector<uint64_t> refresh_at_;       // a PAUSE sent: when it is owed again, still over XOFF
  std::vector<net::PfcClassPause> pause_;  // the sender's pause (ns)
  std::vector<uint8_t> due_;
  std::vector<uint32_t> due_channels_;  // at() of each owed one, in the order they fell due
  std::vector<PfcPortCounters> counters_;
};

template <typename Send>
void Pfc::take_due(uint64_t now, Send&& send) {
  size_t kept = 0;
  for (const uint32_t i : due_channels_) {
    const auto p = static_cast<uint16_t>(i / classes_);
    const auto c = static_cast<uint8_t>(i % classes_);
    // told_ means the upstream knows xoff_: a resume owed after a pause still unsent cancels it.
    const bool pause = xoff_[i] != 0;
    if (told_[i] && (told_pause_[i] != 0) == pause) {
      due_[i] = 0;
      continue;
    }
    const net::PfcFrame f = net::PfcFrame::for_class(c, pause ? net::kPfcMaxQuanta : 0);
    if (!send(p, f)) {
      counters_[p].send_failed.inc();
      due_channels_[kept++] = i;
      continue;
    }
    due_[i] = 0;
    told_[i] = 1;
    told_pause_[i] = pause;
    if (pause) {
      counters_[p].pause_sent.inc();
      // Half the pause's time: the next arrival after it renews the pause (arrived()).
      refresh_at_[i] = now + net::pfc_quanta_ns(net::kPfcMaxQuanta, rates_[p]) / 2;
    } else {
      counters_[p].resume_sent.inc();
    }
  }
  due_channels_.resize(kept);
}

inline void Pfc::received(uint16_t p, const net::PfcFrame& f, uint64_t now) {
  // Classes 0..classes_-1 carry data (kPfcDataClass is 0); a pause for any other is counted.
  const auto ours = static_cast<uint16_t>((1u << classes_) - 1);
  if ((f.class_enable & ~ours) != 0) counters_[p].other_class.inc();
  for (uint8_t c = 0; c < classes_; ++c) {
    if ((f.class_enable & (1u << c)) == 0) continue;
    net::PfcClassPause& pause = pause_[at(p, c)];
    const uint16_t q = f.quanta[c];
    if (q == 0) {
      counters_[p].resume_received.inc();
      pause.resume(now);
    } else {
      counters_[p].pause_received.inc();
      pause.pause(net::pfc_quanta_ns(q, rates_[p]), now);
    }
  }
}

}  // namespace spraylab::dataplane
