#include "fabric/mbuf_pool.h"

#include <fmt/format.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mbuf_pool_ops.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "trafficgen/packet.h"

namespace spraylab::fabric {
namespace {

constexpr uint32_t kCache = 512;

struct PoolSlot {
  rte_mempool* pool = nullptr;
  uint32_t count = 0;
  uint32_t data_room = 0;
  uint32_t generation = 0;
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

// A pool on memory of its own: anonymous pages the kernel backs with 2 MB transparent huge pages
// (MADV_HUGEPAGE). EAL's memory without hugepages is 4 KB pages (a memfd that cannot have huge
// ones), and a frame's every hop touching another 4 KB page made TLB misses the virtual clock's
// biggest cost. The frames never meet a device, so they need no IO address.
rte_mempool* make_pool(const std::string& name, uint32_t n, uint32_t data_room) {
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
  constexpr size_t kHuge = 2u << 20;
  const size_t len = (static_cast<size_t>(sz.total_size) * n + kHuge - 1) / kHuge * kHuge;
  void* mem = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) return fail();
  madvise(mem, len, MADV_HUGEPAGE);  // a hint: without THP the pool still works
  const int added = rte_mempool_populate_iova(mp, static_cast<char*>(mem), RTE_BAD_IOVA, len,
                                              unmap_chunk, reinterpret_cast<void*>(len));
  if (added < static_cast<int>(n)) {
    if (added <= 0) munmap(mem, len);
    return fail();
  }
  rte_mempool_obj_iter(mp, rte_pktmbuf_init, nullptr);
  return mp;
}

}  // namespace

rte_mempool* fabric_pool(uint32_t count, uint32_t min_count, uint32_t frame_bytes) {
  const uint32_t data_room = RTE_PKTMBUF_HEADROOM + frame_bytes;
  if (g_pool.pool != nullptr && g_pool.count >= count && g_pool.data_room >= data_room) {
    return g_pool.pool;
  }
  if (g_pool.pool != nullptr) {
    if (rte_mempool_in_use_count(g_pool.pool) != 0) {
      throw std::runtime_error(
          fmt::format("the fabric's mempool still lends {} mbufs from the last run",
                      rte_mempool_in_use_count(g_pool.pool)));
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
  rte_mempool* pool = make_pool(name, n, data_room);
  if (pool == nullptr) {
    throw std::runtime_error(fmt::format("cannot create the fabric's mempool of {} mbufs: {}", n,
                                         rte_strerror(rte_errno)));
  }
  g_pool = {pool, n, data_room, g_pool.generation};
  return pool;
}

}  // namespace spraylab::fabric
