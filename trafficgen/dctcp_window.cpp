#include "trafficgen/dctcp_window.h"

#include <cmath>

namespace spraylab::gen {

DctcpWindow::DctcpWindow(const DctcpParams& p) : p_(p) {
  p_.initial_window = std::max<uint64_t>(p_.initial_window, p_.mss);
  cwnd_ = static_cast<double>(p_.initial_window);
  // The first observation window: the initial window's worth of data.
  window_end_ = p_.initial_window;
  min_cwnd_seen_ = max_cwnd_seen_ = cwnd_;
}

uint32_t DctcpWindow::packets_allowed() const {
  if (flight_ == 0) return std::max<uint32_t>(1, static_cast<uint32_t>(cwnd_ / p_.mss));
  const double room = cwnd_ - static_cast<double>(flight_);
  return room < p_.mss ? 0 : static_cast<uint32_t>(room / p_.mss);
}

bool DctcpWindow::on_ack(uint64_t acked, bool ecn_echo) {
  acked_total_ += acked;
  window_acked_ += acked;
  if (ecn_echo) window_marked_ += acked;
  bool cut = false;
  if (ecn_echo && acked_total_ > cut_end_) {
    // Once per window of data: an echo cuts only on an ACK beyond the data in flight at the last
    // cut. Until then no increase either (TCP's CWR state).
    const double floor = static_cast<double>(p_.min_window_packets) * p_.mss;
    cwnd_ = std::max(cwnd_ * (1 - alpha_ / 2), floor);
    cut_end_ = acked_total_ + flight_;
    ++cuts_;
    cut = true;
  } else if (acked > 0 && acked_total_ > cut_end_) {
    const double a = static_cast<double>(acked);
    cwnd_ += cwnd_ < ssthresh_ ? a : p_.mss * a / cwnd_;
  }
  if (acked_total_ >= window_end_) update_alpha();
  min_cwnd_seen_ = std::min(min_cwnd_seen_, cwnd_);
  max_cwnd_seen_ = std::max(max_cwnd_seen_, cwnd_);
  return cut;
}

void DctcpWindow::update_alpha() {
  const double f = window_acked_
                       ? static_cast<double>(window_marked_) / static_cast<double>(window_acked_)
                       : 0.0;
  alpha_ = (1 - p_.g) * alpha_ + p_.g * f;
  max_alpha_ = std::max(max_alpha_, alpha_);
  ++alpha_updates_;
  window_acked_ = window_marked_ = 0;
  // The next window: the data in flight now (RFC 8257's Window_End = SND.NXT), and at least one
  // window's worth, so a window that starts with little in flight is not a window of one ACK.
  window_end_ = acked_total_ + std::max(flight_, static_cast<uint64_t>(cwnd_));
}

void DctcpWindow::on_rtt(uint64_t rtt_ns) { rto_.on_rtt(rtt_ns); }

uint64_t DctcpWindow::rto_ns() const { return rto_.rto_ns(p_.min_rto_ns); }

void DctcpWindow::on_timeout() {
  const double floor = static_cast<double>(p_.min_window_packets) * p_.mss;
  ssthresh_ = std::max(cwnd_ / 2, floor);
  cwnd_ = p_.mss;
  ++timeouts_;
  // Restart both windows from what is acknowledged now.
  cut_end_ = acked_total_;
  window_acked_ = window_marked_ = 0;
  window_end_ = acked_total_ + p_.mss;
  min_cwnd_seen_ = std::min(min_cwnd_seen_, cwnd_);
}

}  // namespace spraylab::gen
