#include "switch/dataplane/route_lookup.h"

#include <fmt/format.h>
#include <rte_errno.h>

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <unordered_map>

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
  // Each shared prefix maps to the longest of `prefixes` that covers it: looked up by length,
  // longest first, in a hash of `prefixes`. (A scan of `prefixes` per shared prefix is
  // O(shared x local) per switch: a k = 32 fat tree has 8.7k shared prefixes and 1280 switches.)
  auto key = [](uint32_t addr, uint8_t len) {
    return (uint64_t{len} << 32) | (addr & prefix_mask(len));
  };
  std::unordered_map<uint64_t, uint32_t> local;  // prefix -> its last index in `prefixes`
  std::vector<uint8_t> lengths;                  // the lengths in `prefixes`, longest first
  for (uint32_t i = 0; i < prefixes.size(); ++i) {
    // At equal length the later prefix wins, as rte_lpm_add's replacement does in a table of
    // its own.
    local[key(prefixes[i].addr, prefixes[i].len)] = i;
    if (std::find(lengths.begin(), lengths.end(), prefixes[i].len) == lengths.end()) {
      lengths.push_back(prefixes[i].len);
    }
  }
  std::sort(lengths.begin(), lengths.end(), std::greater<>());
  std::vector<uint32_t> remap(all.size(), kMiss);
  for (size_t g = 0; g < all.size(); ++g) {
    for (uint8_t len : lengths) {
      if (len > all[g].len) continue;
      const auto it = local.find(key(all[g].addr, len));
      if (it != local.end()) {
        remap[g] = it->second;
        break;
      }
    }
  }
  remap_owner_ = shared_->intern(compact(*shared_, remap));
  remap_ = remap_owner_->data();
  class_of_ = shared_->class_of();
  class_start_ = shared_->class_start();
  classes_ = shared_->classes();
  // `all` is sorted by (address, length) and canonical (SharedRoutes).
  auto before = [](const topo::Prefix& a, const topo::Prefix& b) {
    return a.addr != b.addr ? a.addr < b.addr : a.len < b.len;
  };
  for (const topo::Prefix& p : prefixes) {
    const topo::Prefix canonical{p.addr & prefix_mask(p.len), p.len};
    if (!std::binary_search(all.begin(), all.end(), canonical, before)) {
      throw std::invalid_argument(fmt::format("route {}/{} is not in the shared route table",
                                              topo::ip_to_string(p.addr), p.len));
    }
  }
}

// One entry a class: its prefixes' common value, or kSpelled + where its values are spelled out
// after the class entries (a class whose prefixes go more than one way).
std::vector<uint32_t> RouteLookup::compact(const SharedRoutes& shared,
                                           const std::vector<uint32_t>& remap) {
  const uint32_t classes = shared.classes();
  std::vector<uint32_t> out(classes);
  for (uint32_t c = 0; c < classes; ++c) {
    const uint32_t first = shared.class_start()[c];
    const uint32_t end =
        c + 1 < classes ? shared.class_start()[c + 1] : static_cast<uint32_t>(remap.size());
    if (std::all_of(remap.begin() + first, remap.begin() + end,
                    [&](uint32_t v) { return v == remap[first]; }) &&
        (remap[first] < kSpelled || remap[first] == kMiss)) {
      out[c] = remap[first];
      continue;
    }
    if (out.size() - classes >= kMiss - kSpelled) {
      throw std::invalid_argument("route lookup: too many routes to remap");
    }
    out[c] = kSpelled + static_cast<uint32_t>(out.size() - classes);
    out.insert(out.end(), remap.begin() + first, remap.begin() + end);
  }
  return out;
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
