// The fabric's frames: one mempool for every node of a run. Filling a pool of a few hundred
// thousand 4 KB mbufs takes most of a second (each object is written, each page faulted in), so
// the pool outlives a run and the next run of the process takes it again when it is big enough:
// a runner comparing seven algorithms pays for it once.
#pragma once

#include <rte_mempool.h>

#include <cstdint>

#include "trafficgen/host_plan.h"

namespace spraylab::fabric {

// Frames a run may hold at once, the smaller of two bounds. The workload: each data packet is
// on the fabric at most once at a time, and its ACK only after it was taken off (the receiver
// frees it first), plus a quarter for retransmissions racing their originals. The fabric: every
// switch egress queue full of data frames (its buffer, twice over for the ACKs among them), a few
// bursts per link and engine. Plus the caches (a mempool cache per lcore).
uint32_t mbufs_needed(const gen::RunPlan& plan, uint64_t switch_ports, uint64_t buffer_bytes,
                      uint64_t links, uint32_t engines);

// A pool of at least `count` mbufs with room for `frame_bytes` after the headroom. Reuses the
// process's pool when it is big enough (every mbuf of the previous run must be back); else
// replaces it. At most what the EAL heap can hold: throws std::runtime_error saying how much
// memory the run needs when even `min_count` mbufs do not fit.
//
// `lazy` (virtual time, one thread): only the first few MB of the pool's memory are filled now,
// the rest by fabric_pool_grow() as the run draws on it. Faulting the whole pool in at start was
// a tenth of a 432-host run; filled as needed, the run touches only what it holds at its peak
// (peak RSS 147 -> 125 MB there). Not lazy: the whole pool now (the in-process fabric's lcores
// take mbufs concurrently; growing is not thread-safe).
rte_mempool* fabric_pool(uint32_t count, uint32_t min_count, uint32_t frame_bytes, bool lazy);

// Virtual time, before every event: fills the next piece of a lazy pool once fewer than a margin
// of mbufs are free (far more than one event takes), so a run never meets an empty pool that was
// not full-size. One load when nothing is due.
void fabric_pool_grow(rte_mempool* pool);

}  // namespace spraylab::fabric
