#include "switch/dataplane/route_lookup.h"

#include <fmt/format.h>
#include <rte_errno.h>

#include <stdexcept>

namespace spraylab::dataplane {

RouteLookup::RouteLookup(const std::string& name, const std::vector<topo::Prefix>& prefixes,
                         int socket) {
  rte_lpm_config cfg{};
  cfg.max_rules = static_cast<uint32_t>(prefixes.size()) + 16;
  // Every /24 and /16 and /32 beyond /24 needs a tbl8 group; a /32 host route shares its leaf's.
  cfg.number_tbl8s = static_cast<uint32_t>(prefixes.size()) + 16;
  lpm_ = rte_lpm_create(name.c_str(), socket, &cfg);
  if (lpm_ == nullptr) {
    throw std::runtime_error(fmt::format("cannot create LPM table {} for {} routes: {}", name,
                                         prefixes.size(), rte_strerror(rte_errno)));
  }
  for (uint32_t i = 0; i < prefixes.size(); ++i) {
    if (rte_lpm_add(lpm_, prefixes[i].addr, prefixes[i].len, i) != 0) {
      rte_lpm_free(lpm_);
      throw std::runtime_error(fmt::format("cannot add route {}/{} to {}",
                                           topo::ip_to_string(prefixes[i].addr), prefixes[i].len,
                                           name));
    }
  }
}

RouteLookup::~RouteLookup() { rte_lpm_free(lpm_); }

void RouteLookup::lookup_bulk(const uint32_t* ips, uint32_t* out, unsigned n) const {
  rte_lpm_lookup_bulk(lpm_, ips, out, n);
  for (unsigned i = 0; i < n; ++i) {
    out[i] = (out[i] & RTE_LPM_LOOKUP_SUCCESS) ? (out[i] & 0x00ffffff) : kMiss;
  }
}

}  // namespace spraylab::dataplane
