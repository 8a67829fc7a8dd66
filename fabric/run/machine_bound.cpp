#include "fabric/run/machine_bound.h"

#include <fmt/format.h>
#include <sched.h>
#include <unistd.h>

namespace spraylab::fabric {

std::string machine_bound_reason(const MachineShare& s) {
  if (s.mode == Mode::kVirtual) return "";
  if (s.threads > s.cpus) {
    return fmt::format("{} {} on {} CPUs: the scheduler, not the balancer, sets queues and times",
                       s.threads, s.mode == Mode::kNamespaced ? "processes" : "lcores", s.cpus);
  }
  if (s.mode != Mode::kInProcess || !(s.frame_ns > 0) || s.mean_late_ns <= s.frame_ns) return "";
  return fmt::format(
      "frames waited {:.1f} us on average for their node to take them, longer than a frame takes "
      "on a link ({:.1f} us): the CPU, not the links, set the pace (a lower --rate keeps up)",
      s.mean_late_ns / 1e3, s.frame_ns / 1e3);
}

uint32_t online_cpus() {
  const long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<uint32_t>(n) : 1;
}

std::vector<int> usable_cpu_list() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    for (int c = 0; c < CPU_SETSIZE; ++c) {
      if (CPU_ISSET(c, &set)) cpus.push_back(c);
    }
  }
  if (cpus.empty()) cpus.push_back(0);
  return cpus;
}

uint32_t usable_cpus() { return static_cast<uint32_t>(usable_cpu_list().size()); }

uint32_t virtual_threads(uint32_t given) { return given > 0 ? given : usable_cpus(); }

}  // namespace spraylab::fabric
