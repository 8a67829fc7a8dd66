// Ethernet device set-up for the generator: one mempool whose mbufs hold a whole frame (up to a
// 9000 B payload), and one rx and one tx queue per port, polled by the lcore whose hosts use it.
#pragma once

#include <rte_mempool.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace spraylab::gen {

class GenPortError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct GenPort {
  uint16_t port_id;
  std::string name;
  std::string driver;
};

// Creates the mempool for frames of up to `max_frame` bytes and starts ports 0..count-1 (DPDK
// probe order: the order of --vdev / -a). Throws GenPortError naming the port and what failed.
std::vector<GenPort> start_gen_ports(uint16_t count, uint32_t max_frame, rte_mempool** pool);
bool gen_link_up(uint16_t port_id);

// Sends `frames` broadcast frames of `frame_bytes` (UDP to the discard port, which receivers
// count as foreign) on the port while draining what arrives, for up to `seconds`. memif's shared
// buffers live in ordinary pages that fault on first touch, on both sides: without this the first
// megabytes of an experiment pay milliseconds of page faults and its completion time shows them.
// Returns frames sent.
uint32_t warm_up_port(uint16_t port_id, rte_mempool* pool, uint32_t frames, uint32_t frame_bytes,
                      double seconds);
void stop_gen_ports(const std::vector<GenPort>& ports);

}  // namespace spraylab::gen
