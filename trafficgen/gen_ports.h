// Ethernet device set-up for the generator (net/ports.h, as the switch's, with mbufs that
// hold a whole frame, up to a 9000 B payload, and one rx and one tx queue per port, polled by the
// lcore whose hosts use it), and the memif warm-up.
#pragma once

#include <rte_mempool.h>

#include <cstdint>
#include <vector>

#include "net/ports.h"

namespace spraylab::gen {

// Creates the mempool for frames of up to `max_frame` bytes and starts ports 0..count-1 with one
// rx and one tx queue each (net::start_ports: DPDK probe order, the order of --vdev / -a).
// Throws net::PortError naming the port and what failed. Link state and stop:
// net::link_up, net::stop_ports.
std::vector<net::PortState> start_gen_ports(uint16_t count, uint32_t max_frame, rte_mempool** pool);

// Sends `frames` broadcast frames of `frame_bytes` (UDP to the discard port, which receivers
// count as foreign) on the port while draining what arrives, for up to `seconds`. memif's shared
// buffers live in ordinary pages that fault on first touch, on both sides: without this the first
// megabytes of an experiment pay milliseconds of page faults and its completion time shows them.
// Returns frames sent.
uint32_t warm_up_port(uint16_t port_id, rte_mempool* pool, uint32_t frames, uint32_t frame_bytes,
                      double seconds);

}  // namespace spraylab::gen
