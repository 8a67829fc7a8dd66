// A switch of the fabric: spraylab-switch's SwitchRuntime and Forwarder (the same tables, the same
// process() on each burst, the same drain() through the same Shaper; on the wall clock the same
// worker_turn()) with in-memory links for ports. One worker: a node is polled by one lcore, or by
// the virtual clock.
//
// Virtual time: a frame arriving on port p wakes the switch for p; it forwards what has arrived
// (bursts of up to 32), then starts every egress port that has frames and no departure pending.
// A port sends what its shaper allows (one frame at a time with no slack) and asks to be woken
// when the shaper lets the next one go, until its queue is empty. So a frame costs the switch one
// wake to arrive and at most one to leave, and a wake touches only the ports it concerns (plus
// one scan of the egress depths, one cache line for a 12-port switch).
#pragma once

#include <rte_mbuf.h>
#include <rte_mempool.h>

#include <memory>
#include <vector>

#include "fabric/emu/event_queue.h"
#include "fabric/emu/link.h"
#include "fabric/emu/node.h"
#include "switch/dataplane/forwarder.h"
#include "switch/dataplane/switch_runtime.h"
#include "switch/dataplane/worker.h"

namespace spraylab::fabric {

class SwitchNode final : public Node {
 public:
  // `events`: the virtual clock's queue (then the shapers get no slack: frames leave exactly
  // when the link is free), or nullptr for the wall clock (the switch's own slack: a burst's worth
  // may leave together after a late turn). `id`: this node's number in `events`.
  SwitchNode(dataplane::SwitchTables tables, const dataplane::RuntimeOptions& opts,
             EventQueue* events, uint32_t id);
  ~SwitchNode() override;

  // Port `port` receives from `in` and sends on `out`.
  void connect(uint16_t port, Link* in, Link* out);
  // buffer.flow_control: pfc or credit: the pool the switch's PFC or credit frames come from.
  void set_control_pool(rte_mempool* pool) { control_pool_ = pool; }

  void on_event(uint32_t tag, uint64_t now) override;
  void prefetch(uint32_t tag, bool near) const override;
  bool poll(uint64_t now_ns, uint64_t now_tsc) override;

  Link* in_link(uint16_t port) const { return in_[port]; }
  Link* out_link(uint16_t port) const { return out_[port]; }
  dataplane::SwitchRuntime& runtime() { return *rt_; }
  const dataplane::SwitchRuntime& runtime() const { return *rt_; }

 private:
  void receive(uint16_t port, uint64_t now);
  void start_idle_ports(uint64_t now);
  void transmit(uint16_t port, uint64_t now);
  // PFC: when port `port`, which has frames, may start one again if every VC (class) that has
  // frames is paused now; 0 if one is not.
  uint64_t paused_until(uint16_t port, uint64_t now) const;
  // PFC: the pause and resume frames the switch owes, sent now ahead of each port's data.
  void send_pfc(uint64_t now);
  // Credits: the credit frames the switch owes, sent now ahead of each port's data.
  void send_credits(uint64_t now);
  // PFC or credits: the control frames owed.
  void send_control(uint64_t now) {
    send_pfc(now);
    send_credits(now);
  }

  std::unique_ptr<dataplane::SwitchRuntime> rt_;
  dataplane::Forwarder fwd_;
  std::vector<Link*> in_, out_;
  dataplane::WorkerPlan plan_;       // wall clock: every port's rx and tx, as one worker's
  std::vector<uint8_t> tx_pending_;  // virtual: a departure wake is queued for the port
  EventQueue* events_;
  uint32_t id_;
  dataplane::Pfc* pfc_;               // nullptr without buffer.flow_control: pfc
  dataplane::Credits* credits_;       // nullptr without buffer.flow_control: credit
  rte_mempool* control_pool_ = nullptr;
  std::vector<uint64_t> pause_wake_;  // virtual, PFC: when a paused port's wake is due (0: none)
};

}  // namespace spraylab::fabric
