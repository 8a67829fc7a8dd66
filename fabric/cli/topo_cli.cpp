#include "fabric/cli/topo_cli.h"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

#include "conf/cli_checks.h"
#include "conf/loader.h"
#include "conf/units.h"
#include "fabric/run/variants.h"
#include "topo/build.h"
#include "topo/generators.h"

namespace spraylab::fabric {
namespace {

// Generator arguments shared by `topo gen` and `topo stats`.
struct GeneratorArgs {
  std::optional<topo::Kind> generator;  // which subcommand ran, if one did
  topo::FatTreeParams fat_tree;
  topo::LeafSpineParams leaf_spine;
  topo::MrlsParams mrls;
  topo::DragonflyParams dragonfly;
  topo::DragonflyPlusParams dragonfly_plus;
  topo::OftParams oft;
  double rate_gbps = 100;
  double delay_ns = 500;
};

// --rate and --delay take a bare number (Gb/s, ns: what they always took) or a value with a unit
// as experiment files and `run --rate` write it (400Gbps, 1us); the text becomes the number.
// Within the loader's bounds, [min, max] in the bare number's unit, so that a file `topo gen -o`
// writes reads back. `bare_max`: a bare number above it is refused with a hint to give the unit
// (`run --rate 5e9` is bit/s; the same number here would be 5 Eb/s).
CLI::Validator number_or_unit(double (*unit_value)(std::string_view), bool zero_ok, double min,
                              double max, double bare_max, std::string want, std::string name) {
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        double v = 0;
        const bool bare = CLI::detail::lexical_cast(text, v);
        if (!bare) v = unit_value(text);
        if (bare && v > bare_max) {
          return fmt::format("{}, found {}: a bare number above {} is taken for a mistake; give "
                             "the unit",
                             want, text, bare_max);
        }
        if (std::isfinite(v) && (v > 0 || (zero_ok && v == 0)) && (v == 0 || v >= min) &&
            v <= max) {
          text = fmt::format("{}", v);
          return {};
        }
        return want + ", found " + text;
      },
      std::move(name));
}

double gbps_of(std::string_view text) {
  const std::optional<double> bps = conf::parse_rate_bps(text);
  return bps ? *bps / 1e9 : std::nan("");
}

double ns_of(std::string_view text) {
  const std::optional<double> ns = conf::parse_time_ns(text);
  return ns ? *ns : std::nan("");
}

void add_link_options(CLI::App* sub, GeneratorArgs& g) {
  sub->add_option("--rate", g.rate_gbps, "Link rate: Gb/s, or with a unit (400Gbps)")
      ->transform(number_or_unit(gbps_of, false, 1e-9, HUGE_VAL, 1e5,
                                 "expected a number of Gb/s (at least 1 bit/s, at most 1e5 Gb/s "
                                 "bare) or a rate such as 400Gbps",
                                 "RATE"))
      ->capture_default_str();
  sub->add_option("--delay", g.delay_ns, "Link propagation delay: ns, or with a unit (1us)")
      ->transform(number_or_unit(ns_of, true, 0, 9007199254740992.0, HUGE_VAL,
                                 "expected a number of ns from 0 to 2^53 or a time such as 1us",
                                 "TIME"))
      ->capture_default_str();
}

// A generator's counts: 0 is said here with the option's name, not by the generator with its
// parameter names (leaves_per_group, ... for --leaves).
const CLI::Validator kCount = conf::integer_in(1, UINT32_MAX);

// The MRLS paper's other compared topologies (§5, Table 2): dragonfly, dragonfly-plus, oft.
std::vector<std::pair<CLI::App*, topo::Kind>> add_compared_subcommands(CLI::App* parent,
                                                                       GeneratorArgs& g) {
  using topo::Kind;
  auto* df = parent->add_subcommand(std::string(to_string(Kind::kDragonfly)),
                                    "Dragonfly (Kim et al. 2008), palm-tree global links");
  df->add_option("--p", g.dragonfly.hosts_per_router, "p, hosts per router")->check(kCount)
      ->capture_default_str();
  df->add_option("--a", g.dragonfly.routers_per_group, "a, routers per group")
      ->check(kCount)
      ->capture_default_str();
  df->add_option("--h", g.dragonfly.global_links_per_router, "h, global links per router")
      ->check(kCount)
      ->capture_default_str();
  df->add_option("--groups", g.dragonfly.groups, "g, groups (default a·h + 1)")
      ->check(conf::integer_in(2, UINT32_MAX));
  auto* dp = parent->add_subcommand(std::string(to_string(Kind::kDragonflyPlus)),
                                    "Dragonfly+ (Shpiner et al. 2017): leaf-spine groups");
  dp->add_option("--leaves", g.dragonfly_plus.leaves_per_group, "Leaves per group")
      ->check(kCount)
      ->capture_default_str();
  dp->add_option("--spines", g.dragonfly_plus.spines_per_group, "Spines per group")
      ->check(kCount)
      ->capture_default_str();
  dp->add_option("--hosts-per-leaf", g.dragonfly_plus.hosts_per_leaf, "Hosts under each leaf")
      ->check(kCount)
      ->capture_default_str();
  dp->add_option("--h", g.dragonfly_plus.global_links_per_spine, "h, global links per spine")
      ->check(kCount)
      ->capture_default_str();
  dp->add_option("--groups", g.dragonfly_plus.groups, "g, groups (default spines·h + 1)")
      ->check(conf::integer_in(2, UINT32_MAX));
  auto* of = parent->add_subcommand(std::string(to_string(Kind::kOft)),
                                    "2-level Orthogonal Fat Tree over PG(2, q), q prime");
  of->add_option("--q", g.oft.q, "q, order of the projective plane (prime)")->check(kCount)
      ->capture_default_str();
  of->add_option("--hosts-per-leaf", g.oft.hosts_per_leaf, "Hosts under each leaf")
      ->check(kCount)
      ->capture_default_str();
  return {{df, Kind::kDragonfly}, {dp, Kind::kDragonflyPlus}, {of, Kind::kOft}};
}

// Adds fat-tree / leaf-spine / mrls subcommands to `parent`; the one that runs sets g.generator.
void add_generator_subcommands(CLI::App* parent, GeneratorArgs& g) {
  using topo::Kind;
  auto* ft = parent->add_subcommand(std::string(to_string(Kind::kFatTree)),
                                    "k-ary fat tree with 2, 3 or 4 levels");
  ft->add_option("--k", g.fat_tree.k, "Switch radix k (even)")->check(kCount)
      ->capture_default_str();
  ft->add_option("--levels", g.fat_tree.levels, "2 (leaf-spine), 3 or 4 (k pods and cores)")
      ->check(CLI::IsMember({2, 3, 4}))
      ->capture_default_str();
  ft->add_option("--pods", g.fat_tree.pods,
                 "4 levels: pods built (default k; k/2 is the MRLS paper's 50 % populated tree)")
      ->check(conf::integer_in(1, UINT32_MAX));
  auto* ls =
      parent->add_subcommand(std::string(to_string(Kind::kLeafSpine)), "full bipartite leaf-spine");
  ls->add_option("--leaves", g.leaf_spine.leaves, "Leaf switches")->check(kCount)
      ->capture_default_str();
  ls->add_option("--spines", g.leaf_spine.spines, "Spine switches")->check(kCount)
      ->capture_default_str();
  ls->add_option("--hosts-per-leaf", g.leaf_spine.hosts_per_leaf, "Hosts under each leaf")
      ->check(kCount)
      ->capture_default_str();
  auto* mr = parent->add_subcommand(std::string(to_string(Kind::kMrls)),
                                    "random leaf-spine (MRLS paper §4)");
  mr->add_option("--leaves", g.mrls.leaves, "N1, leaf switches")->check(kCount)
      ->capture_default_str();
  mr->add_option("--uplinks", g.mrls.uplinks, "u, uplinks per leaf")->check(kCount)
      ->capture_default_str();
  mr->add_option("--downlinks", g.mrls.downlinks, "d, hosts per leaf")->check(kCount)
      ->capture_default_str();
  mr->add_option("--seed", g.mrls.seed, "Wiring seed")
      ->check(conf::integer_in(0, UINT64_MAX))  // CLI11 would wrap -1 to 2^64 - 1, clamp 2^64
      ->capture_default_str();
  mr->add_option("--max-tries", g.mrls.max_tries, "Draws before giving up")
      ->check(conf::integer_in(1, UINT32_MAX))
      ->capture_default_str();
  auto subcommands = add_compared_subcommands(parent, g);
  subcommands.insert(subcommands.begin(),
                     {{ft, Kind::kFatTree}, {ls, Kind::kLeafSpine}, {mr, Kind::kMrls}});
  for (auto [sub, kind] : subcommands) {
    add_link_options(sub, g);
    sub->fallthrough();  // --json, -o etc. of the parent may follow the generator's arguments
    sub->callback([&g, kind = kind] { g.generator = kind; });
  }
}

// The generators `topo gen` and `topo stats` take, for messages.
std::string join_generators() {
  using topo::Kind;
  return fmt::format("{}, {}, {}, {}, {}, {}", to_string(Kind::kFatTree),
                     to_string(Kind::kLeafSpine), to_string(Kind::kMrls),
                     to_string(Kind::kDragonfly), to_string(Kind::kDragonflyPlus),
                     to_string(Kind::kOft));
}

topo::Topology generate(GeneratorArgs& g, uint32_t* tries) {
  const topo::LinkDefaults link{g.rate_gbps * 1e9, g.delay_ns};
  if (g.generator == topo::Kind::kFatTree) {
    g.fat_tree.link = link;
    return topo::fat_tree(g.fat_tree);
  }
  if (g.generator == topo::Kind::kLeafSpine) {
    g.leaf_spine.link = link;
    return topo::leaf_spine(g.leaf_spine);
  }
  if (g.generator == topo::Kind::kDragonfly) {
    g.dragonfly.link = link;
    return topo::dragonfly(g.dragonfly);
  }
  if (g.generator == topo::Kind::kDragonflyPlus) {
    g.dragonfly_plus.link = link;
    return topo::dragonfly_plus(g.dragonfly_plus);
  }
  if (g.generator == topo::Kind::kOft) {
    g.oft.link = link;
    return topo::oft(g.oft);
  }
  g.mrls.link = link;
  return topo::mrls(g.mrls, tries);
}

std::string describe(const GeneratorArgs& g) {
  const std::string_view name = to_string(*g.generator);
  if (g.generator == topo::Kind::kFatTree) {
    return fmt::format("{} --k {} --levels {}{}", name, g.fat_tree.k, g.fat_tree.levels,
                       g.fat_tree.pods ? fmt::format(" --pods {}", g.fat_tree.pods) : "");
  }
  if (g.generator == topo::Kind::kLeafSpine) {
    return fmt::format("{} --leaves {} --spines {} --hosts-per-leaf {}", name, g.leaf_spine.leaves,
                       g.leaf_spine.spines, g.leaf_spine.hosts_per_leaf);
  }
  if (g.generator == topo::Kind::kDragonfly) {
    const auto& d = g.dragonfly;
    return fmt::format("{} --p {} --a {} --h {}{}", name, d.hosts_per_router, d.routers_per_group,
                       d.global_links_per_router,
                       d.groups ? fmt::format(" --groups {}", d.groups) : "");
  }
  if (g.generator == topo::Kind::kDragonflyPlus) {
    const auto& d = g.dragonfly_plus;
    return fmt::format("{} --leaves {} --spines {} --hosts-per-leaf {} --h {}{}", name,
                       d.leaves_per_group, d.spines_per_group, d.hosts_per_leaf,
                       d.global_links_per_spine,
                       d.groups ? fmt::format(" --groups {}", d.groups) : "");
  }
  if (g.generator == topo::Kind::kOft) {
    return fmt::format("{} --q {} --hosts-per-leaf {}", name, g.oft.q, g.oft.hosts_per_leaf);
  }
  return fmt::format("{} --leaves {} --uplinks {} --downlinks {} --seed {}", name, g.mrls.leaves,
                     g.mrls.uplinks, g.mrls.downlinks, g.mrls.seed);
}

// `check_names`: also the switches and links that link events and load_balancer.switches name
// (`topo check`, as `run` checks them).
topo::Topology load(const std::string& file, bool check_names = false) {
  conf::Experiment e = conf::load_experiment_file(file);
  topo::Topology t;
  try {
    t = topo::build(e.topology, e.links);
  } catch (const topo::TopologyError& err) {  // a generator's: name the file it came from
    throw topo::TopologyError(fmt::format("{}: topology: {}", file, err.what()));
  }
  if (check_names) check_against_topology(e);
  return t;
}

// The switch graph's routing; a graph it cannot hold is refused naming `file` (empty: a
// generator's output).
topo::Routing routing(const topo::Topology& t, const std::string& file) {
  try {
    return topo::Routing(t);
  } catch (const topo::TopologyError& e) {
    if (file.empty()) throw;
    throw topo::TopologyError(fmt::format("{}: {}", file, e.what()));
  }
}

nlohmann::ordered_json to_json(const topo::Stats& s) {
  nlohmann::ordered_json j;
  j["kind"] = s.kind;
  j["hosts"] = s.hosts;
  j["leaves"] = s.leaves;
  j["spines"] = s.spines;
  j["switches"] = s.switches;
  j["links"] = s.links;
  j["radix"] = s.radix;
  j["uplinks"] = s.uplinks;
  j["downlinks"] = s.downlinks;
  // What a disconnected graph (or one leaf) does not define is null, not the unreachable
  // marker 255 or a 0 that reads as a measurement.
  const auto defined = [](bool yes, auto v) { return yes ? nlohmann::ordered_json(v) : nullptr; };
  j["diameter"] = defined(s.leaf_distances_defined(), s.diameter);
  j["diameter_all"] = defined(s.distances_defined(), s.diameter_all);
  j["avg_distance"] = defined(s.leaf_distances_defined(), s.avg_distance);
  j["capacity"] = defined(s.leaf_distances_defined(), s.capacity);
  j["cost_links_per_host"] = s.cost_links_per_host;
  j["cost_switches_per_host"] = s.cost_switches_per_host;
  j["avg_switch_degree"] = s.avg_switch_degree;
  j["corners"] = defined(s.corners_scanned, s.corners);
  j["connected"] = s.connected;
  return j;
}

// Problems `topo check` reports; empty when the topology is usable.
std::vector<std::string> check(const topo::Topology& t, const topo::Routing& r) {
  std::vector<std::string> problems;
  if (!r.connected()) problems.push_back("the switch graph is disconnected");
  if (t.hosts().size() < 2) {
    problems.push_back(fmt::format("{} host{}: every workload needs at least 2",
                                   t.hosts().size(), t.hosts().size() == 1 ? "" : "s"));
  }
  for (topo::NodeId h : t.hosts()) {
    if (t.degree(h) != 1) {
      problems.push_back(
          fmt::format("host {} has {} links (needs exactly 1)", t.node(h).name, t.degree(h)));
    }
  }
  for (const topo::Link& l : t.links()) {
    const auto& a = t.node(l.a.node);
    const auto& b = t.node(l.b.node);
    if (a.kind == topo::NodeKind::kSwitch && b.kind == topo::NodeKind::kSwitch &&
        a.level == b.level) {
      problems.push_back(
          fmt::format("link {} - {} joins two switches of level {}: Polarized routing and the "
                      "namespaced fabric need a leveled graph (minimal routing, as on a "
                      "Dragonfly, does not)",
                      a.name, b.name, a.level));
    }
  }
  if (r.connected() && topo::is_leaf_spine(t)) {
    auto corners = r.corners(5);
    for (const auto& c : corners) {
      problems.push_back(fmt::format("Polarized corner: {} has no allowed hop for traffic from {}",
                                     t.node(r.graph().node_of(c.sw)).name,
                                     t.node(r.graph().node_of(c.src_leaf)).name));
    }
  }
  return problems;
}

}  // namespace

void print_stats_table(const std::vector<topo::Stats>& cols,
                       const std::vector<std::string>& titles) {
  struct Row {
    const char* name;
    std::function<std::string(const topo::Stats&)> value;
  };
  auto integer = [](uint64_t v) { return fmt::format("{}", v); };
  // Undefined (a disconnected graph, a single leaf, corners not scanned): a dash.
  constexpr const char* kUndefined = "—";
  auto leafwise = [](const topo::Stats& s, std::string v) {
    return s.leaf_distances_defined() ? v : std::string(kUndefined);
  };
  const std::vector<Row> rows = {
      {"hosts (S)", [&](auto& s) { return integer(s.hosts); }},
      {"switches (N)", [&](auto& s) { return integer(s.switches); }},
      {"leaves (N1)", [&](auto& s) { return integer(s.leaves); }},
      {"spines (N2)", [&](auto& s) { return integer(s.spines); }},
      {"switch links (M)", [&](auto& s) { return integer(s.links); }},
      {"radix (R)", [&](auto& s) { return integer(s.radix); }},
      {"uplinks / hosts per leaf",
       [](auto& s) { return fmt::format("{} / {}", s.uplinks, s.downlinks); }},
      {"connected", [](auto& s) { return std::string(s.connected ? "yes" : "no"); }},
      {"diameter D (leaves)", [&](auto& s) { return leafwise(s, integer(s.diameter)); }},
      {"diameter D* (all)",
       [&](auto& s) {
         return s.distances_defined() ? integer(s.diameter_all) : std::string(kUndefined);
       }},
      {"avg distance A",
       [&](auto& s) { return leafwise(s, fmt::format("{:.4f}", s.avg_distance)); }},
      {"capacity Θ=2M/(S·A)",
       [&](auto& s) { return leafwise(s, fmt::format("{:.4f}", s.capacity)); }},
      {"avg switch degree k=2M/N",
       [](auto& s) { return fmt::format("{:.4f}", s.avg_switch_degree); }},
      {"links per host M/S (Eq.2)",
       [](auto& s) { return fmt::format("{:.4f}", s.cost_links_per_host); }},
      {"switches per host N/S (Eq.3)",
       [](auto& s) { return fmt::format("{:.4f}", s.cost_switches_per_host); }},
      {"Polarized corners",
       [&](auto& s) {
         return s.corners_scanned ? integer(s.corners) : std::string("not scanned");
       }},
  };
  size_t width = 30;
  std::vector<size_t> col_width;
  for (size_t c = 0; c < cols.size(); ++c) {
    size_t w = titles[c].size();
    for (const auto& row : rows) w = std::max(w, row.value(cols[c]).size());
    col_width.push_back(w + 2);
  }
  fmt::print("{:<{}}", "", width);
  for (size_t c = 0; c < cols.size(); ++c) fmt::print("{:>{}}", titles[c], col_width[c]);
  fmt::print("\n");
  for (const auto& row : rows) {
    // fmt pads by display width, so "Θ" and "·" count as one column each.
    fmt::print("{:<{}}", row.name, width);
    for (size_t c = 0; c < cols.size(); ++c) fmt::print("{:>{}}", row.value(cols[c]), col_width[c]);
    fmt::print("\n");
  }
}

void add_topo_commands(CLI::App& app) {
  auto* topo_cmd = app.add_subcommand("topo", "Generate, describe and check topologies");
  topo_cmd->require_subcommand(1);

  // topo gen
  auto gen_args = std::make_shared<GeneratorArgs>();
  auto out_file = std::make_shared<std::string>();
  auto* gen = topo_cmd->add_subcommand("gen", "Generate a topology and write it as YAML");
  gen->add_option("-o,--output,--out", *out_file, "Output file (default: standard output)")
      ->check(conf::kNonEmptyPath);
  gen->require_subcommand(1);
  add_generator_subcommands(gen, *gen_args);
  gen->final_callback([gen_args, out_file] {
    uint32_t tries = 1;
    topo::Topology t = generate(*gen_args, &tries);
    std::string comment = "spraylab topo gen " + describe(*gen_args);
    if (tries > 1) comment += fmt::format(" (draw {} of the seed)", tries);
    if (out_file->empty()) {
      topo::write_yaml(t, std::cout, comment);
      return;
    }
    std::ofstream f(*out_file);
    if (!f) throw CLI::ValidationError("--output", "cannot write " + *out_file);
    topo::write_yaml(t, f, comment);
    fmt::print(stderr, "wrote {}: {} switches, {} hosts, {} links\n", *out_file,
               t.switches().size(), t.hosts().size(), t.links().size());
  });

  // topo stats
  auto stats_args = std::make_shared<GeneratorArgs>();
  struct StatsOpts {
    std::string file;
    bool json = false;
    bool no_corners = false;
  };
  auto opts = std::make_shared<StatsOpts>();
  auto* stats = topo_cmd->add_subcommand(
      "stats", "Statistics of a topology file, or of a generator's output (MRLS paper §2.2)");
  stats->add_option("file", opts->file, "Topology or experiment YAML file");
  stats->add_flag("--json", opts->json, "Print one JSON object");
  stats->add_flag("--no-corners", opts->no_corners, "Skip the Polarized corner scan");
  stats->require_subcommand(0, 1);
  add_generator_subcommands(stats, *stats_args);
  stats->final_callback([stats_args, opts] {
    if (opts->file.empty() == !stats_args->generator) {
      throw CLI::ValidationError("topo stats",
                                 "give either a FILE or a generator (" + join_generators() + ")");
    }
    const auto start = std::chrono::steady_clock::now();
    topo::Topology t = opts->file.empty() ? generate(*stats_args, nullptr) : load(opts->file);
    const topo::Routing r = routing(t, opts->file);
    topo::Stats s = topo::compute_stats(r, !opts->no_corners);
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (opts->json) {
      fmt::print("{}\n", to_json(s).dump());
    } else {
      print_stats_table(
          {s}, {opts->file.empty() ? std::string(to_string(*stats_args->generator)) : opts->file});
      fmt::print(stderr, "({:.2f} s)\n", secs);
    }
  });

  // topo check
  auto check_file = std::make_shared<std::string>();
  auto* chk = topo_cmd->add_subcommand("check", "Check that a topology file is usable");
  chk->add_option("file", *check_file, "Topology or experiment YAML file")->required();
  chk->final_callback([check_file] {
    topo::Topology t = load(*check_file, /*check_names=*/true);
    const topo::Routing r = routing(t, *check_file);
    auto problems = check(t, r);
    for (const auto& p : problems) fmt::print(stderr, "{}: {}\n", *check_file, p);
    if (!problems.empty()) throw CLI::RuntimeError(1);
    // Corners are looked for on two switch levels only (check()).
    fmt::print("{}: ok ({} switches, {} hosts, {} links, connected, {})\n", *check_file,
               t.switches().size(), t.hosts().size(), t.links().size(),
               topo::is_leaf_spine(t) ? "no corners"
                                      : "Polarized corners not scanned: not two switch levels");
  });
}

}  // namespace spraylab::fabric
