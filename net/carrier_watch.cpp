#include "net/carrier_watch.h"

#include <fmt/format.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <unistd.h>
#include <algorithm>

#include <stdexcept>
#include <thread>

namespace spraylab::net {

bool carrier_up(const std::string& iface) {
  const int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return true;  // cannot tell: trust the PMD
  ifreq req{};
  iface.copy(req.ifr_name, IFNAMSIZ - 1);
  bool up = false;
  if (ioctl(fd, SIOCGIFFLAGS, &req) == 0 && (req.ifr_flags & IFF_UP)) {
    ethtool_value link{ETHTOOL_GLINK, 0};
    req.ifr_data = reinterpret_cast<char*>(&link);
    up = ioctl(fd, SIOCETHTOOL, &req) == 0 ? link.data != 0 : (req.ifr_flags & IFF_RUNNING) != 0;
  }
  close(fd);
  return up;
}

std::chrono::microseconds carrier_period(uint64_t idle_sleep_ns) {
  const auto sleep = std::chrono::microseconds(idle_sleep_ns / 1000);
  return std::clamp<std::chrono::microseconds>(sleep, CarrierWatch::kDefaultPeriod,
                                               std::chrono::milliseconds(100));
}

std::chrono::microseconds carrier_max_period(uint64_t idle_sleep_ns) {
  if (idle_sleep_ns == 0) return std::chrono::microseconds(0);
  return std::min<std::chrono::microseconds>(carrier_period(idle_sleep_ns) * 10,
                                             std::chrono::milliseconds(250));
}

CarrierWatch::CarrierWatch(std::vector<std::string> ifaces, std::chrono::microseconds period,
                           std::chrono::microseconds max_period)
    : ifaces_(std::move(ifaces)),
      period_(period),
      max_period_(std::max(max_period, period)),
      up_(new std::atomic<bool>[ifaces_.size()]) {
  read_all();
  const int rc =
      rte_ctrl_thread_create(&thread_, "carrier-watch", nullptr, &CarrierWatch::run, this);
  if (rc != 0) {
    throw std::runtime_error(
        fmt::format("cannot start the carrier-watch thread: {}", rte_strerror(rc)));
  }
}

CarrierWatch::~CarrierWatch() {
  stop_.store(true);
  pthread_join(thread_, nullptr);
}

void* CarrierWatch::run(void* self) {
  auto* w = static_cast<CarrierWatch*>(self);
  std::chrono::microseconds period = w->period_;
  while (!w->stop_.load()) {
    std::this_thread::sleep_for(period);
    // Quiet carriers are read less and less often; a change brings the base period back.
    period = w->read_all() ? w->period_ : std::min(period * 2, w->max_period_);
  }
  return nullptr;
}

bool CarrierWatch::read_all() {
  bool changed = false;
  for (size_t i = 0; i < ifaces_.size(); ++i) {
    const bool up = carrier_up(ifaces_[i]);
    changed = changed || up != up_[i].load(std::memory_order_relaxed);
    up_[i].store(up, std::memory_order_relaxed);
  }
  return changed;
}

}  // namespace spraylab::net
