// MSwift's congestion window for one flow: Swift (Kumar et al., SIGCOMM 2020, Algorithm 1) run
// per entropy value, the multipath Swift the Ofan paper evaluates as a spraying CC (§6.5, §6.7).
// The published rules, per sub-window (payload bytes):
//   target = base_target + hops·hop_scale + flow scaling (fs: α/√cwnd + β, clamped to
//            [0, fs_range], cwnd in packets; off with fs_range 0);
//   delay < target   additive increase: cwnd += ai·mss·acked/cwnd (cwnd ≥ one packet), else
//                    cwnd += ai·acked;
//   delay ≥ target   multiplicative decrease, at most once per RTT:
//                    cwnd ·= max(1 − β·(delay − target)/delay, 1 − max_mdf);
//   a timeout        retransmit_cnt + 1 ≥ the reset threshold: cwnd = min_cwnd; else
//                    cwnd ·= (1 − max_mdf) (once per RTT); every ACK resets the count;
//   a NACK           cwnd ·= (1 − max_mdf) (once per RTT: Swift's fast-recovery cut).
// `delay` is the whole RTT sample (Swift's fabric delay: the target covers the unloaded path).
// Per entropy value (choice, as htsim's multipath Swift, sim/swift.cpp, SwiftSubflowSrc, runs
// one Swift per subflow): a flow has `subflows` sub-windows; an ACK's echoed entropy value picks
// one (ev mod subflows), and its delay moves only that one, so a congested path shrinks only its
// share. The host picks the entropy after the window lets a packet go (entropy.h), so the flow
// sends while its flight is below the sum of the sub-windows: the paths that stay fast keep the
// flow's rate up, and a path past its target costs the flow its part of the window.
// Plain C++, times in ns. No allocation after construction, no exceptions.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>

#include "trafficgen/cc_mode.h"
#include "trafficgen/rto_estimate.h"

namespace spraylab::gen {

struct MswiftParams {
  static constexpr uint32_t kMaxSubflows = kMaxMswiftSubflows;
  uint32_t mss = 4096;          // payload bytes of a full packet
  uint32_t subflows = 8;        // sub-windows (entropy value mod subflows)
  uint64_t initial_window = 0;  // bytes of the whole flow, split evenly; at least one packet
  double ai = 1.0;              // additive increase, packets per window of ACKs
  double beta = 0.8;            // multiplicative decrease's gain
  double max_mdf = 0.5;         // the deepest single cut
  uint64_t base_target_ns = 0;  // the target's base: the flow's unloaded RTT
  uint64_t hop_scale_ns = 0;    // the target's share per hop
  uint32_t hops = 0;            // links on the flow's path
  uint64_t fs_range_ns = 0;     // flow scaling's range; 0 = no flow scaling
  double fs_min_cwnd = 0.1;     // packets: flow scaling reaches fs_range here ...
  double fs_max_cwnd = 100;     // ... and 0 here (htsim's and the paper's shape)
  uint32_t retx_reset_threshold = 5;
  double min_cwnd_packets = 0.1;   // a sub-window's floor
  double max_cwnd_packets = 1000;  // a sub-window's ceiling (htsim's 1000 packets)
  uint64_t min_rto_ns = 1'000'000;
};

class MswiftWindow {
 public:
  MswiftWindow() = default;
  explicit MswiftWindow(const MswiftParams& p);

  bool may_send(uint32_t bytes) const { return flight_ == 0 || flight_ + bytes <= cwnd(); }
  uint32_t packets_allowed() const;
  void on_send(uint64_t bytes) { flight_ += bytes; }
  void release(uint64_t bytes) { flight_ -= std::min(flight_, bytes); }
  // An ACK of a packet sent on entropy value `ev`, newly acknowledging `acked` bytes, with the
  // packet's RTT sample (0: none).
  void on_ack(uint64_t acked, uint64_t rtt_ns, uint16_t ev, uint64_t now_ns);
  // A NACK of a packet sent on `ev`.
  void on_nack(uint64_t bytes, uint16_t ev, uint64_t now_ns);
  // A retransmission timeout (the entropy of the lost packets is not known: every sub-window).
  void on_timeout(uint64_t now_ns);

  // The target delay of a sub-window of `cwnd_bytes`.
  double target_ns(double cwnd_bytes) const;
  uint64_t rto_ns() const { return rto_.rto_ns(p_.min_rto_ns); }
  double cwnd() const { return total_; }
  double sub_cwnd(uint32_t i) const { return sub_[i].cwnd; }
  uint32_t subflow_of(uint16_t ev) const { return ev % p_.subflows; }
  uint64_t flight() const { return flight_; }
  double min_cwnd() const { return min_cwnd_seen_; }
  double max_cwnd() const { return max_cwnd_seen_; }
  uint64_t initial_window() const { return initial_; }
  uint64_t decreases() const { return decreases_; }
  uint64_t timeouts() const { return timeouts_; }
  uint64_t nacks() const { return nacks_; }

 private:
  struct Sub {
    double cwnd = 0;
    uint64_t last_decrease_ns = 0;
    bool decreased = false;  // last_decrease_ns is set
  };
  bool can_decrease(const Sub& s, uint64_t now_ns) const;
  void cut(Sub& s, double factor, uint64_t now_ns);
  void set(Sub& s, double cwnd);

  MswiftParams p_;
  std::array<Sub, MswiftParams::kMaxSubflows> sub_{};
  double total_ = 0;
  double fs_alpha_ = 0, fs_beta_ = 0;
  double min_sub_ = 0, max_sub_ = 0;
  uint64_t flight_ = 0;
  uint64_t initial_ = 0;
  uint32_t retransmit_cnt_ = 0;
  RtoEstimate rto_;
  double min_cwnd_seen_ = 0, max_cwnd_seen_ = 0;
  uint64_t decreases_ = 0, timeouts_ = 0, nacks_ = 0;
};

}  // namespace spraylab::gen
