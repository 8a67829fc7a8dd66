// The host engines of one spraylab-gen process, one per lcore, and what the main lcore reads of
// them all (trafficgen/spraylab_gen.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "trafficgen/host_engine.h"

namespace spraylab::gen {

struct Engines {
  std::vector<std::unique_ptr<HostEngine>> list;
  std::vector<const HostEngine*> view() const {
    std::vector<const HostEngine*> v;
    for (const auto& e : list) v.push_back(e.get());
    return v;
  }
  bool finished() const {
    for (const auto& e : list) {
      if (!e->finished()) return false;
    }
    return true;
  }
  uint64_t done() const {
    uint64_t n = 0;
    for (const auto& e : list) n += e->messages_done();
    return n;
  }
  uint64_t total() const {
    uint64_t n = 0;
    for (const auto& e : list) n += e->messages_total();
    return n;
  }
  uint64_t tx_bytes() const {
    uint64_t n = 0;
    for (const auto& e : list) n += e->tx_bytes_live();
    return n;
  }
};

}  // namespace spraylab::gen
