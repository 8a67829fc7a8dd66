// NSCC's congestion window for one flow: Ultra Ethernet 1.0's network-signal congestion control
// as its reference simulator implements it (HLC-Lab/uet-htsim, htsim/sim/uec.cpp, UecSrc:
// initNsccParams, initNscc, updateCwndOnAck_NSCC, updateCwndOnNack_NSCC, quick_adapt,
// fair_increase, proportional_increase, fast_increase, multiplicative_decrease,
// fulfill_adjustment, update_delay, update_base_rtt). In payload bytes. Per ACK, two signals:
// the ECN echo and the queueing delay (the RTT sample minus the base RTT):
//   no echo, delay < target   proportional increase: inc += α·acked·(target − delay), or fast
//                             increase (cwnd += acked·fi_scale) after a window of ACKs under 1 µs;
//   no echo, delay ≥ target   fair increase: inc += fi·acked;
//   echo, delay ≥ target      multiplicative decrease, once per base RTT:
//                             cwnd ·= max(1 − γ·(avg − target)/avg, 0.5), avg the smoothed delay;
//   echo, delay < target      nothing (the path, not the flow, is congested: the entropy moves);
// the increases are applied in one step (fulfil: cwnd += inc/cwnd) after 8 packets of ACKs or a
// network RTT, plus η once per network RTT. Quick adapt: at most once per base RTT + target, on
// a NACK or a delay above 4·target, a flow that delivered less than maxwnd/2^qa_gate in the last
// period drops its window to what it delivered, and then ignores the echoes of what was in
// flight. A NACK takes its bytes off the window. The window stays in [1 packet, 1.5 BDP].
// Constants scale with the fabric as initNsccParams scales them: a = BDP / (100 Gb/s · 12 µs),
// b = target / 12 µs; α = 4·mss·a·b / target, fi = 5·mss·a, η = 0.15·mss·a, fi_scale = 0.25·a.
// Plain C++, times in ns: the same code on the TSC, in virtual time and in unit tests. No
// allocation, no exceptions.
#pragma once

#include <algorithm>
#include <cstdint>

#include "trafficgen/rto_estimate.h"

namespace spraylab::gen {

struct NsccParams {
  uint32_t mss = 4096;                // payload bytes of a full packet (the reference's _mss)
  double link_rate_bps = 100e9;       // the host's link: BDPs
  uint64_t network_rtt_ns = 12'000;   // the fabric's unloaded RTT: scaling, target, periods
  uint64_t base_rtt_ns = 0;           // the flow's first base RTT; 0 = network_rtt_ns
  uint64_t target_delay_ns = 0;       // 0: network RTT, 0.75 of it with trimming
  bool trimming = false;              // the switches trim (the target's default)
  uint32_t qa_gate = 3;               // quick adapt below maxwnd / 2^qa_gate delivered
  bool quick_adapt = true;            // the reference's _disable_quick_adapt, inverted
  uint64_t initial_window = 0;        // bytes; 0 = the maximum window (1.5 BDP), as initNscc
  uint64_t min_rto_ns = 1'000'000;    // the timeout's floor (RFC 6298 above it)
  uint64_t fast_increase_ns = 1'000;  // fast_increase's "delay < 1 µs" (not scaled there)
};

// The constants initNsccParams derives, readable for tests and the docs.
struct NsccConstants {
  double scaling_a = 1, scaling_b = 1;
  double target_ns = 0;
  double alpha = 0;             // bytes of inc per acked byte per ns below the target
  double fi = 0;                // bytes of inc per acked byte at or above the target
  double eta = 0;               // bytes added once per network RTT
  double fi_scale = 0;          // fast increase: bytes of window per acked byte
  double gamma = 0.8;           // multiplicative decrease's gain
  double delay_alpha = 0.0125;  // the smoothed delay's gain
  double qa_threshold_ns = 0;   // 4 · target
  double adjust_bytes = 0;      // fulfil after this many bytes acknowledged (8 packets)
  double adjust_period_ns = 0;  // ... or this long (a network RTT)
};

class NsccWindow {
 public:
  // The reference's scale: 100 Gb/s and 12 µs.
  static constexpr double kReferenceBdp = 100e9 / 8 * 12e-6;
  static constexpr double kReferenceRttNs = 12'000;

  NsccWindow() = default;
  explicit NsccWindow(const NsccParams& p);

  bool may_send(uint32_t bytes) const { return flight_ == 0 || flight_ + bytes <= cwnd_; }
  uint32_t packets_allowed() const;
  void on_send(uint64_t bytes) { flight_ += bytes; }
  void release(uint64_t bytes) { flight_ -= std::min(flight_, bytes); }
  // An ACK (after release() of what it acknowledged): `acked` bytes newly acknowledged, its ECN
  // echo, the RTT sample of the packet it answers (0: none) and the time now.
  void on_ack(uint64_t acked, bool ecn_echo, uint64_t rtt_ns, uint64_t now_ns);
  // A NACK of `bytes` (a trimmed packet), before release() of them, as processNack calls
  // updateCwndOnNack_NSCC before taking them out of flight; rtt_ns: the NACKed packet's RTT.
  void on_nack(uint64_t bytes, uint64_t rtt_ns, uint64_t now_ns);
  // A retransmission timeout gave up `bytes` (released by the caller): the window loses them,
  // as mark_packet_for_retransmission takes each timed-out packet off it.
  void on_timeout(uint64_t bytes);

  uint64_t rto_ns() const;
  double cwnd() const { return cwnd_; }
  uint64_t flight() const { return flight_; }
  double max_window() const { return maxwnd_; }
  double base_rtt_ns() const { return base_rtt_ns_; }
  double avg_delay_ns() const { return avg_delay_ns_; }
  const NsccConstants& constants() const { return k_; }
  double min_cwnd() const { return min_cwnd_seen_; }
  double max_cwnd() const { return max_cwnd_seen_; }
  uint64_t initial_window() const { return initial_; }
  // How often each rule changed the window.
  uint64_t decreases() const { return decreases_; }
  uint64_t quick_adapts() const { return quick_adapts_; }
  uint64_t fulfils() const { return fulfils_; }
  uint64_t nacks() const { return nacks_; }
  uint64_t timeouts() const { return timeouts_; }

 private:
  void update_base_rtt(double rtt_ns);
  void update_delay(double delay_ns, bool ecn);
  bool quick_adapt(bool loss, bool ecn, double delay_ns, uint64_t now_ns);
  void proportional_increase(uint64_t acked, double delay_ns);
  bool fast_increase(uint64_t acked, double delay_ns);
  void multiplicative_decrease(uint64_t now_ns);
  void fulfil(uint64_t now_ns);
  void bound();
  void seen();

  NsccParams p_;
  NsccConstants k_;
  double link_bytes_per_ns_ = 0;
  double cwnd_ = 0, maxwnd_ = 0, min_window_ = 0;
  double base_rtt_ns_ = 0;
  uint64_t flight_ = 0;
  uint64_t initial_ = 0;
  // Quick adapt (quick_adapt): bytes delivered this period, its end, the echoes to ignore after.
  uint64_t achieved_ = 0;
  uint64_t qa_end_ns_ = 0;  // 0: no period yet
  bool trigger_qa_ = false;
  uint64_t bytes_to_ignore_ = 0, bytes_ignored_ = 0;
  // Increases gathered until the next fulfil (fulfill_adjustment).
  double inc_bytes_ = 0;
  uint64_t received_ = 0;
  uint64_t last_adjust_ns_ = 0, last_decrease_ns_ = 0;
  uint64_t fi_count_ = 0;
  bool increasing_ = false;  // fast increase ran on the last ACK
  double avg_delay_ns_ = 0;
  RtoEstimate rto_;
  double min_cwnd_seen_ = 0, max_cwnd_seen_ = 0;
  uint64_t decreases_ = 0, quick_adapts_ = 0, fulfils_ = 0, nacks_ = 0, timeouts_ = 0;
};

}  // namespace spraylab::gen
