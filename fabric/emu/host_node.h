// The emulated hosts under one leaf: spraylab-gen's HostEngine (the same send, ACK and measure
// code) with the fabric's links for ports. The engine sees DPDK port numbers; here port r is the
// link of the host of rank r, so the RunPlan is spraylab-gen's for every host of the topology.
//
// Virtual time: the engine is polled when a frame arrives on one of its links and when its own
// next_wake() is due (the pacer, a message start, a retransmission deadline); its clock is the
// fabric's, in ns (tsc_hz = 1e9).
#pragma once

#include <rte_mempool.h>

#include <memory>
#include <vector>

#include "fabric/emu/event_queue.h"
#include "fabric/emu/link.h"
#include "fabric/emu/node.h"
#include "switch/dataplane/credit.h"
#include "switch/dataplane/pfc.h"
#include "trafficgen/host_engine.h"

namespace spraylab::fabric {

class HostNode final : public Node {
 public:
  // `hosts`: indices into plan.hosts. `events` nullptr: the wall clock, the engine's clock the
  // TSC (`tsc_hz`, `start_tsc`); else the virtual clock in ns and `id` this node's number there.
  HostNode(const gen::RunPlan& plan, const std::vector<uint32_t>& hosts, rte_mempool* pool,
           uint32_t engine_id, uint64_t tsc_hz, uint64_t start_tsc, EventQueue* events, uint32_t id,
           gen::MessageSlots* message_slots = nullptr);

  // The host on DPDK-style port `port` (its rank) receives from `in` and sends on `out`.
  void connect(uint16_t port, Link* in, Link* out);
  // Virtual time, after `in`'s set_consumer(): `in` records its pending wake here, and a wake
  // of this node polls only the links whose wake is due (every one with a frame arrived has a
  // wake due now: the others would return nothing, at a cache miss or two each).
  void record_wakes(uint16_t port);
  // Virtual time: asks for the first wake (the start of the workload).
  void start(uint64_t now);
  // buffer.flow_control: pfc, after every connect(): the hosts' NICs obey the pause frames their
  // leaf sends (one frame started at a time, none while paused) and consume them.
  void enable_pfc();
  // PFC: the hosts' side of the pause, indexed by port - port_base() (nullptr without PFC).
  const dataplane::Pfc* pfc() const { return pfc_.get(); }
  uint16_t port_base() const { return port_base_; }
  // PFC: MAC control frames received that were no 802.1Qbb PFC (consumed, counted); credits:
  // credit frames that were malformed, and MAC control frames.
  uint64_t bad_control_frames() const { return bad_control_; }
  // buffer.flow_control: credit, after every connect(): each host's NIC starts a frame only with
  // credits for its leaf's buffer (one frame started at a time), takes its leaf's credit frames,
  // and returns credits for every frame it receives at once (the NIC's buffer empties into the
  // host as the frame arrives), in credit frames from `pool`.
  void enable_credits(const dataplane::CreditLimits& limits, rte_mempool* pool);
  // Credits: the hosts' side, indexed by port - port_base() (nullptr without credits).
  const dataplane::Credits* credits() const { return credits_.get(); }
  // Credits: data frames that arrived beyond the NIC's buffer (delivered all the same: the
  // host's buffer is its memory), a sender that ignored its credits.
  uint64_t credit_overruns() const { return credit_overruns_; }
  // The links of the host at index `at` (port - port_base()): from its leaf, and to it.
  const Link* in_link(uint16_t at) const { return in_by_port_[at]; }
  const Link* out_link(uint16_t at) const { return out_by_port_[at]; }

  void on_event(uint32_t tag, uint64_t now) override;
  // An arrival's wake: its link's consumer line two events ahead, its frame (and the arrival of
  // the one after it) one event ahead, as a switch's (a host's receive missed on both).
  void prefetch(uint32_t tag, bool near) const override;
  bool poll(uint64_t now_ns, uint64_t now_tsc) override;

  const gen::HostEngine& engine() const { return *engine_; }
  // Link slot (the tag its arrivals carry) of a port.
  uint32_t slot_of(uint16_t port) const;

 private:
  void schedule(uint64_t now, bool worked);
  // PFC: takes the pause frames out of pkts[0..n) (their hosts' pauses set); returns what is left.
  uint16_t take_control(uint16_t port, rte_mbuf** pkts, uint16_t n);
  // PFC: sends at most one frame on the port's link, when it is neither paused nor busy.
  uint16_t send_lossless(uint16_t port, rte_mbuf** pkts, uint16_t n);
  // Credits: sends at most one frame on the port's link, when it is free and the credits cover it.
  uint16_t send_credited(uint16_t port, rte_mbuf** pkts, uint16_t n);
  // Credits: the credit frames owed, onto the links now (ahead of the hosts' data).
  void send_credits();

  // Indexed by port - port_base_: the local hosts' ports only (consecutive ranks under a leaf;
  // sized by every rank they were 16 B x hosts per engine, O(hosts x leaves) in all).
  std::vector<Link*> in_by_port_, out_by_port_;
  // Virtual time: when each in_by_port_ link's pending wake is (UINT64_MAX: none; 0: it does
  // not record it, as in wall-clock time: always polled). One cache line for 8 hosts.
  std::vector<uint64_t> wake_at_;
  uint16_t port_base_ = 0;
  std::vector<Link*> in_links_;  // by slot
  std::vector<uint16_t> slot_ports_;
  uint64_t now_ns_ = 0;  // the time the links see during a poll
  uint64_t timer_at_ = UINT64_MAX;
  EventQueue* events_;
  uint32_t id_;
  std::unique_ptr<dataplane::Pfc> pfc_;
  std::unique_ptr<dataplane::Credits> credits_;
  rte_mempool* control_pool_ = nullptr;  // credits: the credit frames'
  uint64_t bad_control_ = 0;
  uint64_t credit_overruns_ = 0;
  std::unique_ptr<gen::HostEngine> engine_;  // last: its I/O refers to the members above
};

}  // namespace spraylab::fabric
