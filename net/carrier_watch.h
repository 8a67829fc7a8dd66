// The carrier of the kernel interfaces behind af_xdp / af_packet ports, read on a control thread
// of its own. Those PMDs (DPDK 22.11) report their link up from start to stop, whatever the
// interface does, so the switch's link view reads the kernel's instead.
//
// Why a thread: the read that answers at once (ethtool's "link detected", netif_carrier_ok) takes
// the kernel's rtnl lock, which `ip link` / `ip netns` commands anywhere on the machine hold for up
// to milliseconds; the switch's control step can run inside its only worker's loop (one lcore),
// and must not wait there. The interface flags (IFF_RUNNING) need no lock but follow the carrier
// through the kernel's linkwatch, which rate-limits such events to one a second: a veth whose peer
// went down still looked running for 0.5-0.8 s, and the switch counted as sent (and the kernel
// dropped) every frame of that time. They are the fallback for a device without ethtool link.
#pragma once

#include <pthread.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace spraylab::net {

// The interface's carrier now, in the caller's network namespace: up, and (ethtool) carrier or
// (fallback) IFF_RUNNING. An interface that is gone (a container's veth end deleted) has none.
// Takes the rtnl lock: never call it on the data path.
bool carrier_up(const std::string& iface);

// How often a process reads its carriers: every 1 ms while it busy-polls; with --idle-sleep T
// every T (at most 100 ms). A process that may sleep T anyway sees a link change at most T late,
// and 28 processes of a fabric on two CPUs reading four interfaces every 1 ms spent 5% of a core
// each on it (docs/fabric.md).
std::chrono::microseconds carrier_period(uint64_t idle_sleep_ns);
// How far the period may stretch while no carrier changes: not at all while busy-polling; with
// --idle-sleep T up to 10 T (at most 250 ms). Each read takes the rtnl lock for four ethtool
// calls; 28 processes of an idle veth fabric reading every 20 ms spent 20% of a core on it.
std::chrono::microseconds carrier_max_period(uint64_t idle_sleep_ns);

class CarrierWatch {
 public:
  static constexpr std::chrono::milliseconds kDefaultPeriod{1};
  // Reads every interface once, then every `period` on an EAL control thread (off the lcores'
  // CPUs); while no carrier changes, each period twice the last up to `max_period` (0: always
  // `period`), back to `period` at the first change. Throws std::runtime_error if the thread
  // cannot start.
  explicit CarrierWatch(std::vector<std::string> ifaces,
                        std::chrono::microseconds period = kDefaultPeriod,
                        std::chrono::microseconds max_period = std::chrono::microseconds(0));
  ~CarrierWatch();
  CarrierWatch(const CarrierWatch&) = delete;
  CarrierWatch& operator=(const CarrierWatch&) = delete;

  // The carrier of ifaces[i] at the last read (at most `period` old). Any thread.
  bool up(size_t i) const { return up_[i].load(std::memory_order_relaxed); }

 private:
  static void* run(void* self);
  bool read_all();  // true if a carrier changed

  std::vector<std::string> ifaces_;
  std::chrono::microseconds period_;
  std::chrono::microseconds max_period_;
  std::unique_ptr<std::atomic<bool>[]> up_;
  std::atomic<bool> stop_{false};
  pthread_t thread_{};
};

}  // namespace spraylab::net
