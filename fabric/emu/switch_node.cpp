#include "fabric/emu/switch_node.h"

#include <algorithm>

#include "net/credit_frame.h"
#include "net/pfc_frame.h"
#include "switch/dataplane/control_tx.h"

namespace spraylab::fabric {

SwitchNode::SwitchNode(dataplane::SwitchTables tables, const dataplane::RuntimeOptions& opts,
                       EventQueue* events, uint32_t id)
    : rt_(std::make_unique<dataplane::SwitchRuntime>(std::move(tables), opts)),
      fwd_(*rt_, 0),
      in_(rt_->ports(), nullptr),
      out_(rt_->ports(), nullptr),
      plan_(dataplane::plan_workers(1, rt_->ports(), std::vector<uint16_t>(rt_->ports(), 1))[0]),
      tx_pending_(rt_->ports(), 0),
      events_(events),
      id_(id),
      pfc_(rt_->pfc()),
      credits_(rt_->credits()),
      pause_wake_(rt_->ports(), 0) {
  if (events_ != nullptr && opts.shaping) {
    // Virtual time polls exactly when the link frees up, so no frame need start early.
    for (uint16_t p = 0; p < rt_->ports(); ++p) {
      rt_->egress(p).set_shaper(dataplane::Shaper(rt_->tables().ports[p].rate_bps, 0));
    }
  }
}

SwitchNode::~SwitchNode() = default;

void SwitchNode::connect(uint16_t port, Link* in, Link* out) {
  in_[port] = in;
  out_[port] = out;
}

void SwitchNode::receive(uint16_t port, uint64_t now) {
  rte_mbuf* burst[net::kBurst];
  Link& link = *in_[port];
  while (true) {
    const uint16_t n = link.receive(burst, net::kBurst, now);
    if (n == 0) break;
    fwd_.process(burst, n, port, 0, now);
  }
  if (pfc_ != nullptr) pfc_->arrived(port, now);
}

void SwitchNode::send_pfc(uint64_t now) {
  if (pfc_ == nullptr) return;
  // Straight onto the link, not through the egress queue: after the frame on the wire, ahead of
  // every queued data frame, paused (or out of credits) or not.
  dataplane::send_pfc_due(*pfc_, rt_->tables().ports, control_pool_, now,
                          [this, now](uint16_t port, rte_mbuf** m, uint16_t n) {
                            return out_[port]->send(m, n, now);
                          });
}

void SwitchNode::send_credits(uint64_t now) {
  if (credits_ == nullptr || !credits_->owes()) return;
  credits_->take_due([this, now](uint16_t port, uint8_t vc, uint64_t freed) {
    const topo::Mac& mac = rt_->tables().ports[port].mac;
    return dataplane::send_control_frame(
        control_pool_, port, [&](uint8_t* out) { net::build_credit(out, mac, freed, vc); },
        [this, now](uint16_t p, rte_mbuf** m, uint16_t n) { return out_[p]->send(m, n, now); });
  });
}

void SwitchNode::transmit(uint16_t port, uint64_t now) {
  Link& link = *out_[port];
  auto tx = [&link, now](uint16_t, rte_mbuf** m, uint16_t n) { return link.send(m, n, now); };
  while (rt_->depth_packets_now(port) > 0 && fwd_.drain(port, now, tx) > 0) {
  }
  if (rt_->depth_packets_now(port) == 0) return;
  // Out of credits: no wake; the peer's credit frame wakes the switch, and start_idle_ports()
  // starts the port then.
  if (credits_ != nullptr && credits_->stalled(port)) return;
  if (const uint64_t until = pfc_ != nullptr ? paused_until(port, now) : 0; until > 0) {
    // Paused: no wake until the pause runs out (a resume frame wakes the switch sooner, and
    // start_idle_ports() starts the port then).
    if (pause_wake_[port] != until) {
      pause_wake_[port] = until;
      events_->push(until, id_, kPauseTag | port);
    }
    return;
  }
  // The shaper's next start; a link that refused frames (full) is tried again a ns later.
  const uint64_t next = std::max(rt_->egress(port).shaper().busy_until_ns(), now + 1);
  tx_pending_[port] = 1;
  events_->push(next, id_, kTxTag | port);
}

uint64_t SwitchNode::paused_until(uint16_t port, uint64_t now) const {
  const uint8_t vcs = rt_->tables().virtual_channels;
  if (vcs == 1) return pfc_->paused(port, 0, now) ? pfc_->paused_until(port, 0) : 0;
  // Every VC with frames paused: the port waits for the first of them to be free.
  uint64_t until = UINT64_MAX;
  for (uint8_t vc = 0; vc < vcs; ++vc) {
    if (rt_->egress_queues().vc_queue(port, vc).frames() == 0) continue;
    if (!pfc_->paused(port, vc, now)) return 0;
    until = std::min(until, pfc_->paused_until(port, vc));
  }
  return until == UINT64_MAX ? 0 : until;
}

void SwitchNode::start_idle_ports(uint64_t now) {
  for (uint16_t p = 0; p < rt_->ports(); ++p) {
    if (!tx_pending_[p] && rt_->depth_packets_now(p) > 0) transmit(p, now);
  }
}

void SwitchNode::on_event(uint32_t tag, uint64_t now) {
  if (tag & kTxTag) {
    const auto port = static_cast<uint16_t>(tag & 0xffff);
    tx_pending_[port] = 0;
    transmit(port, now);
    send_control(now);
    return;
  }
  if (tag & kPauseTag) {
    const auto port = static_cast<uint16_t>(tag & 0xffff);
    if (pause_wake_[port] != now) return;  // superseded: renewed, or resumed and woken since
    pause_wake_[port] = 0;
    if (!tx_pending_[port]) transmit(port, now);
    send_control(now);
    return;
  }
  const auto port = static_cast<uint16_t>(tag);
  receive(port, now);
  in_[port]->rearm(now);
  start_idle_ports(now);
  send_control(now);
}

void SwitchNode::prefetch(uint32_t tag, bool near) const {
  if (tag & kPauseTag) return;
  if (tag & kTxTag) {
    // The port's queue, then the frame at the head of it (held since its last drain).
    rt_->egress(static_cast<uint16_t>(tag & 0xffff)).prefetch(near);
    return;
  }
  if (near) {
    in_[tag]->prefetch_head();
  } else {
    in_[tag]->prefetch_consumer();
  }
}

bool SwitchNode::poll(uint64_t now_ns, uint64_t /*now_tsc*/) {
  // spraylab-switch's worker turn, with links for devices (one queue each).
  auto rx = [this, now_ns](uint16_t port, uint16_t, rte_mbuf** m, uint16_t n) {
    return in_[port]->receive(m, n, now_ns);
  };
  auto tx = [this, now_ns](uint16_t port, rte_mbuf** m, uint16_t n) {
    return out_[port]->send(m, n, now_ns);
  };
  const bool worked = dataplane::worker_turn(*rt_, fwd_, plan_, now_ns, rx, tx) > 0;
  send_control(now_ns);
  return worked;
}

}  // namespace spraylab::fabric
