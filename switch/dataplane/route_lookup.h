// Longest-prefix match on the destination address (rte_lpm): route index per packet, looked up a
// burst at a time. A second table maps source addresses to their leaf (Polarized needs it).
#pragma once

#include <rte_lpm.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "topo/addressing.h"

namespace spraylab::dataplane {

// One rte_lpm holding the prefixes of many switches (their union), for a fabric of many switches
// in one process: rte_lpm's first level has 2^24 entries, 64 MB a table, so one table per switch
// does not fit a 180-switch fat tree (and freeing each would clear its 64 MB). Read-only once
// built, so switches on any lcore share it.
class SharedRoutes {
 public:
  // Duplicates are merged. `name` must be unique in the process. Throws std::runtime_error.
  SharedRoutes(const std::string& name, std::vector<topo::Prefix> prefixes, int socket);
  ~SharedRoutes();
  SharedRoutes(const SharedRoutes&) = delete;
  SharedRoutes& operator=(const SharedRoutes&) = delete;

  const std::vector<topo::Prefix>& prefixes() const { return prefixes_; }
  const rte_lpm* lpm() const { return lpm_; }
  // The prefixes in classes: a class is a run of prefixes (in the table's order) that its first
  // one covers, e.g. a leaf's /24 and its hosts' /32s. A switch's remap is mostly one value a
  // class (every host of another leaf goes where its leaf goes), so RouteLookup keeps one entry a
  // class and spells out only the classes whose prefixes go different ways (issue 40).
  uint32_t classes() const { return static_cast<uint32_t>(class_start_.size()); }
  const uint32_t* class_of() const { return class_of_.data(); }        // per prefix
  const uint32_t* class_start() const { return class_start_.data(); }  // per class
  // `prefixes` as the table holds them: masked to their length, sorted, duplicates merged.
  static std::vector<topo::Prefix> canonical(std::vector<topo::Prefix> prefixes);
  // One copy of each distinct remap (RouteLookup's, an entry a class and the spelled-out classes):
  // the same as one handed out before and still in use, else `remap` itself. Every spine of an
  // MRLS, and every switch's source-leaf table, has the same one: a copy each was O(switches x
  // prefixes), ~13 GB for 100 K hosts (docs/fabric.md).
  std::shared_ptr<const std::vector<uint32_t>> intern(std::vector<uint32_t> remap) const;

 private:
  std::vector<topo::Prefix> prefixes_;
  std::vector<uint32_t> class_of_;
  std::vector<uint32_t> class_start_;
  rte_lpm* lpm_ = nullptr;
  mutable std::mutex interned_lock_;
  mutable std::multimap<uint64_t, std::weak_ptr<const std::vector<uint32_t>>> interned_;
};

class RouteLookup {
 public:
  static constexpr uint32_t kMiss = UINT32_MAX;

  // A table of its own. `name` must be unique in the process (rte_lpm names are global). Throws
  // std::runtime_error.
  RouteLookup(const std::string& name, const std::vector<topo::Prefix>& prefixes, int socket);
  // The same answers from a shared table that holds at least `prefixes`: the shared match is
  // mapped to the longest of `prefixes` that covers it (every prefix of `prefixes` that matches
  // an address covers the shared table's longest match, since it is in the shared table too).
  RouteLookup(std::shared_ptr<const SharedRoutes> shared,
              const std::vector<topo::Prefix>& prefixes);
  ~RouteLookup();
  RouteLookup(const RouteLookup&) = delete;
  RouteLookup& operator=(const RouteLookup&) = delete;

  // Value i for the i-th prefix given to the constructor, or kMiss.
  uint32_t lookup(uint32_t ip) const {
    uint32_t hop;
    if (rte_lpm_lookup(lpm_, ip, &hop) != 0) return kMiss;
    return remap_ == nullptr ? hop : remapped(hop);
  }
  // Bulk form for a burst: out[i] = lookup(ips[i]).
  void lookup_bulk(const uint32_t* ips, uint32_t* out, unsigned n) const;
  // The shared table's remap (nullptr for a table of its own): lookups with equal remaps on one
  // SharedRoutes share one copy.
  const uint32_t* remap_data() const { return remap_; }
  // The remap's entries (0 for a table of its own): one a class of the shared table, plus the
  // classes spelled out. O(leaves) for a leaf switch, whose own hosts' /32s are its only class
  // that goes more than one way.
  size_t remap_entries() const { return remap_owner_ ? remap_owner_->size() : 0; }

 private:
  // A class entry at or above kSpelled (and not kMiss) is kSpelled + the offset of the class's
  // own entries after the class entries.
  static constexpr uint32_t kSpelled = 0x80000000u;
  uint32_t remapped(uint32_t hop) const {
    const uint32_t c = class_of_[hop];
    const uint32_t e = remap_[c];
    if (e < kSpelled || e == kMiss) return e;
    return remap_[classes_ + (e - kSpelled) + (hop - class_start_[c])];
  }
  static uint32_t class_entry(const std::vector<uint32_t>& values,
                              std::vector<uint32_t>& spelled);

  rte_lpm* lpm_ = nullptr;
  // The remap's owner (SharedRoutes::intern) and its data; remap_ is nullptr for a table of its
  // own.
  std::shared_ptr<const SharedRoutes> shared_;  // set when lpm_ is the shared table's
  std::shared_ptr<const std::vector<uint32_t>> remap_owner_;
  const uint32_t* remap_ = nullptr;  // class entries, then the spelled-out classes (remapped())
  const uint32_t* class_of_ = nullptr;
  const uint32_t* class_start_ = nullptr;
  uint32_t classes_ = 0;
};

}  // namespace spraylab::dataplane
