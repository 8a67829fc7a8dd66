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
#include <stdexcept>
#include <string>

#include "trafficgen/packet.h"

namespace spraylab::fabric {
namespace {

constexpr uint32_t kCache = 512;

// A lazy pool grows by this much memory at a time (one 2 MB huge page: what a run overshoots its
// need by is kLowWater mbufs and half of this; 8 MB pieces were 3 MB more at 1024 hosts), once
// fewer than kLowWater mbufs are left in its shared store. The clock looks before every event;
// a switch event takes no mbuf, a host event a burst or two per host of its node (a leaf's
// hosts at most: 32 at radix 64), far fewer than kLowWater.
constexpr size_t kHuge = 2u << 20;
constexpr size_t kGrowBytes = kHuge;
constexpr unsigned kLowWater = 8192;

struct PoolSlot {
  rte_mempool* pool = nullptr;
  uint32_t count = 0;
  uint32_t data_room = 0;
  uint32_t generation = 0;
  char* mem = nullptr;  // the pool's mapping
  size_t len = 0;
  size_t filled = 0;           // bytes of it populated (len when the pool is full)
  rte_stack* store = nullptr;  // lf_stack's store, whose count is one load (lazy pools only)
};
PoolSlot g_pool;

}  // namespace

uint32_t mbufs_needed(const gen::RunPlan& plan, uint64_t switch_ports, uint64_t buffer_bytes,
                      uint64_t links, uint32_t engines) {
  uint64_t packets = 0;
  for (const gen::Message& m : plan.schedule.messages) {
    packets += gen::packet_count(m.bytes, plan.payload_bytes);
  }
  const uint64_t workload = packets + packets / 4;
  const uint64_t frame = gen::kFrameHeaderBytes + plan.payload_bytes;
  const uint64_t fabric =
      switch_ports * 2 * (buffer_bytes / frame + 32) + links * 2 * 64 + uint64_t{engines} * 256;
  const uint64_t n = std::min(workload, fabric) + uint64_t{kCache} * 2 * rte_lcore_count() + 4096;
  return static_cast<uint32_t>(std::min<uint64_t>(n, UINT32_MAX / 2));
}

namespace {

void unmap_chunk(rte_mempool_memhdr* hdr, void* opaque) {
  munmap(hdr->addr, reinterpret_cast<uintptr_t>(opaque));
}

void init_if_in(rte_mempool* mp, void* opaque, void* obj, unsigned idx) {
  const auto* range = static_cast<const std::pair<char*, char*>*>(opaque);
  auto* p = static_cast<char*>(obj);
  if (p >= range->first && p < range->second) rte_pktmbuf_init(mp, nullptr, obj, idx);
}

// Populates [g_pool.filled, g_pool.filled + bytes) of the mapping and initialises the mbufs in
// it (only those: the others may be lent out). False when DPDK refuses.
bool fill(size_t bytes) {
  char* from = g_pool.mem + g_pool.filled;
  bytes = std::min(bytes, g_pool.len - g_pool.filled);
  // The first piece's callback unmaps the whole mapping when the pool is freed.
  rte_mempool_memchunk_free_cb_t* cb = g_pool.filled == 0 ? unmap_chunk : nullptr;
  if (rte_mempool_populate_iova(g_pool.pool, from, RTE_BAD_IOVA, bytes, cb,
                                reinterpret_cast<void*>(g_pool.len)) < 0) {
    return false;
  }
  // Every mbuf in: the rest of the mapping (its rounding to 2 MB) is never needed, and
  // populating it would fail (-ENOSPC).
  g_pool.filled =
      g_pool.pool->populated_size == g_pool.pool->size ? g_pool.len : g_pool.filled + bytes;
  std::pair<char*, char*> range{from, from + bytes};
  rte_mempool_obj_iter(g_pool.pool, init_if_in, &range);
  return true;
}

// A pool on memory of its own: anonymous pages the kernel backs with 2 MB transparent huge pages
// (MADV_HUGEPAGE). EAL's memory without hugepages is 4 KB pages (a memfd that cannot have huge
// ones), and a frame's every hop touching another 4 KB page made TLB misses the virtual clock's
// biggest cost. The frames never meet a device, so they need no IO address. Fills it all, or
// (lazy) its first piece.
rte_mempool* make_pool(const std::string& name, uint32_t n, uint32_t data_room, bool lazy) {
  const uint32_t elt = sizeof(rte_mbuf) + data_room;
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
  rte_pktmbuf_pool_private priv{};
  priv.mbuf_data_room_size = static_cast<uint16_t>(data_room);
  priv.mbuf_priv_size = 0;
  rte_pktmbuf_pool_init(mp, &priv);
  rte_mempool_objsz sz{};
  rte_mempool_calc_obj_size(elt, mp->flags, &sz);
  const size_t len = (static_cast<size_t>(sz.total_size) * n + kHuge - 1) / kHuge * kHuge;
  void* mem = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) return fail();
  madvise(mem, len, MADV_HUGEPAGE);  // a hint: without THP the pool still works
  g_pool.pool = mp;
  g_pool.mem = static_cast<char*>(mem);
  g_pool.len = len;
  g_pool.filled = 0;
  // Growing needs the store's count at every event: lf_stack's is a load; another store's
  // (rte_mempool_avail_count walks every possible lcore's cache) is not, so that pool is filled.
  const bool stack = std::strcmp(rte_mempool_get_ops(mp->ops_index)->name, "lf_stack") == 0;
  if (!fill(lazy && stack ? kGrowBytes : len)) {
    munmap(mem, len);
    g_pool = {nullptr, 0, 0, g_pool.generation};
    return fail();
  }
  // The store exists from the first populate on.
  g_pool.store = stack ? static_cast<rte_stack*>(mp->pool_data) : nullptr;
  return mp;
}

}  // namespace

rte_mempool* fabric_pool(uint32_t count, uint32_t min_count, uint32_t frame_bytes, bool lazy) {
  const uint32_t data_room = RTE_PKTMBUF_HEADROOM + frame_bytes;
  if (g_pool.pool != nullptr && g_pool.count >= count && g_pool.data_room >= data_room) {
    if (!lazy && g_pool.filled < g_pool.len && !fill(g_pool.len - g_pool.filled)) {
      throw std::runtime_error(fmt::format("cannot fill the fabric's mempool of {} mbufs: {}",
                                           g_pool.count, rte_strerror(rte_errno)));
    }
    return g_pool.pool;
  }
  if (g_pool.pool != nullptr) {
    // Of the mbufs populated (a lazy pool's size counts memory not yet filled).
    const unsigned lent = g_pool.pool->populated_size - rte_mempool_avail_count(g_pool.pool);
    if (lent != 0) {
      throw std::runtime_error(
          fmt::format("the fabric's mempool still lends {} mbufs from the last run", lent));
    }
    rte_mempool_free(g_pool.pool);
    g_pool.pool = nullptr;
  }
  // Ordinary memory, up to half of what the machine has free.
  const uint64_t per_mbuf = sizeof(rte_mbuf) + data_room + 64;
  const long avail = sysconf(_SC_AVPHYS_PAGES);
  const uint64_t free_bytes = avail > 0 ? static_cast<uint64_t>(avail) * sysconf(_SC_PAGE_SIZE) : 0;
  const uint64_t fits = free_bytes / 2 / per_mbuf;
  const auto n = static_cast<uint32_t>(std::min<uint64_t>(count, fits));
  if (n < min_count) {
    throw std::runtime_error(fmt::format(
        "the fabric needs about {} MB for {} mbufs of {} B; the machine has {} MB free",
        static_cast<uint64_t>(min_count) * per_mbuf >> 20, min_count, data_room, free_bytes >> 20));
  }
  const std::string name = fmt::format("fabric_mb{}", g_pool.generation++);
  rte_mempool* pool = make_pool(name, n, data_room, lazy);
  if (pool == nullptr) {
    throw std::runtime_error(fmt::format("cannot create the fabric's mempool of {} mbufs: {}", n,
                                         rte_strerror(rte_errno)));
  }
  g_pool.count = n;
  g_pool.data_room = data_room;
  return pool;
}

void fabric_pool_grow(rte_mempool* pool) {
  if (pool != g_pool.pool || g_pool.filled == g_pool.len) return;
  // The shared store only, not the per-lcore cache: at most what is free.
  if (rte_stack_count(g_pool.store) >= kLowWater) return;
  if (!fill(kGrowBytes)) {
    throw std::runtime_error(
        fmt::format("cannot grow the fabric's mempool: {}", rte_strerror(rte_errno)));
  }
}

}  // namespace spraylab::fabric
