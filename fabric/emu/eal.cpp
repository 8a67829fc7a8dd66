#include "fabric/emu/eal.h"

#include <fmt/format.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "fabric/run/machine_bound.h"
#include "switch/dataplane/switch_runtime.h"
#include "topo/build.h"

namespace spraylab::fabric {
namespace {

bool g_initialised = false;
std::string g_runtime_dir;

uint64_t ram_mb() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long size = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && size > 0 ? static_cast<uint64_t>(pages) * size >> 20 : kDefaultMemoryMb;
}

constexpr std::string_view kPrefix = "spraylab-fabric-";

void remove_runtime_dir() {
  // EAL leaves its (empty, with --no-shconf) runtime folder behind.
  if (!g_runtime_dir.empty()) rmdir(g_runtime_dir.c_str());
}

// A run killed with SIGKILL (or one that crashed) cannot remove its runtime folder, and a user who
// stops runs that way would collect one in /var/run/dpdk per run. The next run removes those whose
// process is gone. rmdir() removes only an empty folder, which is all --no-shconf leaves (no
// config file, no IPC socket), so a folder that holds anything is never touched.
void remove_stale_runtime_dirs(const std::string& own) {
  namespace fs = std::filesystem;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(fs::path(own).parent_path(), ec)) {
    const std::string name = e.path().filename().string();
    if (!name.starts_with(kPrefix)) continue;
    const char* digits = name.data() + kPrefix.size();
    const char* end = name.data() + name.size();
    pid_t pid = 0;
    const auto [last, err] = std::from_chars(digits, end, pid);
    if (err != std::errc() || last != end || pid <= 0) continue;
    if (kill(pid, 0) == 0 || errno != ESRCH) continue;  // alive (or not ours to ask about)
    rmdir(e.path().c_str());
  }
}

}  // namespace

// "0@c0,1@c1,...": the main lcore on the first CPU, worker i on CPU i mod CPUs, so two workers
// on two CPUs each get one. The main lcore alone (virtual time, and tools that forward nothing)
// is "0@(c0,c1,...)": on any of the CPUs, and so are the threads it starts (a parallel virtual
// time's partitions inherit its CPUs). Pinned to the first, every virtual-time run of the
// machine and both threads of `--threads 2` shared CPU 0 while the other idled (session 27: a
// 1024-host run had 22 % of a CPU at 46 % idle, htsim beside it all of one).
std::string lcore_map(uint32_t lcores, const std::vector<int>& cpus) {
  if (lcores <= 1) {
    std::string set;
    for (int c : cpus) set += fmt::format("{}{}", set.empty() ? "" : ",", c);
    return fmt::format("0@({})", set);
  }
  std::string map;
  for (uint32_t i = 0; i < lcores; ++i) {
    if (!map.empty()) map += ",";
    map += fmt::format("{}@{}", i, cpus[i % cpus.size()]);
  }
  return map;
}

bool eal_initialised() { return g_initialised; }

void init_eal(const EalOptions& opts, const std::string& prog) {
  static std::mutex once;
  std::lock_guard<std::mutex> lock(once);
  if (g_initialised) return;
  const uint64_t mb = opts.memory_mb
                          ? opts.memory_mb
                          : std::min(kDefaultMemoryMb, std::max<uint64_t>(ram_mb() / 2, 512));
  const std::string prefix = fmt::format("{}{}", kPrefix, getpid());
  std::vector<std::string> args = {prog,
                                   "--no-pci",
                                   "--no-huge",
                                   "--no-shconf",
                                   "--no-telemetry",
                                   "-m",
                                   std::to_string(mb),
                                   "--lcores",
                                   lcore_map(std::max(1u, opts.lcores), usable_cpu_list()),
                                   "--file-prefix",
                                   prefix,
                                   "--log-level",
                                   "lib.eal:error"};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  if (rte_eal_init(static_cast<int>(args.size()), argv.data()) < 0) {
    throw std::runtime_error(fmt::format("EAL initialisation failed ({}): {}", fmt::join(args, " "),
                                         rte_strerror(rte_errno)));
  }
  g_initialised = true;
  g_runtime_dir = rte_eal_get_runtime_dir();
  std::atexit(remove_runtime_dir);
  remove_stale_runtime_dirs(g_runtime_dir);
}

uint64_t fabric_memory_mb(const conf::Experiment& exp, uint32_t threads) {
  // The frames (fabric/emu/mbuf_pool.h) and the rings of the egress queues and links
  // (fabric/emu/ring_arena.h) live outside EAL's memory. EAL holds the route table (rte_lpm: 64 MB
  // for its first level, a tbl8 group of 1 KB per prefix) and the mempools' stacks (16 B per
  // mbuf; at most every switch queue full twice over, mbuf_pool.h), a pool per partition: the
  // doubling below holds two such stacks, more partitions need one more for every two.
  const topo::Topology t = topo::build(exp.topology, exp.links);
  dataplane::check_switch_ports(t);  // a fabric too large to run would first ask EAL for gigabytes
  uint64_t ports = 0;
  for (topo::NodeId n : t.switches()) ports += t.degree(n);
  const uint64_t prefixes = t.nodes().size();  // at most a /24 per leaf and a /32 per host
  const uint64_t frame = 82 + exp.workload.payload_bytes;
  const uint64_t mbufs = ports * 2 * (exp.buffer.bytes / frame + 32) + t.links().size() * 128;
  const uint64_t pools = (virtual_threads(threads) + 1) / 2;  // threads 0: the default
  const uint64_t bytes = (64ull << 20) + prefixes * (1024 + 64) + mbufs * 16 * pools;
  return std::max<uint64_t>(256, (bytes * 2 >> 20) + 128);
}

void remove_eal_runtime_dir() { remove_runtime_dir(); }

}  // namespace spraylab::fabric
