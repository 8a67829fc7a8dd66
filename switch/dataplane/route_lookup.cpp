#include "switch/dataplane/route_lookup.h"

#include <fmt/format.h>
#include <rte_errno.h>

#include <algorithm>
#include <stdexcept>

namespace spraylab::dataplane {

namespace {

rte_lpm* make_lpm(const std::string& name, const std::vector<topo::Prefix>& prefixes, int socket) {
  rte_lpm_config cfg{};
  cfg.max_rules = static_cast<uint32_t>(prefixes.size()) + 16;
  // Every /24 and /16 and /32 beyond /24 needs a tbl8 group; a /32 host route shares its leaf's.
  cfg.number_tbl8s = static_cast<uint32_t>(prefixes.size()) + 16;
  rte_lpm* lpm = rte_lpm_create(name.c_str(), socket, &cfg);
  if (lpm == nullptr) {
    throw std::runtime_error(fmt::format("cannot create LPM table {} for {} routes: {}", name,
                                         prefixes.size(), rte_strerror(rte_errno)));
  }
  for (uint32_t i = 0; i < prefixes.size(); ++i) {
    if (rte_lpm_add(lpm, prefixes[i].addr, prefixes[i].len, i) != 0) {
      rte_lpm_free(lpm);
      throw std::runtime_error(fmt::format("cannot add route {}/{} to {}",
                                           topo::ip_to_string(prefixes[i].addr), prefixes[i].len,
                                           name));
    }
  }
  return lpm;
}

uint32_t prefix_mask(uint8_t len) { return len == 0 ? 0 : ~uint32_t{0} << (32 - len); }

bool covers(const topo::Prefix& wide, const topo::Prefix& p) {
  return wide.len <= p.len && (p.addr & prefix_mask(wide.len)) == wide.addr;
}

}  // namespace

std::vector<topo::Prefix> SharedRoutes::canonical(std::vector<topo::Prefix> prefixes) {
  for (topo::Prefix& p : prefixes) p.addr &= prefix_mask(p.len);
  std::sort(prefixes.begin(), prefixes.end(), [](const topo::Prefix& a, const topo::Prefix& b) {
    return a.addr != b.addr ? a.addr < b.addr : a.len < b.len;
  });
  prefixes.erase(std::unique(prefixes.begin(), prefixes.end(),
                             [](const topo::Prefix& a, const topo::Prefix& b) {
                               return a.addr == b.addr && a.len == b.len;
                             }),
                 prefixes.end());
  return prefixes;
}

SharedRoutes::SharedRoutes(const std::string& name, std::vector<topo::Prefix> prefixes, int socket)
    : prefixes_(canonical(std::move(prefixes))) {
  // Sorted by (address, length), a prefix follows the shorter ones that cover it.
  for (uint32_t g = 0; g < prefixes_.size(); ++g) {
    const bool covered =
        !class_start_.empty() && covers(prefixes_[class_start_.back()], prefixes_[g]);
    if (!covered) class_start_.push_back(g);
    class_of_.push_back(static_cast<uint32_t>(class_start_.size() - 1));
  }
  lpm_ = make_lpm(name, prefixes_, socket);
}

SharedRoutes::~SharedRoutes() { rte_lpm_free(lpm_); }

RouteLookup::RouteLookup(const std::string& name, const std::vector<topo::Prefix>& prefixes,
                         int socket)
    : lpm_(make_lpm(name, prefixes, socket)) {}

RouteLookup::RouteLookup(std::shared_ptr<const SharedRoutes> shared,
                         const std::vector<topo::Prefix>& prefixes)
    : lpm_(const_cast<rte_lpm*>(shared->lpm())), shared_(std::move(shared)) {
  const std::vector<topo::Prefix>& all = shared_->prefixes();
  // Each shared prefix maps to the longest of `prefixes` that covers it. Both lists in (address,
  // length) order, one walk over the two: a prefix follows the shorter ones that cover it, so
  // those covering the current shared prefix are a stack (each longer than the one below), and
  // one that stops covering it covers nothing after it either. O(shared + local) per switch, no
  // allocation a prefix: the hash of `prefixes` it replaces cost a node and up to a probe a
  // prefix length for every (switch, shared prefix), most of building a 1458-leaf MRLS.
  struct Local {
    topo::Prefix p;
    uint32_t index;
  };
  auto before = [](const topo::Prefix& a, const topo::Prefix& b) {
    return a.addr != b.addr ? a.addr < b.addr : a.len < b.len;
  };
  std::vector<Local> local;
  local.reserve(prefixes.size());
  for (uint32_t i = 0; i < prefixes.size(); ++i) {
    local.push_back({{prefixes[i].addr & prefix_mask(prefixes[i].len), prefixes[i].len}, i});
  }
  auto local_before = [&](const Local& a, const Local& b) {
    return before(a.p, b.p) || (!before(b.p, a.p) && a.index < b.index);
  };
  if (!std::is_sorted(local.begin(), local.end(), local_before)) {
    std::sort(local.begin(), local.end(), local_before);
  }
  // At an equal prefix the later one wins, as rte_lpm_add's replacement does in a table of its
  // own: keep the last of each run.
  auto same = [](const Local& a, const Local& b) {
    return a.p.addr == b.p.addr && a.p.len == b.p.len;
  };
  std::reverse(local.begin(), local.end());
  local.erase(std::unique(local.begin(), local.end(), same), local.end());
  std::reverse(local.begin(), local.end());

  // The remap, compacted as it is made: a class's values into `values`, then one
  // entry for the class or its values spelled out after the class entries. (The whole remap
  // first, 4 B a shared prefix, was a 455 KB vector a switch to fill and copy at 100 K hosts.)
  const uint32_t classes = shared_->classes();
  std::vector<uint32_t> entries(classes), spelled, values;
  std::vector<uint32_t> covering;  // indices into `local`, each covering the one before
  size_t next = 0, found = 0;      // found: local prefixes equal to a shared one
  for (uint32_t c = 0; c < classes; ++c) {
    const uint32_t first = shared_->class_start()[c];
    const uint32_t end = c + 1 < classes ? shared_->class_start()[c + 1]
                                         : static_cast<uint32_t>(all.size());
    values.clear();
    for (uint32_t g = first; g < end; ++g) {
      for (; next < local.size() && !before(all[g], local[next].p); ++next) {
        while (!covering.empty() && !covers(local[covering.back()].p, local[next].p))
          covering.pop_back();
        covering.push_back(static_cast<uint32_t>(next));
      }
      while (!covering.empty() && !covers(local[covering.back()].p, all[g])) covering.pop_back();
      if (covering.empty()) {
        values.push_back(kMiss);
        continue;
      }
      const Local& l = local[covering.back()];
      values.push_back(l.index);
      if (l.p.len == all[g].len) ++found;  // covers and as long: the same prefix
    }
    entries[c] = class_entry(values, spelled);
  }
  if (found != local.size()) {
    for (const Local& l : local) {
      if (!std::binary_search(all.begin(), all.end(), l.p, before)) {
        throw std::invalid_argument(fmt::format("route {}/{} is not in the shared route table",
                                                topo::ip_to_string(prefixes[l.index].addr),
                                                l.p.len));
      }
    }
  }
  entries.insert(entries.end(), spelled.begin(), spelled.end());
  remap_owner_ = shared_->intern(std::move(entries));
  remap_ = remap_owner_->data();
  class_of_ = shared_->class_of();
  class_start_ = shared_->class_start();
  classes_ = shared_->classes();
}

// A class's entry: its prefixes' common value, or kSpelled + where its values are spelled out
// after the class entries (a class whose prefixes go more than one way), appended to `spelled`.
uint32_t RouteLookup::class_entry(const std::vector<uint32_t>& values,
                                  std::vector<uint32_t>& spelled) {
  if (std::all_of(values.begin(), values.end(), [&](uint32_t v) { return v == values[0]; }) &&
      (values[0] < kSpelled || values[0] == kMiss)) {
    return values[0];
  }
  if (spelled.size() >= kMiss - kSpelled) {
    throw std::invalid_argument("route lookup: too many routes to remap");
  }
  const auto at = kSpelled + static_cast<uint32_t>(spelled.size());
  spelled.insert(spelled.end(), values.begin(), values.end());
  return at;
}

std::shared_ptr<const std::vector<uint32_t>> SharedRoutes::intern(
    std::vector<uint32_t> remap) const {
  uint64_t h = 14695981039346656037ull;  // FNV-1a over the entries
  for (uint32_t v : remap) h = (h ^ v) * 1099511628211ull;
  std::lock_guard<std::mutex> lock(interned_lock_);
  auto [first, last] = interned_.equal_range(h);
  for (auto it = first; it != last;) {
    auto held = it->second.lock();
    if (held == nullptr) {
      it = interned_.erase(it);
    } else if (*held == remap) {
      return held;
    } else {
      ++it;
    }
  }
  auto made = std::make_shared<const std::vector<uint32_t>>(std::move(remap));
  interned_.emplace(h, made);
  return made;
}

RouteLookup::~RouteLookup() {
  if (!shared_) rte_lpm_free(lpm_);
}

void RouteLookup::lookup_bulk(const uint32_t* ips, uint32_t* out, unsigned n) const {
  // Four addresses a step through rte_lpm_lookupx4 (l3fwd's processx4_step2): the four tbl24
  // loads issue together and one compare tells whether any needs its tbl8, where
  // rte_lpm_lookup_bulk tests and branches per address. A miss comes back as kMiss itself (the
  // default value), a hit as the 24-bit next hop, as lookup() has them.
  unsigned i = 0;
  for (; i + 4 <= n; i += 4) {
    rte_lpm_lookupx4(lpm_, _mm_loadu_si128(reinterpret_cast<const __m128i*>(ips + i)), out + i,
                     kMiss);
  }
  for (; i < n; ++i) {
    uint32_t hop;
    out[i] = rte_lpm_lookup(lpm_, ips[i], &hop) == 0 ? hop : kMiss;
  }
  if (remap_ == nullptr) return;
  for (i = 0; i < n; ++i) out[i] = out[i] == kMiss ? kMiss : remapped(out[i]);
}

}  // namespace spraylab::dataplane
