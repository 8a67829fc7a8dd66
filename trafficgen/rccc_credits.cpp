#include "trafficgen/rccc_credits.h"

#include <algorithm>

namespace spraylab::gen {

uint32_t RcccSender::packets_allowed(uint32_t frame_bytes) const {
  if (credit_ <= 0 || frame_bytes == 0) return 0;
  const uint64_t c = static_cast<uint64_t>(credit_);
  return static_cast<uint32_t>(std::min<uint64_t>((c + frame_bytes - 1) / frame_bytes, UINT32_MAX));
}

bool RcccSender::on_pull(uint64_t pull) {
  if (pull <= pull_) return false;
  credit_ += static_cast<int64_t>(quanta_bytes(pull - pull_));
  credit_ = std::min(credit_, static_cast<int64_t>(p_.max_credit));
  pull_ = pull;
  return true;
}

uint64_t RcccSender::pull_target(uint64_t backlog, double window, uint32_t sources) const {
  // Signed, as the reference's mem_b: the credit held may exceed what is wanted.
  auto want = static_cast<int64_t>(backlog);
  if (window > 0) want = std::min(want, static_cast<int64_t>(window) + p_.packet_bytes);
  want = std::min(want, static_cast<int64_t>(p_.max_credit));
  want -= credit_;
  if (speculating_ && want < static_cast<int64_t>(p_.packet_bytes) && backlog > 0) {
    want = p_.packet_bytes;  // "saves our bacon for short transfers"
  }
  if (sources > 1) want /= static_cast<int64_t>(sources);
  const int64_t target = static_cast<int64_t>(quanta_bytes(pull_)) + want;
  return target <= 0 ? 0 : quanta_ceil(static_cast<uint64_t>(target));
}

void RcccPullPacer::reserve(uint32_t flows) {
  const uint32_t n = std::max(flows, 1u);
  active_.slots.assign(n, 0);
  idle_.slots.assign(n, 0);
}

void RcccPullPacer::request(uint32_t f, RcccSinkFlow& s) {
  if (s.in_pull) return;
  s.in_pull = true;
  active_.push(f, active_count_);
}

bool RcccPullPacer::turn(std::vector<RcccSinkFlow>& flows, const RcccParams& p, Pull* out) {
  if (active_count_ > 0) {
    const uint32_t f = active_.pop(active_count_);
    RcccSinkFlow& s = flows[f];
    // Only what the sender asked for: up to its target, never backwards.
    const uint64_t prev = s.latest_pull;
    s.latest_pull += p.credit_per_pull;
    if (s.latest_pull > s.highest_target) s.latest_pull = std::max(s.highest_target, prev);
    *out = {f, s.latest_pull, s.latest_pull - prev, false};
    if (s.backlog() > 0) {
      active_.push(f, active_count_);
    } else {  // satisfied: idle, where slow pulls may reach it
      s.in_pull = false;
      if (!s.in_idle) {
        s.in_idle = true;
        idle_.push(f, idle_count_);
      }
    }
    return true;
  }
  if (idle_count_ == 0) return false;
  const uint32_t f = idle_.pop(idle_count_);
  RcccSinkFlow& s = flows[f];
  // A slow pull: credit_per_pull whatever the target, up to max_credit of surplus.
  s.latest_pull += p.credit_per_pull;
  *out = {f, s.latest_pull, p.credit_per_pull, true};
  if (s.backlog() == 0 && s.slow_credit() < quanta_floor(p.max_credit)) {
    idle_.push(f, idle_count_);
  } else {
    s.in_idle = false;
  }
  return true;
}

}  // namespace spraylab::gen
