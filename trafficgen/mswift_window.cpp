#include "trafficgen/mswift_window.h"

#include <cmath>

namespace spraylab::gen {

MswiftWindow::MswiftWindow(const MswiftParams& p) : p_(p) {
  p_.subflows = std::clamp<uint32_t>(p_.subflows, 1, MswiftParams::kMaxSubflows);
  const double mss = p_.mss;
  min_sub_ = p_.min_cwnd_packets * mss;
  max_sub_ = p_.max_cwnd_packets * mss;
  // Flow scaling (Swift §3.3): fs(cwnd) = α/√cwnd + β reaches fs_range at fs_min_cwnd packets
  // and 0 at fs_max_cwnd packets.
  fs_alpha_ = static_cast<double>(p_.fs_range_ns) /
              (1 / std::sqrt(p_.fs_min_cwnd) - 1 / std::sqrt(p_.fs_max_cwnd));
  fs_beta_ = -fs_alpha_ / std::sqrt(p_.fs_max_cwnd);
  const double initial = std::max<double>(static_cast<double>(p_.initial_window), mss);
  for (uint32_t i = 0; i < p_.subflows; ++i) {
    sub_[i].cwnd = std::clamp(initial / p_.subflows, min_sub_, max_sub_);
    total_ += sub_[i].cwnd;
  }
  initial_ = static_cast<uint64_t>(total_);
  min_cwnd_seen_ = max_cwnd_seen_ = total_;
}

uint32_t MswiftWindow::packets_allowed() const {
  if (flight_ == 0) return std::max<uint32_t>(1, static_cast<uint32_t>(total_ / p_.mss));
  const double room = total_ - static_cast<double>(flight_);
  return room < p_.mss ? 0 : static_cast<uint32_t>(room / p_.mss);
}

double MswiftWindow::target_ns(double cwnd_bytes) const {
  double fs = 0;
  if (p_.fs_range_ns > 0 && cwnd_bytes > 0) {
    fs = std::clamp(fs_alpha_ / std::sqrt(cwnd_bytes / p_.mss) + fs_beta_, 0.0,
                    static_cast<double>(p_.fs_range_ns));
  }
  return static_cast<double>(p_.base_target_ns) +
         static_cast<double>(p_.hops) * static_cast<double>(p_.hop_scale_ns) + fs;
}

void MswiftWindow::on_ack(uint64_t acked, uint64_t rtt_ns, uint16_t ev, uint64_t now_ns) {
  retransmit_cnt_ = 0;
  if (rtt_ns == 0) return;  // no delay sample: nothing to steer by
  rto_.on_rtt(rtt_ns);
  Sub& s = sub_[subflow_of(ev)];
  const double delay = static_cast<double>(rtt_ns);
  const double target = target_ns(s.cwnd);
  if (delay < target) {
    const double a = static_cast<double>(acked);
    set(s, s.cwnd >= p_.mss ? s.cwnd + p_.ai * p_.mss * a / s.cwnd : s.cwnd + p_.ai * a);
  } else if (can_decrease(s, now_ns)) {
    cut(s, std::max(1 - p_.beta * (delay - target) / delay, 1 - p_.max_mdf), now_ns);
  }
}

void MswiftWindow::on_nack(uint64_t /*bytes*/, uint16_t ev, uint64_t now_ns) {
  ++nacks_;
  Sub& s = sub_[subflow_of(ev)];
  if (can_decrease(s, now_ns)) cut(s, 1 - p_.max_mdf, now_ns);
}

void MswiftWindow::on_timeout(uint64_t now_ns) {
  ++timeouts_;
  ++retransmit_cnt_;
  for (uint32_t i = 0; i < p_.subflows; ++i) {
    Sub& s = sub_[i];
    if (retransmit_cnt_ >= p_.retx_reset_threshold) {
      set(s, min_sub_);
      s.last_decrease_ns = now_ns;
      s.decreased = true;
    } else if (can_decrease(s, now_ns)) {
      cut(s, 1 - p_.max_mdf, now_ns);
    }
  }
}

// Swift cuts a window at most once per RTT (the smoothed RTT of the flow's samples).
bool MswiftWindow::can_decrease(const Sub& s, uint64_t now_ns) const {
  return !s.decreased || static_cast<double>(now_ns - s.last_decrease_ns) >= rto_.srtt_ns();
}

void MswiftWindow::cut(Sub& s, double factor, uint64_t now_ns) {
  set(s, s.cwnd * factor);
  s.last_decrease_ns = now_ns;
  s.decreased = true;
  ++decreases_;
}

void MswiftWindow::set(Sub& s, double cwnd) {
  const double c = std::clamp(cwnd, min_sub_, max_sub_);
  total_ += c - s.cwnd;
  s.cwnd = c;
  min_cwnd_seen_ = std::min(min_cwnd_seen_, total_);
  max_cwnd_seen_ = std::max(max_cwnd_seen_, total_);
}

}  // namespace spraylab::gen
