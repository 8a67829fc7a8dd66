// Longest-prefix match on the destination address (rte_lpm): route index per packet, looked up a
// burst at a time. A second table maps source addresses to their leaf (Polarized needs it).
#pragma once

#include <rte_lpm.h>

#include <cstdint>
#include <string>
#include <vector>

#include "topo/addressing.h"

namespace spraylab::dataplane {

class RouteLookup {
 public:
  static constexpr uint32_t kMiss = UINT32_MAX;

  // `name` must be unique in the process (rte_lpm names are global). Throws std::runtime_error.
  RouteLookup(const std::string& name, const std::vector<topo::Prefix>& prefixes, int socket);
  ~RouteLookup();
  RouteLookup(const RouteLookup&) = delete;
  RouteLookup& operator=(const RouteLookup&) = delete;

  // Value i for the i-th prefix given to the constructor, or kMiss.
  uint32_t lookup(uint32_t ip) const {
    uint32_t hop;
    return rte_lpm_lookup(lpm_, ip, &hop) == 0 ? hop : kMiss;
  }
  // Bulk form for a burst: out[i] = lookup(ips[i]).
  void lookup_bulk(const uint32_t* ips, uint32_t* out, unsigned n) const;

 private:
  rte_lpm* lpm_ = nullptr;
};

}  // namespace spraylab::dataplane
