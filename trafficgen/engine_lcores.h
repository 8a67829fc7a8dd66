// The lcores of spraylab-gen's host engines (trafficgen/spraylab_gen.cpp): one engine per worker
// lcore, or the only one polled by the main lcore's loop, each with --idle-sleep's naps and, with
// memif ports, turns with DPDK's interrupt thread (net/intr_gate.h).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "net/idle_sleep.h"
#include "net/intr_gate.h"
#include "net/ports.h"
#include "trafficgen/engines.h"

namespace spraylab::gen {

// An engine's lcore. With memif ports it takes turns with DPDK's interrupt thread, where memif
// links come and go (net/intr_gate.h): a switch killed mid-burst cannot crash it.
struct EngineLaunch {
  HostEngine* engine;
  net::IntrGate* gate;
  uint32_t poller;
  uint64_t idle_sleep_ns;         // --idle-sleep (0: busy polling)
  int rt_priority;                // --rt-priority (0: the fair class)
  const std::atomic<bool>* stop;  // EngineLcores::halt sets it
};

// The engines running: one per worker lcore, or the only one polled by the main lcore's loop
// (poll_main). halt() stops every engine's polling and keeps the ports open; finish() also lets
// the interrupt thread run freely again, before the ports close.
class EngineLcores {
 public:
  EngineLcores(const Engines& engines, const std::vector<unsigned>& lcores,
               const std::vector<net::PortState>& ports, uint64_t idle_sleep_ns, int rt_priority);
  // The main lcore's turn: its engine's poll, or a nap when it has none to poll.
  void poll_main(uint64_t now);
  bool halted() const { return halted_; }
  void halt();
  void finish();

 private:
  std::atomic<bool> stop_{false};
  net::IdleSleep idle_;
  double ns_per_cycle_;
  std::unique_ptr<net::IntrGate> gate_;
  std::vector<EngineLaunch> launches_;
  HostEngine* main_engine_ = nullptr;
  bool halted_ = false;
  bool main_rt_ = false;
};

}  // namespace spraylab::gen
