// EAL for a process that runs fabrics in itself: no devices (--no-pci), ordinary memory
// (--no-huge: the nodes talk over in-memory rings, nothing needs DMA or hugepages), no shared
// runtime files. (--in-memory would be the usual way to leave no files behind, but EAL refuses it
// with --no-huge, which implies legacy memory; --no-shconf does the same job here.)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "conf/experiment.h"

namespace spraylab::fabric {

struct EalOptions {
  // EAL lcores: the main one and lcores - 1 workers, worker i on CPU i mod CPUs, the main lcore
  // on the first CPU. The in-process fabric polls its nodes on the workers while the main lcore
  // mostly sleeps: 2 (one worker) keeps a small fabric right on a busy 2-CPU machine, 3 (two
  // workers) carries more on idle CPUs (docs/fabric.md). Virtual time runs on the calling thread
  // and needs 1.
  uint32_t lcores = 1;
  // EAL's memory in MB; 0: kDefaultMemoryMb (or half the machine's RAM if that is less). With
  // --no-huge it is reserved, not used: pages cost RAM only when touched (but EAL keeps a
  // descriptor per 4 KB page: 8 GB cost 0.1 s and 100 MB at start-up). fabric_memory_mb() says
  // what an experiment needs.
  uint64_t memory_mb = 0;
};

inline constexpr uint64_t kDefaultMemoryMb = 2048;

// EAL's --lcores map for `lcores` lcores on `cpus` (the process's usable CPUs): the main lcore
// alone may run on any of them ("0@(0,1)"), with workers each lcore gets one ("0@0,1@1,2@0").
std::string lcore_map(uint32_t lcores, const std::vector<int>& cpus);

// Calls rte_eal_init once per process with the options above; later calls do nothing (the first
// options stay). Throws std::runtime_error with EAL's reason.
void init_eal(const EalOptions& opts, const std::string& prog);

// Removes this process's (empty) EAL runtime folder, as init_eal's atexit handler does; for a
// process that ends by a signal, which runs no atexit handlers.
void remove_eal_runtime_dir();
bool eal_initialised();

// About what run_fabric needs of EAL's memory for `exp` (queues, rings, the route table; the
// frames come from ordinary memory), for EalOptions::memory_mb. `threads`: virtual time's
// (FabricOptions::threads; 0: virtual_threads' default), a frame pool per partition; 1 for the
// in-process fabric.
uint64_t fabric_memory_mb(const conf::Experiment& exp, uint32_t threads = 1);

}  // namespace spraylab::fabric
