#include "fabric/cli/run_cli.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <memory>

#include "conf/cli_checks.h"
#include "conf/loader.h"
#include "conf/units.h"
#include "fabric/cli/inprocess_metrics.h"
#include "fabric/cli/links_option.h"
#include "fabric/cli/size_guard.h"
#include "fabric/emu/eal.h"
#include "fabric/namespaced/launcher.h"
#include "fabric/namespaced/plan.h"
#include "fabric/run/time_scale.h"
#include "fabric/run/variants.h"
#include "fabric/runner/runner.h"
#include "switch/lb/algorithm.h"

namespace spraylab::fabric {
namespace {

constexpr const char* kLinkRateKey = "links.rate";

struct RunArgs {
  std::string file;
  std::string mode = mode_name(Mode::kVirtual);
  std::vector<std::string> algorithms;
  std::vector<std::string> sweeps;
  std::vector<std::string> sets;
  std::string out_dir;
  uint32_t lcores = 0;
  uint32_t threads = 0;  // --threads; 0: not given
  std::string rate;      // --rate as given; empty: not given
  double timeout_seconds = 600;
  std::string max_clock;           // --max-clock as given; empty: none
  std::string metrics_address;     // --metrics-address; empty: no metrics
  namespaced::Options namespaced;  // --links, --fabric-name, --fabric-dir (--rate goes in too)
  uint32_t seeds = 0;              // 0: the file's seed only, as ever
  bool dry_run = false;
  bool resume = false;
  std::string command_line;
};

// `wall_rate_bps`: a wall-clock mode's rate (0: the variants' own), said per variant with how
// many times slower it runs the experiment than written (run/time_scale.h). `sizes`: each
// variant's estimate (size_guard.h), printed with its terms.
void print_variants(const std::vector<Variant>& variants, const std::vector<FabricSize>& sizes,
                    const RunOptions& options, double wall_rate_bps) {
  const Mode mode = options.mode;
  for (size_t i = 0; i < variants.size(); ++i) {
    const Variant& v = variants[i];
    std::string settings;
    for (const Setting& s : v.settings) settings += fmt::format("  {}={}", s.key, s.value);
    fmt::print("{}{}\n", v.name, settings);
    for (const std::string& note : v.notes) fmt::print("  note: {}\n", note);
    if (mode != Mode::kVirtual && wall_rate_bps > 0) {
      const double k = slowdown_factor(v.experiment, wall_rate_bps);
      fmt::print(
          "  {}: fastest link at {}, time x{:g} (every rate / {:g}, every time constant x {:g})\n",
          mode == Mode::kInProcess ? "in-process" : "namespaced",
          conf::format_rate(k > 1 ? wall_rate_bps : v.experiment.links.rate_bps), k, k, k);
    }
    fmt::print("  size: {}\n", describe(sizes[i], mode));
    fmt::print("  memory: {}\n", itemize(sizes[i], mode));
  }
}

// One variant as the namespaced fabric will run it (fabric_experiment_of: the rate, the veth
// payload cut, the PFC headroom, and check_runnable): a refusal names the variant. Lines of the
// variant's document mean nothing in the user's file: none is given.
void check_namespaced_variant(const Variant& v, const std::string& file,
                              const namespaced::Options& o) {
  const std::string label = fmt::format("variant {}, as the namespaced fabric runs it", v.name);
  try {
    double rate_bps = 0, scale = 1;
    namespaced::fabric_experiment_of(v.yaml, file, o, &rate_bps, &scale);
  } catch (const conf::ConfigError& e) {
    throw conf::ConfigError(file, 0, 0, e.path(), fmt::format("{} ({})", e.message(), label));
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(fmt::format("{} ({})", e.what(), label));
  }
}

// EAL lcores for the mode: virtual time needs the calling thread only; in-process defaults to
// the (mostly sleeping) main lcore and one worker. One worker's clock stands still while it is
// descheduled (FabricOptions::lcores), so a busy 2-CPU machine does not show in the results;
// with two, every node shares the CPUs with whatever else runs (16-host demo with compilers
// beside it: +5.6% inflation on one worker, +260% to +1400% on two).
uint32_t eal_lcores(Mode mode, uint32_t requested) {
  if (mode == Mode::kVirtual) return 1;
  if (requested > 0) return requested;
  return 2;
}

bool names_link_rate(const std::vector<Sweep>& sweeps) {
  return std::any_of(sweeps.begin(), sweeps.end(),
                     [](const Sweep& s) { return s.key == kLinkRateKey; });
}

// A wall-clock mode's rate (0: the variants' own, as written), `default_bps` when --rate is not
// given. Rates the user sweeps or sets with links.rate are the experiment's own: they win over
// the default and are run as written.
double wall_clock_rate(const RunArgs& args, const VariantRequest& request, double default_bps) {
  const bool explicit_rate = names_link_rate(request.sweeps) || names_link_rate(request.sets);
  if (args.rate.empty() && explicit_rate) return 0;
  if (explicit_rate) {
    throw std::invalid_argument(
        fmt::format("--rate and --sweep/--set {} both give the link rate; give one", kLinkRateKey));
  }
  if (args.rate == "file") return 0;
  const std::string text = args.rate.empty() ? conf::format_rate(default_bps) : args.rate;
  const std::optional<double> bps = conf::parse_rate_bps(text);
  if (!bps || *bps <= 0) {
    throw std::invalid_argument(
        fmt::format("--rate {}: expected a rate such as 1Gbps or 500Mbps, or 'file'", text));
  }
  // The same slowing down as the namespaced fabric's (run/time_scale.h): run_fabric divides
  // every rate and multiplies every time constant by fastest link / this, so the experiment keeps
  // its shape in packets; config.yaml keeps the file's rates and run.json says time_scale.
  return *bps;
}

// --max-clock as ns; 0 when not given.
uint64_t max_clock_ns(const RunArgs& args) {
  if (args.max_clock.empty()) return 0;
  const std::optional<double> ns = conf::parse_time_ns(args.max_clock);
  if (!ns || *ns < 1) {
    throw std::invalid_argument(
        fmt::format("--max-clock {}: expected a time such as 20ms or 500us", args.max_clock));
  }
  return static_cast<uint64_t>(*ns);
}

// --seeds N: every variant N times, with the file's seed (or --set seed=) and the N - 1 after it,
// as the last sweep (a point's seeds side by side in the table).
void add_seeds(const RunArgs& args, VariantRequest& request) {
  const auto is_seed = [](const Sweep& s) { return s.key == kSeedKey; };
  if (std::any_of(request.sweeps.begin(), request.sweeps.end(), is_seed)) {
    throw std::invalid_argument("--seeds and --sweep seed=... both give the seeds; give one");
  }
  uint64_t first =
      conf::load_experiment_string(conf::read_experiment_text(args.file), args.file,
                                   conf::Checks::kTemplate)
          .seed;
  const auto set = std::find_if(request.sets.begin(), request.sets.end(), is_seed);
  if (set != request.sets.end()) {
    char* end = nullptr;
    first = std::strtoull(set->values[0].c_str(), &end, 10);
    if (set->values[0].empty() || *end != '\0') {
      throw std::invalid_argument(
          fmt::format("--set seed={}: expected a whole number", set->values[0]));
    }
    request.sets.erase(set);
  }
  request.sweeps.push_back(seed_sweep(first, args.seeds));
}

int run(const RunArgs& args) {
  // Every option is checked before anything runs, --dry-run included.
  RunOptions options;
  options.mode = parse_mode(args.mode);
  options.out_dir = args.out_dir;
  options.max_wall_seconds = args.timeout_seconds;
  options.max_clock_ns = max_clock_ns(args);
  options.command_line = args.command_line;
  if (args.threads > 0 && options.mode != Mode::kVirtual) {
    throw std::invalid_argument(
        "--threads is for --mode virtual (inprocess: --lcores; namespaced: a process per node)");
  }
  options.threads = args.threads;
  if (args.resume && options.mode != Mode::kVirtual) {
    throw std::invalid_argument(
        "--resume reuses earlier runs of the same experiment, which only virtual time repeats "
        "exactly; the wall-clock modes run every variant");
  }
  options.resume = options.keep_completed = args.resume;
  VariantRequest request;
  request.algorithms = args.algorithms;
  for (const std::string& s : args.sweeps) request.sweeps.push_back(parse_sweep(s, "--sweep"));
  for (const std::string& s : args.sets) request.sets.push_back(parse_sweep(s, "--set"));
  if (args.seeds > 0) add_seeds(args, request);
  options.seeds = args.seeds > 0;
  double wall_rate_bps = 0;  // --rate, or the mode's default (0: the variants' own)
  const bool namespaced_options = args.namespaced.links != namespaced::LinkKind::kMemif ||
                                  !args.namespaced.name.empty() || !args.namespaced.dir.empty() ||
                                  args.namespaced.rt_priority != namespaced::kNamespacedRtPriority;
  if (namespaced_options && options.mode != Mode::kNamespaced) {
    throw std::invalid_argument(
        "--links, --fabric-name, --fabric-dir and --rt-priority are for --mode namespaced");
  }
  if (options.mode == Mode::kNamespaced) {
    // fabric up applies the rate (and stretches the time constants) to each variant it starts.
    if (args.lcores > 0) throw std::invalid_argument("--lcores is for --mode inprocess");
    options.namespaced = args.namespaced;
    wall_rate_bps = wall_clock_rate(args, request, namespaced::kNamespacedRateBps);
    // fabric up's --rate: "" its default, "file" the variant's own rates.
    options.namespaced.rate = wall_rate_bps == 0 ? "file" : args.rate;
  } else if (options.mode == Mode::kInProcess) {
    wall_rate_bps = wall_clock_rate(args, request, kInProcessRateBps);
    options.inprocess_rate_bps = wall_rate_bps;
    if (!args.metrics_address.empty()) {
      options.switch_metrics =
          serve_switch_metrics(monitoring::parse_address(args.metrics_address, 0));
    }
  } else if (!args.rate.empty()) {
    throw std::invalid_argument(fmt::format(
        "--rate is for --mode inprocess or namespaced; virtual time runs the experiment's "
        "rates (change "
        "them with --set {}=...)",
        kLinkRateKey));
  } else if (args.lcores > 0) {
    throw std::invalid_argument(
        "--lcores is for --mode inprocess; virtual time runs on --threads (docs/fabric.md)");
  }
  if (!args.metrics_address.empty() && options.mode != Mode::kInProcess) {
    throw std::invalid_argument(
        "--metrics-address is for --mode inprocess (a namespaced fabric's processes serve their "
        "own; virtual time has no wall clock to scrape on)");
  }
  const std::vector<Variant> variants =
      expand_variants(conf::read_experiment_text(args.file), args.file, request);
  check_out_dir(variants, options);  // a folder it may not replace is refused before any run
  std::vector<FabricSize> sizes;
  for (const Variant& v : variants) {  // and a fabric too large for the machine
    sizes.push_back(
        estimate_size(v.experiment, options.mode, eal_lcores(options.mode, args.lcores)));
    if (options.mode == Mode::kNamespaced) {
      namespaced::check_process_count(sizes.back().processes,
                                      fmt::format("{} (variant {})", args.file, v.name));
    }
    check_fits(sizes.back(), options.mode, "variant " + v.name);
  }
  if (options.mode == Mode::kNamespaced) {
    // What the processes cannot run is said now, -n included, not once the fabric is up: each
    // variant made into the fabric's experiment as `fabric up` will (rate, payload, headroom).
    for (const Variant& v : variants) check_namespaced_variant(v, args.file, options.namespaced);
  }
  if (args.dry_run) {
    print_variants(variants, sizes, options, wall_rate_bps);
    return 0;
  }
  if (options.mode == Mode::kNamespaced) {
    // Every node is a process of its own; this one only starts, watches and collects them.
    if (geteuid() != 0) throw std::invalid_argument("--mode namespaced needs root (ip netns add)");
    return run_variants(variants, options);
  }
  EalOptions eal;
  eal.lcores = eal_lcores(options.mode, args.lcores);
  for (const Variant& v : variants) {
    eal.memory_mb = std::max(eal.memory_mb,
                             fabric_memory_mb(v.experiment,
                                              options.mode == Mode::kVirtual ? args.threads : 1));
  }
  init_eal(eal, "spraylab");
  options.lcores = 0;  // every worker lcore EAL has
  options.eal_lcores = eal.lcores;
  return run_variants(variants, options);
}

}  // namespace

void add_run_command(CLI::App& app, int* exit_code, const std::string& command_line) {
  auto args = std::make_shared<RunArgs>();
  auto* cmd = app.add_subcommand(
      "run",
      "Run an experiment's variants (algorithms x sweep values) on a fabric; write one results "
      "folder per variant, a comparison table and plots (docs/runner.md)");
  cmd->add_option("experiment", args->file, "Experiment YAML file (docs/configuration.md)")
      ->required();
  cmd->add_option("--mode", args->mode,
                  "virtual: event-driven virtual time, deterministic, any link rate; inprocess: "
                  "the DPDK fabric in wall-clock time on this machine's cores; namespaced: one "
                  "spraylab-switch / spraylab-gen process per node in network namespaces, "
                  "brought up for a variant and kept for the next when only its balancer "
                  "differs (needs root; docs/fabric.md)")
      ->check([](const std::string& text) {
        return find_mode(text) ? std::string() : fmt::format("expected {}", mode_choices());
      })
      ->capture_default_str();
  // Both spellings, as on `fabric up` and `export` (issue 43): one balancer is a list of one.
  cmd->add_option("--algorithms,--algorithm", args->algorithms,
                  fmt::format("Comma-separated load balancers, one variant each (default: the "
                              "file's load_balancer.algorithm): {}",
                              fmt::join(lb::kAlgorithmNames, " ")))
      ->delimiter(',')
      // One word per use: without it `--algorithms ecmp,ofan FILE` reads FILE as a balancer.
      ->allow_extra_args(false);
  cmd->add_option("--sweep", args->sweeps,
                  "KEY=V1,V2,...: one variant per value of a dotted key of the experiment file "
                  "(workload.message_size=64KB,1MB; links.rate=...; load_balancer.bands=...); "
                  "repeat for the cross product")
      ->allow_extra_args(false);
  cmd->add_option("--set", args->sets,
                  "KEY=VALUE: change a key for every variant without naming it "
                  "(measurement.queue_sample=10us); repeatable")
      ->allow_extra_args(false);
  cmd->add_option("-o,--out", args->out_dir,
                  "Results folder, relative to the working folder (default: results/<experiment "
                  "name>); one subfolder per variant. A run replaces an earlier run's folder "
                  "whole, and refuses a folder with other files in it")
      ->check(conf::kNonEmptyPath);
  cmd->add_option("--lcores", args->lcores,
                  "inprocess: how many EAL lcores (a count, not an EAL core map), the main one "
                  "and N-1 workers polling the nodes (default: 2, one worker; more only on "
                  "otherwise idle CPUs, docs/fabric.md)")
      ->check(CLI::Range(1u, 128u));
  cmd->add_option("--threads", args->threads,
                  "virtual: threads, one partition of the fabric each (its pods, or groups of its "
                  "leaves), at most the pods or leaves (default: the CPUs this process may use; "
                  "1 on CPUs other work keeps busy). Results are the same for any N "
                  "(docs/fabric.md)")
      ->check(CLI::Range(1u, 1024u));
  cmd->add_option("--rate", args->rate,
                  fmt::format("inprocess and namespaced: the fastest link's rate; the "
                              "experiment runs k = fastest / RATE times slower, every rate "
                              "divided by k and every time constant multiplied by k "
                              "(inprocess default {}, what this 2-CPU machine sustains, "
                              "docs/fabric.md; namespaced default {}); 'file': the "
                              "experiment's rates as written",
                              conf::format_rate(kInProcessRateBps),
                              conf::format_rate(namespaced::kNamespacedRateBps)));
  cmd->add_option("--metrics-address", args->metrics_address,
                  "inprocess: serve the switches' Prometheus metrics at HOST:PORT/metrics while "
                  "each variant runs (port 0: any free port, printed; docs/monitoring.md)");
  add_links_option(cmd, args->namespaced.links,
                   "namespaced: memif (default), veth (net_af_xdp; payloads above 1400 B are "
                   "cut to 1400) or vhost (vhost-user: net_vhost and net_virtio_user)");
  cmd->add_option("--rt-priority", args->namespaced.rt_priority,
                  "namespaced: every process's data path in SCHED_RR at this priority (0: the "
                  "fair scheduler only, at nice -10; -1: 1 over veth, 0 over memif and vhost; "
                  "fabric up --rt-priority)")
      ->check(CLI::Range(-1, 49))
      ->capture_default_str();
  cmd->add_option("--fabric-name", args->namespaced.name,
                  "namespaced: the fabric's name, its namespaces' prefix (default run<pid>)");
  cmd->add_option(
      "--fabric-dir", args->namespaced.dir,
      "namespaced: the fabric's folder: sockets, logs, the generators' results (default "
      "/run/spraylab/<name>; removed after a variant that completed)");
  cmd->add_option("--timeout", args->timeout_seconds,
                  "Wall-clock limit per variant in seconds; a variant stopped by it is reported "
                  "as incomplete")
      ->check(conf::kPositiveNumber)
      ->capture_default_str();
  cmd->add_option("--max-clock", args->max_clock,
                  "Stop a variant when the fabric's clock passes this (20ms, 1s): a guard "
                  "against a run that never completes (it is reported as incomplete)");
  cmd->add_option("--seeds", args->seeds,
                  "Run every variant with N seeds (the file's seed: and the N-1 after it; "
                  "default: the file's seed alone); the table is followed by one of means and "
                  "95 % confidence intervals over the seeds (summary_seeds.{txt,csv})")
      ->check(CLI::Range(1u, 1000u));
  cmd->add_flag("--resume", args->resume,
                "Virtual time: a variant whose folder in the results folder already holds a "
                "completed run of the same experiment is kept, not run again; interrupted, the "
                "variants completed so far are kept for the next --resume (docs/runner.md)");
  cmd->add_flag("-n,--dry-run", args->dry_run,
                "Check the experiment and the variants, print them, run nothing");
  args->command_line = command_line;
  cmd->final_callback([args, exit_code] { *exit_code = run(*args); });
}

}  // namespace spraylab::fabric
