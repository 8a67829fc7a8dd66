// Sending the control frames a lossless switch owes (PFC pauses and resumes, credit frames): one
// 60-byte mbuf per frame from a pool of their own, written in place and handed to the port's
// transmit call ahead of the port's data. Shared by spraylab-switch's workers (DPDK tx queues,
// worker_turn) and the fabric's switch nodes (in-memory links).
//
// The pool is a reserve apart from the data's: under an incast the data's pool can be held by the
// egress queues exactly when a pause is owed, and a pause that waits for a data mbuf to come back
// would wait for the queue it is meant to stop. Taking an mbuf from a mempool is no allocation
// (a pointer off a ring); a pool that is empty, or a transmit call that refuses the frame, leaves
// the frame owed for the next turn and counts a send failure.
#pragma once

#include <rte_mbuf.h>
#include <rte_mempool.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

#include "net/credit_frame.h"
#include "net/pfc_frame.h"
#include "switch/dataplane/pfc.h"
#include "switch/dataplane/switch_tables.h"

namespace spraylab::dataplane {

static_assert(net::kPfcFrameBytes == net::kCreditFrameBytes);
inline constexpr uint32_t kControlFrameBytes = net::kPfcFrameBytes;

// A control frame from `pool` written by build(data, kControlFrameBytes); nullptr when the pool is
// empty (or null).
template <typename Build>
rte_mbuf* make_control_frame(rte_mempool* pool, Build&& build) {
  rte_mbuf* m = pool != nullptr ? rte_pktmbuf_alloc(pool) : nullptr;
  if (m == nullptr) return nullptr;
  char* room = rte_pktmbuf_append(m, kControlFrameBytes);
  if (room == nullptr) {  // a pool of mbufs too small for one: the check costs nothing
    rte_pktmbuf_free(m);
    return nullptr;
  }
  build(reinterpret_cast<uint8_t*>(room));
  return m;
}

// The control frame onto port `port` through tx(port, mbufs, n) → sent; false (the mbuf back to its
// pool) if there was none or the port refused it.
template <typename Build, typename Tx>
bool send_control_frame(rte_mempool* pool, uint16_t port, Build&& build, Tx&& tx) {
  rte_mbuf* m = make_control_frame(pool, build);
  if (m == nullptr) return false;
  if (tx(port, &m, 1) == 1) return true;
  rte_pktmbuf_free(m);
  return false;
}

// Every PFC frame `pfc` owes at `now`, each from its port's address (`ports`), through `tx`.
// A frame not sent stays owed (Pfc::take_due) and counts a send failure.
template <typename Tx>
void send_pfc_due(Pfc& pfc, const std::vector<PortInfo>& ports, rte_mempool* pool,
                  uint64_t now, Tx&& tx) {
  if (!pfc.owes()) return;
  pfc.take_due(now, [&](uint16_t port, const net::PfcFrame& f) {
    return send_control_frame(
        pool, port, [&](uint8_t* out) { net::build_pfc(out, ports[port].mac, f); }, tx);
  });
}

// The mbufs a switch's PFC frames need at most at once: one owed per port, and what the devices
// still hold of the frames sent (a NIC frees them when their descriptors complete). Never fewer
// than 63. A power of two less one: a mempool's ring holds that many.
inline uint32_t control_pool_mbufs(uint16_t ports) {
  return std::max<uint32_t>(64, std::bit_ceil(8u * ports)) - 1;
}

}  // namespace spraylab::dataplane
