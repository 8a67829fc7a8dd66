#include "fabric/cli/size_guard.h"

#include <fmt/format.h>
#include <unistd.h>

#include <stdexcept>

#include "switch/dataplane/switch_runtime.h"
#include "topo/build.h"

namespace spraylab::fabric {
namespace {

constexpr uint64_t kBaseBytes = 40ull << 20;
constexpr uint64_t kPortBytes = 21ull << 10;
constexpr uint64_t kRouteBytes = 23;
constexpr uint64_t kProcessBytes = 77ull << 20;

std::string gigabytes(uint64_t bytes) {
  const auto b = static_cast<double>(bytes);
  return b < 1e9 ? fmt::format("{:.0f} MB", b / 1e6) : fmt::format("{:.1f} GB", b / 1e9);
}

}  // namespace

FabricSize estimate_size(const conf::Experiment& exp, Mode mode) {
  const topo::Topology t = topo::build(exp.topology, exp.links);
  dataplane::check_switch_ports(t);  // a switch no mode can run says so first
  FabricSize s;
  s.hosts = t.hosts().size();
  s.switches = t.switches().size();
  for (topo::NodeId n : t.switches()) s.ports += t.degree(n);
  if (mode == Mode::kNamespaced) {
    s.processes = s.switches + t.leaves().size();
    s.memory_bytes = s.processes * kProcessBytes;
  } else {
    const uint64_t routes = s.switches * t.nodes().size();
    s.memory_bytes = kBaseBytes + s.ports * kPortBytes + routes * kRouteBytes;
  }
  return s;
}

std::string describe(const FabricSize& s, Mode mode) {
  return fmt::format("{} hosts, {} switches ({} ports){}, about {}", s.hosts, s.switches, s.ports,
                     mode == Mode::kNamespaced ? fmt::format(", {} processes", s.processes) : "",
                     gigabytes(s.memory_bytes));
}

uint64_t machine_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) : 0;
}

void check_fits(const FabricSize& s, Mode mode, const std::string& what) {
  const uint64_t memory = machine_memory_bytes();
  if (memory == 0 || s.memory_bytes <= memory) return;
  throw std::invalid_argument(
      fmt::format("{}: {}: more than this machine's {} of memory (docs/runner.md, \"Size and "
                  "time guard\")",
                  what, describe(s, mode), gigabytes(memory)));
}

}  // namespace spraylab::fabric
