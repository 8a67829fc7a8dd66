// One flow's congestion window, whichever `workload.cc` names (cc_mode.h): DCTCP, NSCC or
// MSwift. The host engine asks it before a data packet and tells it what was sent, what each
// ACK acknowledged (with its ECN echo, RTT sample and entropy), NACKs and timeouts; each
// algorithm takes the signals it uses. A variant, not a virtual base: the engine keeps one per
// flow in a vector, and the calls inline.
#pragma once

#include <cstdint>
#include <variant>

#include "trafficgen/dctcp_window.h"
#include "trafficgen/mswift_window.h"
#include "trafficgen/nscc_window.h"

namespace spraylab::gen {

// What one ACK tells the sender.
struct AckSignal {
  uint64_t acked = 0;  // payload bytes newly acknowledged
  bool ecn_echo = false;
  uint64_t rtt_ns = 0;   // the acknowledged packet's round trip; 0: none
  uint16_t entropy = 0;  // the entropy value the packet went on
  uint64_t now_ns = 0;
};

class FlowWindow {
 public:
  explicit FlowWindow(const DctcpWindow& w) : w_(w) {}
  explicit FlowWindow(const NsccWindow& w) : w_(w) {}
  explicit FlowWindow(const MswiftWindow& w) : w_(w) {}

  bool may_send(uint32_t bytes) const {
    return std::visit([&](const auto& w) { return w.may_send(bytes); }, w_);
  }
  uint32_t packets_allowed() const {
    return std::visit([](const auto& w) { return w.packets_allowed(); }, w_);
  }
  void on_send(uint64_t bytes) {
    std::visit([&](auto& w) { w.on_send(bytes); }, w_);
  }
  void release(uint64_t bytes) {
    std::visit([&](auto& w) { w.release(bytes); }, w_);
  }
  void on_ack(const AckSignal& a) {
    if (auto* d = std::get_if<DctcpWindow>(&w_)) {
      if (a.rtt_ns) d->on_rtt(a.rtt_ns);
      d->on_ack(a.acked, a.ecn_echo);
    } else if (auto* n = std::get_if<NsccWindow>(&w_)) {
      n->on_ack(a.acked, a.ecn_echo, a.rtt_ns, a.now_ns);
    } else {
      std::get<MswiftWindow>(w_).on_ack(a.acked, a.rtt_ns, a.entropy, a.now_ns);
    }
  }
  // A NACK of one packet of `bytes` sent on `entropy` (a switch trimmed it; the engine resends
  // it at once, and it stays in the flight). DCTCP has no NACK rule of its own: a trim is a
  // congestion signal like an ECN echo there (a cut, at most once per window of data).
  void on_nack(uint64_t bytes, uint16_t entropy, uint64_t rtt_ns, uint64_t now_ns) {
    if (auto* d = std::get_if<DctcpWindow>(&w_)) {
      d->on_ack(0, true);
    } else if (auto* n = std::get_if<NsccWindow>(&w_)) {
      n->on_nack(bytes, rtt_ns, now_ns);
    } else if (auto* m = std::get_if<MswiftWindow>(&w_)) {
      m->on_nack(bytes, entropy, now_ns);
    }
  }
  // A retransmission timeout gave up `bytes` (already release()d).
  void on_timeout(uint64_t bytes, uint64_t now_ns) {
    if (auto* d = std::get_if<DctcpWindow>(&w_)) {
      d->on_timeout();
    } else if (auto* n = std::get_if<NsccWindow>(&w_)) {
      n->on_timeout(bytes);
    } else {
      std::get<MswiftWindow>(w_).on_timeout(now_ns);
    }
  }
  uint64_t rto_ns() const {
    return std::visit([](const auto& w) { return w.rto_ns(); }, w_);
  }
  double cwnd() const {
    return std::visit([](const auto& w) { return w.cwnd(); }, w_);
  }
  double min_cwnd() const {
    return std::visit([](const auto& w) { return w.min_cwnd(); }, w_);
  }
  double max_cwnd() const {
    return std::visit([](const auto& w) { return w.max_cwnd(); }, w_);
  }
  uint64_t initial_window() const {
    return std::visit([](const auto& w) { return w.initial_window(); }, w_);
  }
  uint64_t timeouts() const {
    return std::visit([](const auto& w) { return w.timeouts(); }, w_);
  }

  const DctcpWindow* dctcp() const { return std::get_if<DctcpWindow>(&w_); }
  const NsccWindow* nscc() const { return std::get_if<NsccWindow>(&w_); }
  const MswiftWindow* mswift() const { return std::get_if<MswiftWindow>(&w_); }

 private:
  std::variant<DctcpWindow, NsccWindow, MswiftWindow> w_;
};

}  // namespace spraylab::gen
