#include "conf/workload_ranks.h"

#include <fmt/format.h>

#include <cstdint>
#include <optional>

#include "conf/topology_size.h"

namespace spraylab::conf {
namespace {

// The hosts the topology will have: an explicit file's list, a generator's count from its
// parameters (topo/size_limit.h; tests/topo/build_test.cpp holds it to the built topology's).
std::optional<uint64_t> host_count(const TopologySpec& t) {
  if (t.generator == topo::Kind::kExplicit) return t.hosts.size();
  if (const std::optional<topo::GeneratedSize> size = generated_size(t)) return size->hosts;
  return std::nullopt;
}

// The key if the file writes it, else the workload's type, which chose the default.
const Value& key_or_type(const Map& workload, std::string_view key) {
  if (const Value* v = workload.find(key)) return *v;
  if (const Value* type = workload.find("type")) return *type;
  return workload.self();
}

}  // namespace

void check_workload_ranks(const Map& workload, const Experiment& e) {
  const std::optional<uint64_t> hosts = host_count(e.topology);
  if (!hosts) return;
  const uint64_t ranks = *hosts;
  const WorkloadSpec& w = e.workload;
  const auto defaulted = [&workload](std::string_view key) {
    return workload.find(key) != nullptr ? "" : " (the default)";
  };
  const bool ranked = w.type == gen::WorkloadType::kIncast ||
                      w.type == gen::WorkloadType::kFsdp ||
                      (w.type == gen::WorkloadType::kAllToAllV && w.skew == gen::Skew::kMatrix);
  if (ranked && ranks < 2) {
    // Every one of them sends between ranks: said so, not as a range that ends below its start.
    key_or_type(workload, "type")
        .fail(fmt::format("{} needs at least 2 ranks (one a host); the topology has {} host{}",
                          gen::to_string(w.type), ranks, ranks == 1 ? "" : "s"));
  }
  switch (w.type) {
    case gen::WorkloadType::kIncast:
      // trafficgen/workloads/incast.cpp: distinct senders other than the receiver.
      if (w.fan_in == 0 || w.fan_in >= ranks) {
        key_or_type(workload, "fan_in")
            .fail(fmt::format("incast's fan_in must be in 1..{} with the topology's {} hosts (one "
                              "rank each), found {}{}",
                              ranks - 1, ranks, w.fan_in, defaulted("fan_in")));
      }
      return;
    case gen::WorkloadType::kAllToAllV:
      if (w.skew == gen::Skew::kMatrix && w.matrix.size() != ranks) {
        key_or_type(workload, "matrix")
            .fail(fmt::format("a {0} x {0} matrix, a row and a column per host of the topology; "
                              "found {1} rows",
                              ranks, w.matrix.size()));
      }
      return;
    case gen::WorkloadType::kFsdp: {
      // trafficgen/workloads/fsdp.cpp's shard_groups: 0 is one group of every rank.
      const uint64_t g = w.fsdp.dp_group == 0 ? ranks : w.fsdp.dp_group;
      if (g < 2 || g > ranks || ranks % g != 0) {
        key_or_type(workload, "dp_group")
            .fail(fmt::format("dp_group {}{} does not divide the topology's {} hosts (one rank "
                              "each) into shard groups of at least 2",
                              w.fsdp.dp_group, defaulted("dp_group"), ranks));
      }
      return;
    }
    default:
      return;
  }
}

}  // namespace spraylab::conf
