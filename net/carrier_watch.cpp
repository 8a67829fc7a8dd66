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

CarrierWatch::CarrierWatch(std::vector<std::string> ifaces, std::chrono::microseconds period)
    : ifaces_(std::move(ifaces)), period_(period), up_(new std::atomic<bool>[ifaces_.size()]) {
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
  while (!w->stop_.load()) {
    std::this_thread::sleep_for(w->period_);
    w->read_all();
  }
  return nullptr;
}

void CarrierWatch::read_all() {
  for (size_t i = 0; i < ifaces_.size(); ++i) {
    up_[i].store(carrier_up(ifaces_[i]), std::memory_order_relaxed);
  }
}

}  // namespace spraylab::net
