#include "trafficgen/nscc_window.h"

namespace spraylab::gen {

NsccWindow::NsccWindow(const NsccParams& p) : p_(p) {
  // initNsccParams: the fabric's scale against the reference's 100 Gb/s x 12 µs.
  link_bytes_per_ns_ = p_.link_rate_bps / 8 / 1e9;
  const double network_rtt = static_cast<double>(p_.network_rtt_ns);
  k_.scaling_a = network_rtt * link_bytes_per_ns_ / kReferenceBdp;
  k_.target_ns = p_.target_delay_ns ? static_cast<double>(p_.target_delay_ns)
                                    : (p_.trimming ? 0.75 : 1.0) * network_rtt;
  k_.scaling_b = k_.target_ns / kReferenceRttNs;
  const double mss = p_.mss;
  k_.alpha = 4.0 * mss * k_.scaling_a * k_.scaling_b / k_.target_ns;
  k_.fi = 5 * mss * k_.scaling_a;
  k_.eta = 0.15 * mss * k_.scaling_a;
  k_.fi_scale = 0.25 * k_.scaling_a;
  k_.qa_threshold_ns = 4 * k_.target_ns;
  // The reference counts 8 MTUs of frame bytes; this window counts payload: 8 packets.
  k_.adjust_bytes = 8 * mss;
  k_.adjust_period_ns = network_rtt;
  // initNscc: the flow's base RTT (the network's unless given), 1.5 BDP of it as the maximum
  // window, and the window starts there unless an initial window is given.
  min_window_ = mss;
  base_rtt_ns_ = static_cast<double>(p_.base_rtt_ns ? p_.base_rtt_ns : p_.network_rtt_ns);
  maxwnd_ = std::max(1.5 * base_rtt_ns_ * link_bytes_per_ns_, min_window_);
  cwnd_ =
      p_.initial_window ? std::max(static_cast<double>(p_.initial_window), min_window_) : maxwnd_;
  initial_ = static_cast<uint64_t>(cwnd_);
  min_cwnd_seen_ = max_cwnd_seen_ = cwnd_;
}

uint32_t NsccWindow::packets_allowed() const {
  if (flight_ == 0) return std::max<uint32_t>(1, static_cast<uint32_t>(cwnd_ / p_.mss));
  const double room = cwnd_ - static_cast<double>(flight_);
  return room < p_.mss ? 0 : static_cast<uint32_t>(room / p_.mss);
}

// processAck, then updateCwndOnAck_NSCC.
void NsccWindow::on_ack(uint64_t acked, bool ecn_echo, uint64_t rtt_ns, uint64_t now_ns) {
  achieved_ += acked;
  received_ += acked;
  bytes_ignored_ += acked;
  // The queueing delay of this ACK's packet (a sample below the base RTT first becomes the base,
  // as update_base_rtt does: its delay is 0); without a sample the smoothed delay stands in.
  double delay = avg_delay_ns_;
  if (rtt_ns) {
    rto_.on_rtt(rtt_ns);
    const double rtt = static_cast<double>(rtt_ns);
    update_base_rtt(rtt);
    if (rtt >= base_rtt_ns_) {
      delay = rtt - base_rtt_ns_;
      update_delay(delay, ecn_echo);
    }
  }
  if (quick_adapt(false, ecn_echo, delay, now_ns)) {
    seen();
    return;
  }
  const double a = static_cast<double>(acked);
  if (!ecn_echo && delay >= k_.target_ns) {
    inc_bytes_ += k_.fi * a;  // fair_increase: every flow gains alike
  } else if (!ecn_echo) {
    proportional_increase(acked, delay);
  } else if (delay >= k_.target_ns) {
    multiplicative_decrease(now_ns);
  }  // an echo below the target: the path is congested, not the flow; nothing
  bound();
  if (static_cast<double>(received_) > k_.adjust_bytes ||
      static_cast<double>(now_ns - last_adjust_ns_) > k_.adjust_period_ns) {
    fulfil(now_ns);
  }
  bound();
  seen();
}

void NsccWindow::on_nack(uint64_t bytes, uint64_t rtt_ns, uint64_t now_ns) {
  ++nacks_;
  if (rtt_ns) update_base_rtt(static_cast<double>(rtt_ns));  // update_base_rtt_on_nack
  bytes_ignored_ += bytes;
  // A trimmed packet waited about a network RTT's worth of queue (the reference's estimate of
  // the trimming threshold): that is the delay sample.
  update_delay(static_cast<double>(p_.network_rtt_ns), true);
  trigger_qa_ = true;
  if (!quick_adapt(true, true, 0, now_ns)) {
    cwnd_ -= static_cast<double>(bytes);
    bound();
  }
  seen();
}

void NsccWindow::on_timeout(uint64_t bytes) {
  cwnd_ = std::max(cwnd_ - static_cast<double>(bytes), min_window_);
  ++timeouts_;
  seen();
}

uint64_t NsccWindow::rto_ns() const { return rto_.rto_ns(p_.min_rto_ns); }

void NsccWindow::update_base_rtt(double rtt_ns) {
  if (rtt_ns >= base_rtt_ns_) return;
  base_rtt_ns_ = rtt_ns;
  maxwnd_ = std::max(1.5 * base_rtt_ns_ * link_bytes_per_ns_, min_window_);
}

// update_delay: an unmarked sample above the target counts as a quarter of the base RTT (a
// flow that is not marked is not the one to slow down); samples beyond 5 base RTTs are taken
// with the fixed gain 0.0125 (the same as the default gain).
void NsccWindow::update_delay(double delay_ns, bool ecn) {
  double sample = delay_ns, gain = k_.delay_alpha;
  if (!ecn && delay_ns > k_.target_ns) {
    sample = base_rtt_ns_ * 0.25;
  } else if (delay_ns > 5 * base_rtt_ns_) {
    gain = 0.0125;
  }
  avg_delay_ns_ = gain * sample + (1 - gain) * avg_delay_ns_;
}

// quick_adapt: true when it acted or the ACK is one to ignore (then no other rule runs).
bool NsccWindow::quick_adapt(bool loss, bool ecn, double delay_ns, uint64_t now_ns) {
  if (!p_.quick_adapt) return false;
  bool done = false;
  if (bytes_ignored_ < bytes_to_ignore_ && ecn) {
    done = true;  // an echo of what was in flight at the last quick adapt
  } else if (now_ns > qa_end_ns_) {
    const double gate = maxwnd_ / static_cast<double>(uint64_t{1} << p_.qa_gate);
    if (qa_end_ns_ != 0 && (trigger_qa_ || loss || delay_ns > k_.qa_threshold_ns) &&
        static_cast<double>(achieved_) < gate) {
      cwnd_ = std::max(static_cast<double>(achieved_), min_window_);
      bytes_to_ignore_ = flight_;
      bytes_ignored_ = 0;
      trigger_qa_ = false;
      done = true;
      ++quick_adapts_;
    }
    achieved_ = 0;
    qa_end_ns_ = now_ns + static_cast<uint64_t>(base_rtt_ns_ + k_.target_ns);
  }
  if (done) {
    inc_bytes_ = 0;
    received_ = 0;
  }
  return done;
}

void NsccWindow::proportional_increase(uint64_t acked, double delay_ns) {
  if (fast_increase(acked, delay_ns)) return;
  inc_bytes_ += k_.alpha * static_cast<double>(acked) * (k_.target_ns - delay_ns);
}

// fast_increase: after a window's worth of ACKs with (almost) no queue, grow at once by
// fi_scale per acked byte, and keep doing so while the delay stays under the bound.
bool NsccWindow::fast_increase(uint64_t acked, double delay_ns) {
  if (delay_ns < static_cast<double>(p_.fast_increase_ns)) {
    fi_count_ += acked;
    if (static_cast<double>(fi_count_) > cwnd_ || increasing_) {
      cwnd_ += static_cast<double>(acked) * k_.fi_scale;
      increasing_ = true;
      return true;
    }
  } else {
    fi_count_ = 0;
  }
  increasing_ = false;
  return false;
}

void NsccWindow::multiplicative_decrease(uint64_t now_ns) {
  increasing_ = false;
  fi_count_ = 0;
  const double avg = avg_delay_ns_;
  if (avg <= k_.target_ns) return;
  if (static_cast<double>(now_ns - last_decrease_ns_) <= base_rtt_ns_) return;
  cwnd_ *= std::max(1 - k_.gamma * (avg - k_.target_ns) / avg, 0.5);
  cwnd_ = std::max(cwnd_, min_window_);
  last_decrease_ns_ = now_ns;
  ++decreases_;
}

// fulfill_adjustment: the gathered increases in one step, divided by the window (so that a
// window's worth of ACKs adds inc/acked per byte), and η once per network RTT.
void NsccWindow::fulfil(uint64_t now_ns) {
  cwnd_ += inc_bytes_ / cwnd_;
  if (static_cast<double>(now_ns - last_adjust_ns_) >= k_.adjust_period_ns) {
    cwnd_ += k_.eta;
    last_adjust_ns_ = now_ns;
  }
  inc_bytes_ = 0;
  received_ = 0;
  ++fulfils_;
}

void NsccWindow::bound() { cwnd_ = std::clamp(cwnd_, min_window_, maxwnd_); }

void NsccWindow::seen() {
  min_cwnd_seen_ = std::min(min_cwnd_seen_, cwnd_);
  max_cwnd_seen_ = std::max(max_cwnd_seen_, cwnd_);
}

}  // namespace spraylab::gen
