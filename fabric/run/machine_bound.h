// When a run's numbers measure this machine more than the fabric (issue 43): the rule, one place.
// The table and summary.json say so in one line (docs/runner.md, "Machine-bound results"); the
// numbers stay as measured.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fabric/run/mode.h"

namespace spraylab::fabric {

// What a run knows of how it shared the machine.
struct MachineShare {
  Mode mode = Mode::kVirtual;
  uint32_t cpus = 0;  // online CPUs
  // In-process: EAL lcores; namespaced: spraylab-switch and spraylab-gen processes.
  uint32_t threads = 0;
  // In-process: how long after its arrival a node took a frame off its link, on average over
  // every frame of every link, and how long a full frame (the workload's payload) takes on the
  // experiment's links as they ran (after --rate's slow-down).
  double mean_late_ns = 0;
  double frame_ns = 0;
};

// "" when the fabric, not the machine, set the numbers; otherwise why not, in one line:
//  - virtual time: never (its clock waits for the CPU);
//  - namespaced: more processes than CPUs (each waits for the scheduler at every frame);
//  - in-process: more EAL lcores than CPUs, or frames taken off their links later, on average,
//    than a full frame takes on the link (mean_late_ns > frame_ns): the link could have sent
//    another frame meanwhile, so the CPU, not the link, set the pace (the fabric ran behind real
//    time).
std::string machine_bound_reason(const MachineShare& share);

// This machine's online CPUs (at least 1).
uint32_t online_cpus();

// The CPUs this process may run on (CPU 0 if it cannot say): its affinity, as taskset, a
// cgroup's cpuset or a container's --cpuset-cpus set it, not the machine's count.
std::vector<int> usable_cpu_list();
uint32_t usable_cpus();  // their number

// Virtual time's threads: `given`, or when 0 (no --threads) the CPUs this process may run on.
// The fabric caps them by its partitions (fabric/emu/partition.h); results do not depend on them.
uint32_t virtual_threads(uint32_t given);

}  // namespace spraylab::fabric
