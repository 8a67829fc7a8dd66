// A size guard before a fabric is built (issue 43): what an experiment will take of this machine,
// estimated from its topology, and a refusal, with the estimate, when it would not fit. `run`
// (every mode, -n included) and `fabric up` check it before anything starts; docs/runner.md.
#pragma once

#include <cstdint>
#include <string>

#include "conf/experiment.h"
#include "fabric/run/mode.h"

namespace spraylab::fabric {

struct FabricSize {
  uint64_t hosts = 0;
  uint64_t switches = 0;
  uint64_t ports = 0;      // switch ports
  uint64_t processes = 0;  // namespaced: a spraylab-switch per switch, a spraylab-gen per leaf
  uint64_t memory_bytes = 0;
};

// Fitted to the peak RSS of virtual-time runs of 3-level fat trees with k = 8 to 24 (52 MB to
// 469 MB): 40 MB, 21 KB a switch port (queues, rings, counters) and 23 B a route (every switch
// holds a route to every node). Namespaced: 77 MB a process (k = 8, 112 processes: 8.6 GB).
FabricSize estimate_size(const conf::Experiment& exp, Mode mode);

// "12 hosts, 20 switches (80 ports), 28 processes, about 1.2 GB" (processes: namespaced only).
std::string describe(const FabricSize& size, Mode mode);

// The machine's memory (MemTotal).
uint64_t machine_memory_bytes();

// Throws std::invalid_argument naming `what` (a variant), the estimate and the machine's memory
// when the estimate is above it.
void check_fits(const FabricSize& size, Mode mode, const std::string& what);

}  // namespace spraylab::fabric
