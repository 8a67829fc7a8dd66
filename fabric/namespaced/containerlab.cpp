#include "fabric/namespaced/containerlab.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "conf/loader.h"
#include "conf/units.h"
#include "fabric/namespaced/plan.h"
#include "fabric/run/source_tree.h"
#include "fabric/run/text_file.h"
#include "topo/build.h"

namespace spraylab::fabric::namespaced {
namespace {

namespace fs = std::filesystem;

// Inside every node: the programs, the XDP program and the fabric's shared folder (a bind of
// <out_dir>/run: the experiment, the start file, the generators' results).
constexpr const char* kRunInNode = "/spraylab/run";
constexpr const char* kSwitchInNode = "/usr/local/bin/spraylab-switch";
constexpr const char* kGenInNode = "/usr/local/bin/spraylab-gen";
constexpr const char* kXdpInNode = "/usr/local/lib/spraylab/spraylab_xdp_gen.o";
constexpr const char* kIfWaitInNode = "/usr/local/bin/spraylab-if-wait";  // clab/if-wait.sh

// One argument as a POSIX shell word (containerlab splits `cmd` like a shell).
std::string shell_word(const std::string& arg) {
  if (!arg.empty() && arg.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                            "0123456789-_./=:,@") == std::string::npos) {
    return arg;
  }
  std::string out = "'";
  for (char c : arg) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string command(const std::vector<std::string>& argv) {
  std::string out;
  for (const std::string& a : argv) {
    if (!out.empty()) out += ' ';
    out += shell_word(a);
  }
  return out;
}

// The top folder of this repository (the one with scripts/setup.sh), for the build command.
std::string source_dir() {
  const auto tree = ancestor_of_binary_with("scripts/setup.sh");
  return tree ? tree->string() : "<the spraylab repository>";
}

std::string dockerfile() {
  return fmt::format(
      R"(# The spraylab node image: spraylab-switch, spraylab-gen and the switch's XDP program, built
# from the spraylab repository on Debian 12 with the project's own setup script.
# Build it from the repository's top folder:
#   docker build -t spraylab:latest -f <this file> <the repository>
FROM debian:12
COPY . /src
RUN /src/scripts/setup.sh --packages-only \
 && meson setup /build /src --buildtype=release -Dtests=disabled -Dbenchmarks=disabled \
 && ninja -C /build switch/spraylab-switch trafficgen/spraylab-gen switch/xdp/spraylab_xdp_gen.o \
 && install -D /build/switch/spraylab-switch {} \
 && install -D /build/trafficgen/spraylab-gen {} \
 && install -D -m 0644 /build/switch/xdp/spraylab_xdp_gen.o {} \
 && install -D -m 0755 /src/fabric/namespaced/clab/if-wait.sh {} \
 && rm -rf /build /src
WORKDIR {}
# containerlab attaches the links after the container starts: wait for them (CLAB_INTFS).
ENTRYPOINT ["{}"]
)",
      kSwitchInNode, kGenInNode, kXdpInNode, kIfWaitInNode, kRunInNode, kIfWaitInNode);
}

// Every node's process, with the container's paths and the fabric's options as `o` gives them.
std::vector<Process> node_processes(const ExportOptions& o, const conf::Experiment& exp,
                                    const std::string& name, const topo::Topology& t) {
  Wiring w;
  w.dir = kRunInNode;
  w.experiment = fmt::format("{}/experiment.yaml", kRunInNode);
  w.switch_bin = kSwitchInNode;
  w.gen_bin = kGenInNode;
  w.xdp_prog = kXdpInNode;
  w.metrics_host = "0.0.0.0";  // scraped over containerlab's management network
  w.shaper_slack_bytes = shaper_slack_bytes(exp);
  // No --rt-priority (w.rt_priority 0): the nodes' capabilities hold no SYS_NICE. No
  // --deep-sleep: nothing wakes a node's switch before a run (the start is a file written by
  // hand), so the first frames would wait up to the deep sleep at each hop.
  Options fabric = o.fabric;
  fabric.deep_sleep.clear();
  std::vector<Process> processes = plan_processes(name, t, fabric, w);
  // containerlab names a node's container clab-<lab>-<node> on its management network.
  for (Process& p : processes) {
    p.metrics = fmt::format("clab-{}-{}{}", name, p.node, p.metrics.substr(p.metrics.rfind(':')));
  }
  return processes;
}

// The .clab.yml: the kind's image, capabilities and binds, a linux node per process, the links.
std::string clab_topology(const std::string& name, const std::string& image,
                          const std::vector<Process>& processes, const topo::Topology& t) {
  YAML::Emitter out;
  out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << name;
  out << YAML::Key << "topology" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "kinds" << YAML::Value << YAML::BeginMap << YAML::Key << "linux"
      << YAML::Value << YAML::BeginMap << YAML::Key << "image" << YAML::Value
      << image
      // af_xdp sockets and their XDP program: the capabilities of `ip netns exec` as root.
      << YAML::Key << "cap-add" << YAML::Value << YAML::Flow << YAML::BeginSeq << "NET_ADMIN"
      << "SYS_ADMIN"
      << "BPF"
      << "IPC_LOCK"
      << "SYS_RESOURCE" << YAML::EndSeq << YAML::Key << "binds" << YAML::Value << YAML::BeginSeq
      << "/dev/hugepages:/dev/hugepages" << fmt::format("run:{}", kRunInNode) << YAML::EndSeq
      << YAML::EndMap << YAML::EndMap;
  out << YAML::Key << "nodes" << YAML::Value << YAML::BeginMap;
  for (const Process& p : processes) {
    out << YAML::Key << p.node << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "kind" << YAML::Value << "linux";
    out << YAML::Key << "cmd" << YAML::Value << command(p.argv);
    out << YAML::Key << "labels" << YAML::Value << YAML::BeginMap << YAML::Key << "spraylab.role"
        << YAML::Value << std::string(role_name(p.role)) << YAML::Key << "spraylab.fabric"
        << YAML::Value << name << YAML::EndMap;
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
  out << YAML::Key << "links" << YAML::Value << YAML::BeginSeq;
  for (const NodeLink& l : node_links(t)) {
    out << YAML::Flow << YAML::BeginMap << YAML::Key << "endpoints" << YAML::Value << YAML::Flow
        << YAML::BeginSeq << fmt::format("{}:{}", l.a.node, l.a.iface)
        << fmt::format("{}:{}", l.b.node, l.b.iface) << YAML::EndSeq << YAML::EndMap;
  }
  out << YAML::EndSeq << YAML::EndMap << YAML::EndMap;
  return out.c_str();
}

void write_readme(const ExportOptions& o, const std::string& name, const std::string& topology_file,
                  const std::string& repo) {
  const fs::path dir = o.out_dir;
  write_file(
      (dir / "README.md").string(),
      fmt::format(
          "# spraylab fabric {0} for containerlab\n\n"
          "```sh\n"
          "docker build -t {1} -f {2}/Dockerfile {3}   # the node image, once per server\n"
          "sudo containerlab deploy -t {2}/{4}\n"
          "date +%s.%N | sudo tee {2}/run/start   # every generator starts sending at that time\n"
          "cat {2}/run/results/*.json              # each generator's results\n"
          "sudo containerlab destroy -t {2}/{4}\n"
          "```\n\n"
          "Prometheus: add `{2}/prometheus-targets.json` as a `file_sd_configs` file "
          "(docs/monitoring.md). Several servers: docs/fabric.md, \"containerlab\".\n",
          name, o.image, fs::absolute(dir).string(), repo, topology_file));
}

}  // namespace

int export_containerlab(const ExportOptions& o) {
  if (o.out_dir.empty()) throw std::invalid_argument("--containerlab DIR: the folder to write");
  if (o.fabric.links != LinkKind::kVeth) {
    throw std::invalid_argument(fmt::format(
        "--links {}: a containerlab export links its nodes with veth pairs (containerlab's "
        "links); memif sockets do not cross servers",
        link_kind_name(o.fabric.links)));
  }
  double rate_bps = 0, scale = 1;
  const std::string yaml = fabric_experiment(o.fabric, &rate_bps, &scale);
  const conf::Experiment exp = conf::load_experiment_string(yaml, o.fabric.experiment);
  const std::string name = safe_name(o.fabric.name.empty() ? exp.name : o.fabric.name);
  const topo::Topology t = topo::build(exp.topology, exp.links);
  const std::vector<Process> processes = node_processes(o, exp, name, t);

  if (!exp.events.empty()) {
    fmt::print(stderr,
               "note: {}: its link events (events:) are not applied in a containerlab "
               "deployment (only `spraylab run --mode namespaced` sends them to the switches); "
               "the nodes run without them\n",
               o.fabric.experiment);
  }
  const fs::path dir = o.out_dir;
  fs::create_directories(dir / "run" / "results");
  // An earlier deployment's start time would release the generators at once, unsynchronised:
  // the README's step writes a new one.
  fs::remove(dir / "run" / "start");
  const std::string topology_file = name + ".clab.yml";
  write_file((dir / topology_file).string(),
             fmt::format("# Written by spraylab fabric export from {} ({} switches, {} generators, "
                         "{} per link); docs/fabric.md, \"containerlab\".\n{}\n",
                         o.fabric.experiment, t.switches().size(), t.leaves().size(),
                         conf::format_rate(rate_bps), clab_topology(name, o.image, processes, t)));
  write_file((dir / "run" / "experiment.yaml").string(), yaml);
  write_file((dir / "Dockerfile").string(), dockerfile());
  write_file((dir / "prometheus-targets.json").string(),
             discovery_targets(name, processes).dump(2) + "\n");
  const std::string repo = source_dir();
  write_readme(o, name, topology_file, repo);
  fmt::print("{}: {} nodes, {} links in {}; build the image with: docker build -t {} -f {} {}\n",
             topology_file, processes.size(), node_links(t).size(), dir.string(), o.image,
             (fs::absolute(dir) / "Dockerfile").string(), repo);
  return 0;
}

}  // namespace spraylab::fabric::namespaced
