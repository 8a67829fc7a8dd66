// DCTCP's congestion window for one flow (Alizadeh et al., SIGCOMM 2010; RFC 8257), in bytes of
// payload. The engine asks may_send() before a data packet and tells the window what it sent,
// what each ACK newly acknowledged and whether that ACK echoed a CE mark:
//   α ← (1 − g)·α + g·F once per observation window (one window of data acknowledged), where F is
//       the fraction of the window's acknowledged bytes whose ACKs echoed CE, g = 1/16;
//   on an echo, cwnd ← cwnd·(1 − α/2), at most once per window of data (then no further cut until
//       what was in flight at the cut is acknowledged);
//   otherwise additive increase: one packet per window of data acknowledged (cwnd += mss·acked /
//       cwnd), or slow start (cwnd += acked) below ssthresh, which only a timeout sets;
//   no duplicate-ACK fast retransmit: spraying reorders, so only the retransmission timeout
//       resends. A timeout halves ssthresh and restarts from one packet (TCP's loss window).
// The timeout is RFC 6298's: max(min_rto, SRTT + 4·RTTVAR) from the ACKs' echoed send times.
// α starts at 1, as RFC 8257 and Linux start it: the first marks cut the window by half.
// Plain C++, times passed in ns: the same code on the TSC, in virtual time and in unit tests. No
// allocation, no exceptions.
#pragma once

#include <algorithm>
#include <cstdint>

#include "trafficgen/rto_estimate.h"

namespace spraylab::gen {

struct DctcpParams {
  uint32_t mss = 4096;              // payload bytes of a full packet
  uint64_t initial_window = 0;      // bytes; at least one packet
  uint64_t min_rto_ns = 1'000'000;  // the timeout's floor
  double g = 1.0 / 16;              // α's gain
  uint32_t min_window_packets = 2;  // a cut never goes below this (Linux's floor)
};

class DctcpWindow {
 public:
  DctcpWindow() = default;
  explicit DctcpWindow(const DctcpParams& p);

  // A packet of `bytes` fits: the window has room, or nothing is in flight (a window never stops
  // a flow for good).
  bool may_send(uint32_t bytes) const { return flight_ == 0 || flight_ + bytes <= cwnd_; }
  // Full packets that fit now; at least one when nothing is in flight.
  uint32_t packets_allowed() const;
  void on_send(uint64_t bytes) { flight_ += bytes; }
  // Bytes leave the flight: acknowledged, or given up by a timeout. The engine counts them per
  // message, so a late ACK of a packet a timeout gave up is not taken off twice.
  void release(uint64_t bytes) { flight_ -= std::min(flight_, bytes); }
  // An ACK arrived (after release() of what it acknowledged): it newly acknowledged `acked` bytes
  // (0 for one that acknowledged nothing new) and echoed a CE mark or not. Returns true if the
  // window was cut.
  bool on_ack(uint64_t acked, bool ecn_echo);
  // An RTT sample: a data packet's send time to its ACK's arrival.
  void on_rtt(uint64_t rtt_ns);
  // A retransmission timeout (the caller release()s what the timed-out message had in flight).
  void on_timeout();

  uint64_t rto_ns() const;
  double cwnd() const { return cwnd_; }
  double alpha() const { return alpha_; }
  uint64_t flight() const { return flight_; }
  double min_cwnd() const { return min_cwnd_seen_; }
  double max_cwnd() const { return max_cwnd_seen_; }
  double max_alpha() const { return max_alpha_; }
  uint64_t cuts() const { return cuts_; }
  uint64_t alpha_updates() const { return alpha_updates_; }
  uint64_t timeouts() const { return timeouts_; }
  uint64_t initial_window() const { return p_.initial_window; }

 private:
  void update_alpha();

  DctcpParams p_;
  double cwnd_ = 0;
  double ssthresh_ = 0;  // slow start below it; 0 until a timeout
  double alpha_ = 1;
  uint64_t flight_ = 0;
  uint64_t acked_total_ = 0;    // bytes newly acknowledged, ever
  uint64_t window_end_ = 0;     // α's observation window ends when acked_total_ reaches it
  uint64_t window_acked_ = 0;   // bytes acknowledged in the observation window
  uint64_t window_marked_ = 0;  // of which with a CE echo
  uint64_t cut_end_ = 0;        // no new cut before acked_total_ reaches it
  RtoEstimate rto_;
  double min_cwnd_seen_ = 0, max_cwnd_seen_ = 0, max_alpha_ = 0;  // max_alpha_: over updates
  uint64_t cuts_ = 0, alpha_updates_ = 0, timeouts_ = 0;
};

}  // namespace spraylab::gen
