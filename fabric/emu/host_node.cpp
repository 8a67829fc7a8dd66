#include "fabric/emu/host_node.h"

#include <algorithm>
#include <stdexcept>

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
    return in_by_port_[port - port_base_]->receive(m, n, now_ns_);
  };
  s.tx = [this](uint16_t port, rte_mbuf** m, uint16_t n) {
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

void HostNode::schedule(uint64_t now, bool worked) {
  uint64_t t = engine_->next_wake(now);
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
