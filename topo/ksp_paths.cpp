#include "topo/ksp_paths.h"

#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <string>
#include <thread>

namespace spraylab::topo {
namespace {

// splitmix64: the boundary sample's draws, seeded per pair so that threads change nothing.
class SampleRng {
 public:
  explicit SampleRng(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  uint64_t below(uint64_t n) { return next() % n; }  // bias < n / 2^64: none that matters here

 private:
  uint64_t state_;
};

// The paths of one source leaf to every destination: a row of sets and their hop entries (Set
// offsets relative to this row's first entry).
struct Row {
  std::vector<KspPaths::Set> sets;
  std::vector<uint16_t> hops;
};

// Simple paths from s to t of exactly L hops, by depth-first search that never steps to a
// switch from which t is farther than the hops left (so it visits only switches on such paths).
class PathSearch {
 public:
  PathSearch(const Routing& r, const std::vector<std::vector<uint32_t>>& neighbours)
      : r_(r), neighbours_(neighbours), on_path_(r.graph().size(), 0) {}

  // Keeps up to `room` of the paths of length L (a uniform sample when there are more) in
  // `kept`, which starts empty, L - 1 entries each. Returns how many there are.
  uint64_t collect(uint32_t s, uint32_t t, uint32_t L, uint64_t room, SampleRng& rng,
                   std::vector<uint16_t>& kept) {
    s_ = s;
    t_ = t;
    len_ = L;
    room_ = room;
    rng_ = &rng;
    kept_ = &kept;
    found_ = 0;
    path_.clear();
    on_path_[s] = 1;
    visit(s, 0);
    on_path_[s] = 0;
    return found_;
  }

 private:
  void visit(uint32_t v, uint32_t depth) {
    if (depth + 1 == len_) {
      // The last hop: only to t.
      for (uint32_t n : neighbours_[v]) {
        if (n == t_) emit();
      }
      return;
    }
    for (uint32_t n : neighbours_[v]) {
      if (on_path_[n] || n == t_) continue;
      if (depth + 1 + r_.distance(n, t_) > len_) continue;
      on_path_[n] = 1;
      path_.push_back(static_cast<uint16_t>(n));
      visit(n, depth + 1);
      path_.pop_back();
      on_path_[n] = 0;
    }
  }

  // Reservoir sampling (Algorithm R): the j-th path found replaces a kept one with probability
  // room / j once the room is full.
  void emit() {
    const uint64_t j = found_++;
    const size_t stride = path_.size();
    if (j < room_) {
      kept_->insert(kept_->end(), path_.begin(), path_.end());
      return;
    }
    const uint64_t slot = rng_->below(j + 1);
    if (slot < room_) {
      std::copy(path_.begin(), path_.end(), kept_->begin() + static_cast<ptrdiff_t>(slot * stride));
    }
  }

  const Routing& r_;
  const std::vector<std::vector<uint32_t>>& neighbours_;
  std::vector<uint8_t> on_path_;
  std::vector<uint16_t> path_;  // intermediate switches so far
  uint32_t s_ = 0, t_ = 0, len_ = 0;
  uint64_t room_ = 0, found_ = 0;
  SampleRng* rng_ = nullptr;
  std::vector<uint16_t>* kept_ = nullptr;
};

// The set of s -> t: lengths from d(s,t) upwards until K paths, kMaxLengths lengths, or no
// simple path can be longer.
void build_set(PathSearch& search, const Routing& r, uint32_t s, uint32_t t, uint32_t k,
               uint64_t seed, KspPaths::Set& set, std::vector<uint16_t>& hops) {
  const uint8_t d = r.distance(s, t);
  if (s == t || d == kUnreachable) return;
  const uint32_t longest_simple = std::min<uint32_t>(r.graph().size() - 1, kUnreachable - 1);
  SampleRng rng(seed ^ (uint64_t{s} << 32 | t) * 0x9e3779b97f4a7c15ull);
  std::vector<std::vector<uint16_t>> by_length;
  std::vector<uint8_t> lengths;
  uint32_t kept = 0;
  for (uint32_t L = d; L <= longest_simple && kept < k && lengths.size() < KspPaths::kMaxLengths;
       ++L) {
    std::vector<uint16_t> paths;
    const uint64_t found = search.collect(s, t, L, k - kept, rng, paths);
    if (found == 0) continue;
    kept += static_cast<uint32_t>(std::min<uint64_t>(found, k - kept));
    by_length.push_back(std::move(paths));
    lengths.push_back(static_cast<uint8_t>(L));
  }
  if (kept == 0) return;
  set.count = static_cast<uint16_t>(kept);
  set.lengths = static_cast<uint8_t>(lengths.size());
  set.stride = static_cast<uint8_t>(lengths.back() - 1);
  set.first = hops.size();
  uint32_t end = 0;
  for (size_t c = 0; c < lengths.size(); ++c) {
    const uint32_t mids = lengths[c] - 1u;
    const size_t n = mids == 0 ? 1 : by_length[c].size() / mids;  // a 1-hop path has no entry
    for (size_t i = 0; i < n; ++i) {
      for (uint32_t j = 0; j < set.stride; ++j) {
        hops.push_back(j < mids ? by_length[c][i * mids + j] : KspPaths::kNoSwitch);
      }
    }
    end += static_cast<uint32_t>(n);
    set.len[c] = lengths[c];
    set.end[c] = static_cast<uint16_t>(end);
  }
}

}  // namespace

KspPaths::KspPaths(const Routing& routing, uint32_t k, uint64_t seed)
    : k_(k), leaves_(static_cast<uint32_t>(routing.leaves().size())) {
  if (k < 1 || k > kMaxK) {
    throw std::invalid_argument("ksp: k must be in [1, " + std::to_string(kMaxK) + "], not " +
                                std::to_string(k));
  }
  const SwitchGraph& g = routing.graph();
  if (g.size() > kNoSwitch) {
    throw std::invalid_argument("ksp: paths are stored as 16-bit switch indices; the fabric has " +
                                std::to_string(g.size()) + " switches");
  }
  leaf_switch_ = routing.leaves();
  // Neighbours once each: parallel links give one path, whichever link the switch then takes.
  std::vector<std::vector<uint32_t>> neighbours(g.size());
  for (uint32_t v = 0; v < g.size(); ++v) {
    for (uint32_t e = g.begin(v); e < g.end(v); ++e) neighbours[v].push_back(g.neighbour(e));
    std::sort(neighbours[v].begin(), neighbours[v].end());
    neighbours[v].erase(std::unique(neighbours[v].begin(), neighbours[v].end()),
                        neighbours[v].end());
  }
  // One row per source leaf, handed out to threads one at a time, then joined in order.
  std::vector<Row> rows(leaves_);
  std::atomic<uint32_t> next{0};
  auto worker = [&] {
    PathSearch search(routing, neighbours);
    for (uint32_t s = next++; s < leaves_; s = next++) {
      Row& row = rows[s];
      row.sets.resize(leaves_);
      for (uint32_t t = 0; t < leaves_; ++t) {
        build_set(search, routing, leaf_switch_[s], leaf_switch_[t], k, seed, row.sets[t],
                  row.hops);
      }
    }
  };
  unsigned threads = std::max(1u, std::min(std::thread::hardware_concurrency(), 16u));
  if (leaves_ < 64) threads = 1;
  std::vector<std::thread> pool;
  for (unsigned i = 1; i < threads; ++i) pool.emplace_back(worker);
  worker();
  for (auto& th : pool) th.join();
  sets_.reserve(static_cast<size_t>(leaves_) * leaves_);
  for (Row& row : rows) {
    const uint64_t base = hops_.size();
    for (Set& set : row.sets) {
      set.first += base;
      sets_.push_back(set);
    }
    hops_.insert(hops_.end(), row.hops.begin(), row.hops.end());
    row = Row{};
  }
}

std::vector<uint32_t> KspPaths::path(uint32_t s, uint32_t t, uint32_t i) const {
  const Set& st = set(s, t);
  std::vector<uint32_t> out{leaf_switch_[s]};
  const uint16_t* h = hops(st, i);
  for (uint32_t j = 0; j + 1 < length(st, i); ++j) out.push_back(h[j]);
  out.push_back(leaf_switch_[t]);
  return out;
}

}  // namespace spraylab::topo
