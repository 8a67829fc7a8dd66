// A ThreadStarter (exposer.h) for DPDK processes: runs a function on an EAL control thread, whose
// CPU affinity is EAL's control set (the CPUs no lcore uses, else the main lcore's), so that the
// exposer's server threads do not share a CPU with a busy-polling lcore when there is a free one.
#pragma once

#include <functional>

namespace spraylab::monitoring {

// Needs rte_eal_init done. Throws std::runtime_error if the thread cannot be created.
void run_on_control_thread(const std::function<void()>& fn);

}  // namespace spraylab::monitoring
