#include "fabric/emu/mbuf_pool.h"

#include <fmt/format.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mbuf_pool_ops.h>
#include <rte_stack.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "net/wire.h"
#include "trafficgen/packet.h"

namespace spraylab::fabric {
namespace {

constexpr uint32_t kCache = 512;

// A lazy pool grows by this much memory at a time (one 2 MB huge page: what a run overshoots its
// need by is its reserve and half of this; 8 MB pieces were 3 MB more at 1024 hosts).
constexpr size_t kHuge = 2u << 20;
constexpr size_t kGrowBytes = kHuge;
// And at the start of a window, this much more (shared among the partitions' pools) plus the
// most the store lost in one window so far: what the window may draw beyond that before it has
// to grow the pool inside the window.
constexpr unsigned kWindowSlack = 4096;

uint32_t g_generation = 0;  // for the pools' names

}  // namespace

struct PoolSlot {
  rte_mempool* pool = nullptr;
  uint32_t count = 0;
  uint32_t data_room = 0;
  bool compact = false;  // frame_data_offset(true): the buffer starts inside the mbuf
  char* mem = nullptr;  // the pool's mapping
  size_t len = 0;
  size_t filled = 0;           // bytes of it populated (len when the pool is full)
  rte_stack* store = nullptr;  // lf_stack's store, whose count is one load (lazy pools only)
};

namespace {

// One per slot (partition); a slot's pool is grown by its partition's thread only. Never shrinks
// (a PoolSlot's address is a PoolGrower's while a run lasts).
std::vector<std::unique_ptr<PoolSlot>> g_pools;

}  // namespace

uint32_t mbufs_needed(const gen::RunPlan& plan, uint64_t switch_ports, uint64_t buffer_bytes,
                      uint64_t links, uint32_t engines, std::span<const uint32_t> rank_partition,
                      uint32_t partitions, uint32_t partition) {
  const auto mine = [&](const gen::Message& m) {
    return rank_partition.empty() || rank_partition[m.src] == partition ||
           rank_partition[m.dst] == partition;
  };
  uint64_t packets = 0;
  for (const gen::Message& m : plan.schedule.messages) {
    if (mine(m)) packets += gen::packet_count(m.bytes, plan.payload_bytes);
  }
  const uint64_t workload = packets + packets / 4;
  const uint64_t frame = gen::kFrameHeaderBytes + plan.payload_bytes;
  const uint64_t fabric =
      switch_ports * 2 * (buffer_bytes / frame + 32) + links * 2 * 64 + uint64_t{engines} * 256;
  // The partitions' threads (but the caller's) are lcores of their own.
  const uint64_t caches = uint64_t{kCache} * 2 * (rte_lcore_count() + partitions - 1);
  const uint64_t n = std::min(workload, fabric) + caches + 4096;
  return static_cast<uint32_t>(std::min<uint64_t>(n, UINT32_MAX / 2));
}

namespace {

void unmap_chunk(rte_mempool_memhdr* hdr, void* opaque) {
  munmap(hdr->addr, reinterpret_cast<uintptr_t>(opaque));
}

static_assert(sizeof(rte_mbuf) >= RTE_PKTMBUF_HEADROOM,
              "a compact mbuf's headroom is the mbuf's own last bytes");

struct InitRange {
  char* from;
  char* to;
  bool compact;
};

void init_if_in(rte_mempool* mp, void* opaque, void* obj, unsigned idx) {
  const auto* range = static_cast<const InitRange*>(opaque);
  auto* p = static_cast<char*>(obj);
  if (p < range->from || p >= range->to) return;
  rte_pktmbuf_init(mp, nullptr, obj, idx);
  if (range->compact) {
    // The buffer (headroom, then data) starts so that data_off = RTE_PKTMBUF_HEADROOM, which
    // every allocation sets, is the first byte after the mbuf (frame_data_offset). Its IO
    // address means nothing: the pool has none (RTE_BAD_IOVA), and no device sees a frame.
    auto* m = static_cast<rte_mbuf*>(obj);
    m->buf_addr = p + sizeof(rte_mbuf) - RTE_PKTMBUF_HEADROOM;
  }
}

// Populates [g.filled, g.filled + bytes) of the slot's mapping and initialises the mbufs in it
// (only those: the others may be lent out). False when DPDK refuses.
bool fill(PoolSlot& g, size_t bytes) {
  char* from = g.mem + g.filled;
  bytes = std::min(bytes, g.len - g.filled);
  // The first piece's callback unmaps the whole mapping when the pool is freed.
  rte_mempool_memchunk_free_cb_t* cb = g.filled == 0 ? unmap_chunk : nullptr;
  if (rte_mempool_populate_iova(g.pool, from, RTE_BAD_IOVA, bytes, cb,
                                reinterpret_cast<void*>(g.len)) < 0) {
    return false;
  }
  // Every mbuf in: the rest of the mapping (its rounding to 2 MB) is never needed, and
  // populating it would fail (-ENOSPC).
  g.filled = g.pool->populated_size == g.pool->size ? g.len : g.filled + bytes;
  InitRange range{from, from + bytes, g.compact};
  rte_mempool_obj_iter(g.pool, init_if_in, &range);
  return true;
}

// A pool on memory of its own: anonymous pages the kernel backs with 2 MB transparent huge pages
// (MADV_HUGEPAGE). EAL's memory without hugepages is 4 KB pages (a memfd that cannot have huge
// ones), and a frame's every hop touching another 4 KB page made TLB misses the virtual clock's
// biggest cost. The frames never meet a device, so they need no IO address. Fills it all, or
// (lazy) its first piece. `data_room` is the mbufs' buf_len (headroom and frame); a compact
// pool's objects hold only the frame after the mbuf (frame_data_offset).
rte_mempool* make_pool(PoolSlot& g, const std::string& name, uint32_t n, uint32_t data_room,
                       bool lazy, bool compact) {
  const uint32_t elt =
      sizeof(rte_mbuf) + data_room - (compact ? uint32_t{RTE_PKTMBUF_HEADROOM} : 0u);
  rte_mempool* mp =
      rte_mempool_create_empty(name.c_str(), n, elt, kCache, sizeof(rte_pktmbuf_pool_private),
                               static_cast<int>(rte_socket_id()), RTE_MEMPOOL_F_NO_IOVA_CONTIG);
  if (mp == nullptr) return nullptr;
  auto fail = [&] {
    rte_mempool_free(mp);
    return nullptr;
  };
  // LIFO: the mbuf freed last is taken next, so the frames in use stay few and cache-warm (a
  // FIFO ring cycles through every mbuf of the pool). Lock-free, for the in-process lcores.
  if (rte_mempool_set_ops_byname(mp, "lf_stack", nullptr) != 0 &&
      rte_mempool_set_ops_byname(mp, rte_mbuf_best_mempool_ops(), nullptr) != 0) {
    return fail();
  }
  // What rte_pktmbuf_pool_init writes, without its (debug-build) check that the object holds
  // data_room after the mbuf, which a compact pool's does not.
  rte_pktmbuf_pool_private priv{};
  priv.mbuf_data_room_size = static_cast<uint16_t>(data_room);
  priv.mbuf_priv_size = 0;
  std::memcpy(rte_mempool_get_priv(mp), &priv, sizeof(priv));
  rte_mempool_objsz sz{};
  rte_mempool_calc_obj_size(elt, mp->flags, &sz);
  const size_t len = (static_cast<size_t>(sz.total_size) * n + kHuge - 1) / kHuge * kHuge;
  void* mem = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) return fail();
  madvise(mem, len, MADV_HUGEPAGE);  // a hint: without THP the pool still works
  g.pool = mp;
  g.mem = static_cast<char*>(mem);
  g.len = len;
  g.filled = 0;
  g.compact = compact;
  // Growing needs the store's count at every event: lf_stack's is a load; another store's
  // (rte_mempool_avail_count walks every possible lcore's cache) is not, so that pool is filled.
  const bool stack = std::strcmp(rte_mempool_get_ops(mp->ops_index)->name, "lf_stack") == 0;
  if (!fill(g, lazy && stack ? kGrowBytes : len)) {
    munmap(mem, len);
    g = PoolSlot{};
    return fail();
  }
  // The store exists from the first populate on.
  g.store = stack ? static_cast<rte_stack*>(mp->pool_data) : nullptr;
  return mp;
}

}  // namespace

rte_mempool* fabric_pool(uint32_t slot, uint32_t count, uint32_t min_count, uint32_t frame_bytes,
                         bool lazy) {
  while (g_pools.size() <= slot) g_pools.push_back(std::make_unique<PoolSlot>());
  PoolSlot& g = *g_pools[slot];
  const uint32_t data_room = RTE_PKTMBUF_HEADROOM + frame_bytes;
  const bool compact = lazy;
  if (g.pool != nullptr && g.count >= count && g.data_room >= data_room && g.compact == compact) {
    if (!lazy && g.filled < g.len && !fill(g, g.len - g.filled)) {
      throw std::runtime_error(fmt::format("cannot fill the fabric's mempool of {} mbufs: {}",
                                           g.count, rte_strerror(rte_errno)));
    }
    return g.pool;
  }
  if (g.pool != nullptr) {
    // Of the mbufs populated (a lazy pool's size counts memory not yet filled).
    const unsigned lent = g.pool->populated_size - rte_mempool_avail_count(g.pool);
    if (lent != 0) {
      throw std::runtime_error(
          fmt::format("the fabric's mempool still lends {} mbufs from the last run", lent));
    }
    rte_mempool_free(g.pool);
    g.pool = nullptr;
  }
  // Ordinary memory, up to half of what the machine has free.
  const uint64_t per_mbuf =
      sizeof(rte_mbuf) + data_room + 64 - (compact ? uint32_t{RTE_PKTMBUF_HEADROOM} : 0u);
  const long avail = sysconf(_SC_AVPHYS_PAGES);
  const uint64_t free_bytes = avail > 0 ? static_cast<uint64_t>(avail) * sysconf(_SC_PAGE_SIZE) : 0;
  const uint64_t fits = free_bytes / 2 / per_mbuf;
  const auto n = static_cast<uint32_t>(std::min<uint64_t>(count, fits));
  if (n < min_count) {
    throw std::runtime_error(fmt::format(
        "the fabric needs about {} MB for {} mbufs of {} B; the machine has {} MB free",
        static_cast<uint64_t>(min_count) * per_mbuf >> 20, min_count, data_room, free_bytes >> 20));
  }
  const std::string name = fmt::format("fabric_mb{}", g_generation++);
  rte_mempool* pool = make_pool(g, name, n, data_room, lazy, compact);
  if (pool == nullptr) {
    throw std::runtime_error(fmt::format("cannot create the fabric's mempool of {} mbufs: {}", n,
                                         rte_strerror(rte_errno)));
  }
  g.count = n;
  g.data_room = data_room;
  return pool;
}

uint64_t fabric_pool_frames(uint32_t slots) {
  uint64_t n = 0;
  for (uint32_t s = 0; s < slots && s < g_pools.size(); ++s) {
    if (g_pools[s]->pool != nullptr) n += g_pools[s]->pool->populated_size;
  }
  return n;
}

namespace {

unsigned free_in_store(const PoolSlot& g) { return rte_stack_count(g.store); }

// Fills the next piece; throws when DPDK refuses.
void grow(PoolSlot& g) {
  if (!fill(g, kGrowBytes)) {
    throw std::runtime_error(
        fmt::format("cannot grow the fabric's mempool: {}", rte_strerror(rte_errno)));
  }
}

}  // namespace

PoolGrower::PoolGrower(rte_mempool* pool, uint32_t partitions, uint32_t hosts_per_node)
    // A switch event takes no mbuf; a host event at most a burst per host of its node (its tx
    // staging; twice, to be safe), the engine's own burst and a refill of its lcore's cache.
    : slot_(nullptr),
      margin_(hosts_per_node * 2u * net::kBurst + net::kBurst + 2 * kCache),
      slack_(margin_ + kWindowSlack / std::max<uint32_t>(partitions, 1)) {
  for (const std::unique_ptr<PoolSlot>& g : g_pools) {
    if (g->pool == pool && g->store != nullptr) slot_ = g.get();
  }
}

void PoolGrower::window_start() {
  if (slot_ == nullptr) return;
  const unsigned reserve = slack_ + most_drawn_;
  while (slot_->filled < slot_->len && free_in_store(*slot_) < reserve) grow(*slot_);
  start_free_ = free_in_store(*slot_);
  start_populated_ = slot_->pool->populated_size;
}

void PoolGrower::window_end() {
  if (slot_ == nullptr) return;
  // What the window took from the store, less what came back (frees, from every partition), and
  // the pieces filled in it not counted as given.
  const unsigned had = start_free_ + (slot_->pool->populated_size - start_populated_);
  const unsigned now = free_in_store(*slot_);
  if (now < had) most_drawn_ = std::max(most_drawn_, had - now);
}

void PoolGrower::grow_if_low() {
  if (slot_->filled == slot_->len) return;
  // The shared store only, not the per-lcore caches: at most what is free.
  if (free_in_store(*slot_) >= margin_) return;
  grow(*slot_);
  ++in_window_;
}

}  // namespace spraylab::fabric
