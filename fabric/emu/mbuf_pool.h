// The fabric's frames: one mempool for every node of a run. Filling a pool of a few hundred
// thousand 4 KB mbufs takes most of a second (each object is written, each page faulted in), so
// the pool outlives a run and the next run of the process takes it again when it is big enough:
// a runner comparing seven algorithms pays for it once.
#pragma once

#include <rte_mbuf.h>
#include <rte_mempool.h>

#include <cstdint>
#include <span>

#include "trafficgen/host_plan.h"

namespace spraylab::fabric {

// Frames a run may hold at once, the smaller of two bounds. The workload: each data packet is
// on the fabric at most once at a time, and its ACK only after it was taken off (the receiver
// frees it first), plus a quarter for retransmissions racing their originals. The fabric: every
// switch egress queue full of data frames (its buffer, twice over for the ACKs among them), a few
// bursts per link and engine. Plus the caches (a mempool cache per lcore and partition thread).
//
// Partitioned (`rank_partition` one of `partitions` per rank, non-empty): partition
// `partition`'s pool,
// whose frames are its hosts' data frames and the ACKs its hosts send: the workload bound counts
// only the messages it sends or receives (a message within it once: its data and ACK are never
// both in flight), the fabric bound all of the fabric (its frames may be anywhere).
uint32_t mbufs_needed(const gen::RunPlan& plan, uint64_t switch_ports, uint64_t buffer_bytes,
                      uint64_t links, uint32_t engines,
                      std::span<const uint32_t> rank_partition = {}, uint32_t partitions = 1,
                      uint32_t partition = 0);

// Slot `slot`'s pool of at least `count` mbufs with room for `frame_bytes` after the headroom.
// Virtual time has a pool per partition (slot = partition; frames freed by another partition's
// thread go back to the pool they came from), the in-process fabric one (slot 0). Reuses the
// process's pool of that slot when it is big enough (every mbuf of the previous run must be
// back); else replaces it. At most what the EAL heap can hold: throws std::runtime_error saying
// how much memory the run needs when even `min_count` mbufs do not fit.
//
// `lazy` (virtual time): only the first few MB of the pool's memory are filled now, the rest by
// its partition's PoolGrower as the run draws on it. Faulting the whole pool in at start was a
// tenth of a 432-host run; filled as needed, the run touches only what it holds at its peak
// (peak RSS 147 -> 125 MB there). Not lazy: the whole pool now (the in-process fabric's lcores
// take mbufs concurrently, and only one thread may grow a pool). A lazy pool's mbufs are also
// compact (frame_data_offset()).
rte_mempool* fabric_pool(uint32_t slot, uint32_t count, uint32_t min_count, uint32_t frame_bytes,
                         bool lazy);

// Where a frame's first byte is, from its mbuf's address, in a pool made `lazy` (virtual time)
// or not: what the links prefetch before the mbuf itself has arrived in cache.
//
// Not lazy: after the mbuf and DPDK's default headroom (RTE_PKTMBUF_HEADROOM, 128 B), as in
// any pktmbuf pool. Lazy (virtual time): right after the mbuf. A virtual frame's mbuf holds its
// 82 B of headers, and the headroom in front of them was 128 B of the 448 a frame took (pool
// header, mbuf, headroom, headers: 29 % of the pool, ~170 MB at 8192 hosts) that nothing reads
// or writes: nothing on the fabric's path prepends. DPDK gives every allocated mbuf data_off =
// min(RTE_PKTMBUF_HEADROOM, buf_len) (rte_pktmbuf_reset), so the headroom cannot shrink through
// its API; instead each mbuf's buffer starts RTE_PKTMBUF_HEADROOM bytes before the end of the
// mbuf (buf_addr), and the headroom DPDK counts is the mbuf's own last bytes. What rte_mbuf's API
// says stays true (mtod, data_len, tailroom, append, free); only a prepend would write over the
// mbuf, and none happens on this path (tests/fabric/virtual_test checks the layout).
constexpr uint32_t frame_data_offset(bool lazy) {
  return lazy ? sizeof(rte_mbuf) : sizeof(rte_mbuf) + RTE_PKTMBUF_HEADROOM;
}

// The mbufs populated in slots [0, slots): what the pools have grown to (run.json's
// frame_pool.frames).
uint64_t fabric_pool_frames(uint32_t slots);

struct PoolSlot;

// How a partition's thread grows its own lazy pool (and only it: growing is not thread-safe,
// while the frees of other threads into it are, the store being lock-free). At the start of each
// window (before its first event, after the barrier) it tops the pool's free store up to a
// reserve: a margin (more than one event takes: 2 bursts for each of `hosts_per_node`, the most
// hosts a host node has, and a refill of a mempool cache), a slack shared among the
// `partitions` (4096 / partitions) and the most the store lost in one window so far, so the
// events of a window need not grow it. Before every event it still looks (one load) and fills
// the next piece once fewer than the margin are free, so a window that draws more than any
// before it never meets an empty pool that was not full-size: results never depend on where a
// pool grows. Those growths inside a window are counted (in_window()). A pool that is not lazy,
// or full, never grows.
class PoolGrower {
 public:
  PoolGrower(rte_mempool* pool, uint32_t partitions, uint32_t hosts_per_node);

  void window_start();
  void before_event() {
    if (slot_ != nullptr) grow_if_low();
  }
  void window_end();

  // Pieces filled before an event, inside a window.
  uint32_t in_window() const { return in_window_; }

 private:
  void grow_if_low();

  PoolSlot* slot_;   // nullptr: nothing to grow
  unsigned margin_;  // grown inside a window below this
  unsigned slack_;   // the reserve at a window's start, without the most drawn
  unsigned start_free_ = 0;
  unsigned start_populated_ = 0;
  unsigned most_drawn_ = 0;  // the most the store lost in one window
  uint32_t in_window_ = 0;
};

}  // namespace spraylab::fabric
