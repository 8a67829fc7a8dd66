#include "fabric/emu/host_node.h"

#include <algorithm>
#include <stdexcept>

#include "net/pfc_frame.h"

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
  s.rx = [this](uint16_t port, rte_mbuf** m, uint16_t n) {
    const uint16_t got = in_by_port_[port - port_base_]->receive(m, n, now_ns_);
    return pfc_ == nullptr || got == 0 ? got : take_control(port, m, got);
  };
  s.tx = [this](uint16_t port, rte_mbuf** m, uint16_t n) {
    if (pfc_ != nullptr) return send_lossless(port, m, n);
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

void HostNode::start(uint64_t now) { schedule(now, true); }

void HostNode::enable_pfc() {
  std::vector<double> rates;
  for (Link* out : out_by_port_) rates.push_back(out != nullptr ? out->rate_bps() : 1.0);
  pfc_ = std::make_unique<dataplane::Pfc>(dataplane::PfcThresholds{}, std::move(rates));
}

uint16_t HostNode::take_control(uint16_t port, rte_mbuf** pkts, uint16_t n) {
  uint16_t kept = 0;
  for (uint16_t i = 0; i < n; ++i) {
    rte_mbuf* m = pkts[i];
    const auto* data = rte_pktmbuf_mtod(m, const uint8_t*);
    if (!net::is_mac_control(data, rte_pktmbuf_data_len(m))) {
      pkts[kept++] = m;
      continue;
    }
    net::PfcFrame f;
    if (net::parse_pfc(data, rte_pktmbuf_data_len(m), f) == net::PfcParse::kPfc) {
      pfc_->received(static_cast<uint16_t>(port - port_base_), f, now_ns_);
    } else {
      ++bad_control_;
    }
    rte_pktmbuf_free(m);
  }
  return kept;
}

uint16_t HostNode::send_lossless(uint16_t port, rte_mbuf** pkts, uint16_t n) {
  // The NIC keeps its frames until the wire is free, so that a pause stops every frame not yet
  // started (the link would otherwise hold a burst serialised ahead of time).
  Link& link = *out_by_port_[port - port_base_];
  if (n == 0 || pfc_->paused(static_cast<uint16_t>(port - port_base_), now_ns_) ||
      link.free_at_ns() > now_ns_) {
    return 0;
  }
  return link.send(pkts, 1, now_ns_);
}

void HostNode::schedule(uint64_t now, bool worked) {
  uint64_t t = pfc_ == nullptr ? engine_->next_wake(now)
                               : engine_->next_wake(now, [this, now](uint16_t port) {
                                   // A port waits for its pause to end (or a resume, which
                                   // wakes this node) or for its wire to be free.
                                   const auto i = static_cast<uint16_t>(port - port_base_);
                                   if (pfc_->paused(i, now)) return pfc_->paused_until(i);
                                   return std::max(out_by_port_[i]->free_at_ns(), now);
                                 });
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

bool HostNode::poll(uint64_t now_ns, uint64_t now_tsc) {
  now_ns_ = now_ns;
  return engine_->poll(now_tsc);
}

}  // namespace spraylab::fabric
