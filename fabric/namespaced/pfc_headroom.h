// buffer.pfc.headroom's default on a namespaced fabric (docs/switch.md, "Wall clock").
//
// The file's default (conf/buffer_defaults.h: the wire's round trip, two data frames and the
// pause frame) assumes a receiver that sees every frame as it lands and a sender that obeys a
// pause as it arrives. The namespaced fabric's processes sleep between polls (--idle-sleep): a
// receiver admits at its turn what its ring gathered while it slept, and sends the pause only
// then; its sender reads the pause at its own next turn and sends until then, and a late sender
// sends up to its burst (the shaper slack, the generator pacer's catch-up) at once. Each of the
// two is at most a sleep at the link's rate plus a burst, and at most a full ring.
#pragma once

#include <cstdint>
#include <string>

#include "conf/experiment.h"

namespace spraylab::fabric::namespaced {

// What a namespaced fabric's link puts behind a pause besides the wire's share.
struct PollingLink {
  conf::LinkSpec links;    // as the fabric runs them (slowed down: docs/fabric.md, "Rates")
  uint32_t payload_bytes;  // the workload's, as the fabric runs it (cut on veth)
  uint64_t sleep_ns;       // every process's longest sleep after empty polls (--idle-sleep)
  uint64_t burst_bytes;    // what a late sender sends at once beyond its rate (shaper slack)
  uint32_t ring_slots;     // frames a link's ring holds one way
};

// The bytes a sender puts on a link while one process of it sleeps: a sleep at the link's rate
// and a late sender's burst, at most a full ring.
uint64_t sleep_in_flight_bytes(const PollingLink& l);

// The headroom that covers them: the file's default (conf::pfc_headroom_bytes) plus the
// receiver's and the sender's sleep_in_flight_bytes.
uint64_t polling_pfc_headroom_bytes(const PollingLink& l);

// How polling_pfc_headroom_bytes came to its figure, for errors and notes.
std::string polling_pfc_headroom_why(const PollingLink& l);

}  // namespace spraylab::fabric::namespaced
