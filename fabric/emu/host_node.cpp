#include "fabric/emu/host_node.h"

#include <algorithm>
#include <stdexcept>

#include "net/credit_frame.h"
#include "net/pfc_frame.h"
#include "net/virtual_channel.h"

namespace spraylab::fabric {

HostNode::HostNode(const gen::RunPlan& plan, const std::vector<uint32_t>& hosts, rte_mempool* pool,
                   uint32_t engine_id, uint64_t tsc_hz, uint64_t start_tsc, EventQueue* events,
                   uint32_t id, gen::MessageSlots* message_slots)
    : events_(events), id_(id) {
  uint16_t top = 0;
  port_base_ = UINT16_MAX;
  for (uint32_t h : hosts) {
    port_base_ = std::min(port_base_, plan.hosts[h].port);
    top = std::max(top, plan.hosts[h].port);
  }
  if (hosts.empty()) port_base_ = 0;
  in_by_port_.assign(size_t{top} - port_base_ + 1, nullptr);
  out_by_port_.assign(size_t{top} - port_base_ + 1, nullptr);
  wake_at_.assign(size_t{top} - port_base_ + 1, 0);
  gen::EngineSetup s;
  s.plan = &plan;
  s.message_slots = message_slots;
  s.hosts = hosts;
  s.pool = pool;
  s.tsc_hz = tsc_hz;
  s.start_tsc = start_tsc;
  s.engine_id = engine_id;
  s.tsc_clock = events == nullptr;
  // Per burst: one indirect call, then the link's inline ring operations.
  s.rx = [this](uint16_t port, rte_mbuf** m, uint16_t n) -> uint16_t {
    const auto at = static_cast<uint16_t>(port - port_base_);
    if (wake_at_[at] > now_ns_) return 0;  // nothing has arrived (record_wakes)
    const uint16_t got = in_by_port_[at]->receive(m, n, now_ns_);
    if (got == 0 || (pfc_ == nullptr && credits_ == nullptr)) return got;
    return take_control(port, m, got);
  };
  s.tx = [this](uint16_t port, rte_mbuf** m, uint16_t n) {
    if (pfc_ != nullptr) return send_lossless(port, m, n);
    if (credits_ != nullptr) return send_credited(port, m, n);
    return out_by_port_[port - port_base_]->send(m, n, now_ns_);
  };
  for (uint32_t h : hosts) {
    slot_ports_.push_back(plan.hosts[h].port);
    in_links_.push_back(nullptr);
  }
  engine_ = std::make_unique<gen::HostEngine>(s);
}

uint32_t HostNode::slot_of(uint16_t port) const {
  const auto it = std::find(slot_ports_.begin(), slot_ports_.end(), port);
  if (it == slot_ports_.end()) throw std::logic_error("no host of this node on that port");
  return static_cast<uint32_t>(it - slot_ports_.begin());
}

void HostNode::connect(uint16_t port, Link* in, Link* out) {
  in_by_port_[port - port_base_] = in;
  out_by_port_[port - port_base_] = out;
  in_links_[slot_of(port)] = in;
}

void HostNode::record_wakes(uint16_t port) {
  const auto at = static_cast<uint16_t>(port - port_base_);
  in_by_port_[at]->record_wakes(&wake_at_[at]);
}

void HostNode::start(uint64_t now) { schedule(now, true); }

void HostNode::enable_pfc() {
  std::vector<double> rates;
  for (Link* out : out_by_port_) rates.push_back(out != nullptr ? out->rate_bps() : 1.0);
  pfc_ = std::make_unique<dataplane::Pfc>(dataplane::PfcThresholds{}, std::move(rates));
}

void HostNode::enable_credits(const dataplane::CreditLimits& limits, rte_mempool* pool) {
  credits_ = std::make_unique<dataplane::Credits>(limits,
                                                  static_cast<uint16_t>(out_by_port_.size()));
  control_pool_ = pool;
}

uint16_t HostNode::take_control(uint16_t port, rte_mbuf** pkts, uint16_t n) {
  const auto at = static_cast<uint16_t>(port - port_base_);
  uint16_t kept = 0;
  for (uint16_t i = 0; i < n; ++i) {
    rte_mbuf* m = pkts[i];
    const auto* data = rte_pktmbuf_mtod(m, const uint8_t*);
    const uint32_t len = rte_pktmbuf_data_len(m);
    if (net::is_mac_control(data, len)) {
      net::PfcFrame f;
      if (pfc_ != nullptr && net::parse_pfc(data, len, f) == net::PfcParse::kPfc) {
        pfc_->received(at, f, now_ns_);
      } else {
        ++bad_control_;
      }
    } else if (credits_ != nullptr && net::is_credit_frame(data, len)) {
      uint64_t freed = 0;
      uint8_t vc = 0;
      if (net::parse_credit(data, len, freed, vc) == net::CreditParse::kCredit &&
          vc < credits_->vcs()) {
        credits_->received(at, vc, freed, now_ns_);
      } else {
        ++bad_control_;
      }
    } else {
      if (credits_ != nullptr) {
        // The NIC's buffer empties into the host at once: the frame's credits go back now, for
        // the VC it came in (its TTL as it arrived: net/virtual_channel.h).
        const uint32_t bytes = rte_pktmbuf_pkt_len(m);
        const uint8_t vc = credits_->vcs() > 1 ? net::vc_on_link(net::frame_ttl(data), credits_->vcs()) : 0;
        if (credits_->admit(at, vc, bytes)) {
          credits_->left(at, vc, bytes);
        } else {
          ++credit_overruns_;
        }
      }
      pkts[kept++] = m;
      continue;
    }
    rte_pktmbuf_free(m);
  }
  if (credits_ != nullptr && credits_->owes()) send_credits();
  return kept;
}

void HostNode::send_credits() {
  credits_->take_due([this](uint16_t at, uint8_t vc, uint64_t freed) {
    rte_mbuf* m = control_pool_ != nullptr ? rte_pktmbuf_alloc(control_pool_) : nullptr;
    if (m == nullptr) return false;  // owed still: schedule() tries again a ns later
    char* room = rte_pktmbuf_append(m, net::kCreditFrameBytes);
    if (room == nullptr) {
      rte_pktmbuf_free(m);
      return false;
    }
    // A locally administered address of the host's port: the leaf reads no source.
    const auto port = static_cast<uint16_t>(port_base_ + at);
    const std::array<uint8_t, 6> mac{0x02, 0, 0, 0, static_cast<uint8_t>(port >> 8),
                                     static_cast<uint8_t>(port)};
    net::build_credit(reinterpret_cast<uint8_t*>(room), mac, freed, vc);
    if (out_by_port_[at]->send(&m, 1, now_ns_) == 1) return true;
    rte_pktmbuf_free(m);
    return false;
  });
}

uint16_t HostNode::send_credited(uint16_t port, rte_mbuf** pkts, uint16_t n) {
  // As send_lossless: one frame at a time on a free wire, so that the credits decide each start.
  const auto at = static_cast<uint16_t>(port - port_base_);
  Link& link = *out_by_port_[at];
  if (n == 0 || link.free_at_ns() > now_ns_) return 0;
  // A host's frames leave it in VC 0 (TTL kSentTtl: net/virtual_channel.h).
  const uint32_t len = rte_pktmbuf_pkt_len(pkts[0]);
  if (!credits_->may_send(at, 0, len)) {
    credits_->stall(at, now_ns_);  // the leaf's credit frame ends it, and wakes this node
    return 0;
  }
  const uint16_t sent = link.send(pkts, 1, now_ns_);
  if (sent == 1) credits_->sent(at, 0, len);
  return sent;
}

uint16_t HostNode::send_lossless(uint16_t port, rte_mbuf** pkts, uint16_t n) {
  // The NIC keeps its frames until the wire is free, so that a pause stops every frame not yet
  // started (the link would otherwise hold a burst serialised ahead of time).
  Link& link = *out_by_port_[port - port_base_];
  // A host's frames travel in VC 0's class (net/virtual_channel.h).
  if (n == 0 || pfc_->paused(static_cast<uint16_t>(port - port_base_), net::kPfcDataClass, now_ns_) ||
      link.free_at_ns() > now_ns_) {
    return 0;
  }
  return link.send(pkts, 1, now_ns_);
}

void HostNode::schedule(uint64_t now, bool worked) {
  uint64_t t = pfc_ == nullptr && credits_ == nullptr
                   ? engine_->next_wake(now)
                   : engine_->next_wake(now, [this, now](uint16_t port) {
                       // A port waits for its pause to end (or a resume, which wakes this node),
                       // for credits (a credit frame wakes it), or for its wire to be free.
                       const auto i = static_cast<uint16_t>(port - port_base_);
                       if (pfc_ != nullptr && pfc_->paused(i, net::kPfcDataClass, now)) {
                         return pfc_->paused_until(i, net::kPfcDataClass);
                       }
                       if (credits_ != nullptr && credits_->stalled(i)) return UINT64_MAX;
                       return std::max(out_by_port_[i]->free_at_ns(), now);
                     });
  // Credit frames owed and not sent (no mbuf, a full link): again a ns later.
  if (credits_ != nullptr && credits_->owes()) t = std::min(t, now + 1);
  // A turn that did nothing while claiming work is due now (frames waiting on a full link, or
  // the mempool empty) tries again a ns later: virtual time must move on.
  if (t <= now) t = worked ? now : now + 1;
  if (t < timer_at_) {
    timer_at_ = t;
    events_->push(t, id_, kTimerTag);
  }
}

void HostNode::on_event(uint32_t tag, uint64_t now) {
  if (tag == kTimerTag) {
    if (now != timer_at_) return;  // superseded by an earlier wake
    timer_at_ = UINT64_MAX;
  }
  now_ns_ = now;
  const bool worked = engine_->poll(now);
  if (tag != kTimerTag) in_links_[tag]->rearm(now);
  schedule(now, worked);
}

void HostNode::prefetch(uint32_t tag, bool near) const {
  if (tag == kTimerTag) return;
  if (near) {
    in_links_[tag]->prefetch_head();
  } else {
    in_links_[tag]->prefetch_consumer();
  }
}

bool HostNode::poll(uint64_t now_ns, uint64_t now_tsc) {
  now_ns_ = now_ns;
  if (credits_ != nullptr && credits_->owes()) send_credits();
  return engine_->poll(now_tsc);
}

}  // namespace spraylab::fabric
