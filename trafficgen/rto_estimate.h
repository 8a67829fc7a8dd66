// RFC 6298's retransmission timeout from RTT samples: max(min_rto, SRTT + 4·RTTVAR). The NSCC and
// MSwift windows keep one per flow, and so does DCTCP's.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace spraylab::gen {

class RtoEstimate {
 public:
  void on_rtt(uint64_t rtt_ns) {
    const double r = static_cast<double>(rtt_ns);
    if (!valid_) {
      srtt_ns_ = r;
      rttvar_ns_ = r / 2;
      valid_ = true;
      return;
    }
    rttvar_ns_ = 0.75 * rttvar_ns_ + 0.25 * std::fabs(srtt_ns_ - r);
    srtt_ns_ = 0.875 * srtt_ns_ + 0.125 * r;
  }
  uint64_t rto_ns(uint64_t min_rto_ns) const {
    if (!valid_) return min_rto_ns;
    return std::max(min_rto_ns, static_cast<uint64_t>(srtt_ns_ + 4 * rttvar_ns_));
  }
  bool valid() const { return valid_; }
  double srtt_ns() const { return srtt_ns_; }

 private:
  double srtt_ns_ = 0, rttvar_ns_ = 0;
  bool valid_ = false;
};

}  // namespace spraylab::gen
