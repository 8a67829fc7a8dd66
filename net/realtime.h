// A real-time scheduling class for the data-path thread of a process that sleeps when idle
// (--idle-sleep): one of many switch and generator processes sharing few CPUs with other work
// (the namespaced fabric, docs/fabric.md "Many processes on two CPUs").
//
// Why: such a thread wakes for every few frames, and each wake-up must come on time, or the
// shaper slot it slept for passes unused (a port earns no credit while idle) and its queue grows.
// Under the kernel's fair scheduler even nice -10 did not do that on this 2-CPU VM with builds
// running: a switch's 20 us sleeps overshot by 5 ms on average and by 32 ms or more in two of
// five during a run over veth, and its uplinks drained at 2 of their 5 Mb/s. SCHED_RR at the
// lowest priority (1) runs a woken thread before every fair-class task. It is safe only for a
// thread that sleeps when idle: a busy-polling one would take its CPU from everything else (the
// kernel's real-time throttling leaves others 5%), so the programs refuse it without
// --idle-sleep. Only the data-path thread changes; EAL's interrupt, telemetry and metrics threads
// keep the process's class.
#pragma once

#include <string>

namespace spraylab::net {

// The highest --rt-priority the programs take (SCHED_RR's range is 1..99; the kernel's own
// threads and interrupt handlers sit at 50 and above, which a testbed must not pass).
inline constexpr int kMaxRtPriority = 49;

// Puts the calling thread in SCHED_RR at `priority` (1..kMaxRtPriority). Returns "" or why not
// (for example "Operation not permitted": the process lacks CAP_SYS_NICE or RLIMIT_RTPRIO).
std::string make_thread_realtime(int priority);
// The calling thread back to the fair class (SCHED_OTHER): before a process's exit, whose work
// (freeing memory, closing ports) must not hold a CPU before everything else.
void make_thread_fair();

// The programs' use: priority 0 does nothing; otherwise the thread changes class, or a warning
// names `program` and the reason on stderr and the thread goes on as it was.
void apply_rt_priority(const char* program, int priority);

}  // namespace spraylab::net
