#include "fabric/cli/reproduce_cli.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "conf/cli_checks.h"
#include "conf/loader.h"
#include "fabric/emu/eal.h"
#include "fabric/reproduce/figures.h"
#include "fabric/results/result_files.h"
#include "fabric/run/source_tree.h"
#include "fabric/runner/runner.h"

namespace spraylab::fabric {
namespace {

namespace fs = std::filesystem;

// A reproduction's folder holds this marker; only such a folder (or an empty one) is reused.
constexpr const char* kMarker = ".spraylab-reproduction";
constexpr const char* kExperimentsDir = "conf/experiments";

struct ReproduceArgs {
  std::string target;
  bool list = false;
  bool small = false;
  bool redraw = false;
  bool dry_run = false;
  std::string out_dir;
  double timeout_seconds = 1800;
  std::string command_line;
};

// conf/experiments under the working folder, else beside the binary's source tree
// (build/fabric/spraylab → conf/experiments two folders up), else installed (share/spraylab).
fs::path experiments_dir() {
  if (fs::is_directory(kExperimentsDir)) return kExperimentsDir;
  if (const auto tree = data_root_with(kExperimentsDir)) return *tree / kExperimentsDir;
  return kExperimentsDir;
}

// A file path as given, or NAME → conf/experiments/NAME.yaml.
std::string resolve(const std::string& target) {
  if (target.find('/') != std::string::npos || target.ends_with(".yaml")) return target;
  const fs::path path = experiments_dir() / (target + ".yaml");
  if (!fs::exists(path)) {
    throw std::invalid_argument(fmt::format(
        "no reproduction named '{}' ({} does not exist); `spraylab reproduce --list` lists them",
        target, path.string()));
  }
  return path.string();
}

int list_reproductions() {
  const fs::path dir = experiments_dir();
  std::vector<fs::path> files;
  if (fs::is_directory(dir)) {
    for (const auto& entry : fs::directory_iterator(dir)) {
      if (entry.path().extension() == ".yaml") files.push_back(entry.path());
    }
  }
  // By name (the stem): "psp" before "psp-asymmetry", whose file sorts first ('-' < '.').
  std::sort(files.begin(), files.end(),
            [](const fs::path& x, const fs::path& y) { return x.stem() < y.stem(); });
  for (const fs::path& file : files) {
    const std::string text = conf::read_experiment_text(file.string());
    const conf::Experiment e = conf::load_experiment_string(text, file.string());
    const Reproduction r = read_reproduction(text, file.string(), e.name);
    // Every line says what a run costs: a user picks by it (issue 43); a reproduction whose
    // full-size run has not been timed here says so rather than nothing.
    fmt::print("{:<22} {} (full size: {}; --small: seconds)\n", file.stem().string(), r.title,
               r.run_time.empty() ? "not timed yet" : r.run_time);
  }
  if (files.empty()) fmt::print(stderr, "no reproductions in {}\n", dir.string());
  return 0;
}

// The results folder may be created or reused: it does not exist, is empty, or is one of ours.
void check_reproduction_dir(const std::string& dir) {
  if (!fs::exists(dir)) return;
  if (!fs::is_directory(dir)) {
    throw std::invalid_argument(fmt::format("{}: exists and is not a folder", dir));
  }
  if (fs::is_empty(dir) || fs::exists(fs::path(dir) / kMarker)) return;
  throw std::invalid_argument(fmt::format(
      "{}: the folder holds files and is not a spraylab reproduction folder (no {}); choose "
      "another --out or remove it",
      dir, kMarker));
}

struct PlannedRun {
  ReproRun run;
  std::vector<Variant> variants;
  std::string dir;
};

nlohmann::json read_summary(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot read; run without --redraw", path));
  return nlohmann::json::parse(in);
}

// Every run of the reproduction (only the --small ones with --small) as its variants, each
// folder checked before anything runs.
std::vector<PlannedRun> plan_runs(const Reproduction& reproduction, const std::string& text,
                                  const std::string& path, const std::string& out, bool small) {
  std::vector<PlannedRun> plan;
  for (const ReproRun& run : runs_to_execute(reproduction, small)) {
    VariantRequest request;
    request.algorithms = run.algorithms;
    request.sweeps = run.sweeps;
    request.sets = run.sets;
    request.reproduce_run = run.name;
    PlannedRun p{run, expand_variants(text, path, request), (fs::path(out) / run.name).string()};
    RunOptions check;
    check.out_dir = p.dir;
    check_out_dir(p.variants, check);
    plan.push_back(std::move(p));
  }
  return plan;
}

// Runs every planned variant (EAL sized for the largest); the worst of the runs' exit codes
// above 1 (1 only says a variant did not complete, which collect_results judges).
int execute(const std::vector<PlannedRun>& plan, size_t total, const std::string& out,
            const ReproduceArgs& args) {
  fs::create_directories(out);
  write_file((fs::path(out) / kMarker).string(), "spraylab reproduce\n");
  EalOptions eal;
  for (const PlannedRun& p : plan) {
    for (const Variant& v : p.variants) {
      eal.memory_mb = std::max(eal.memory_mb, fabric_memory_mb(v.experiment));
    }
  }
  init_eal(eal, "spraylab");
  int rc = 0;
  size_t done = 0;
  for (const PlannedRun& p : plan) {
    fmt::print(stderr, "[{}/{} variants done] run {}: {} variants into {}\n", done, total,
               p.run.name, p.variants.size(), p.dir);
    RunOptions options;
    options.out_dir = p.dir;
    options.max_wall_seconds = args.timeout_seconds;
    options.command_line = args.command_line;
    options.title = "run " + p.run.name;
    // run_variants says 1 for any variant that did not complete; a reproduction measured over
    // measurement.duration stops every variant there on purpose (stopped_by checked later).
    const int run_rc = run_variants(p.variants, options);
    if (run_rc > 1) rc = std::max(rc, run_rc);
    done += p.variants.size();
  }
  return rc;
}

// Every variant's summary. Completed, or stopped by its own measurement.duration, is what the
// experiment asked for; stopped by --timeout or stalled, the numbers are not the experiment's:
// *rc becomes at least 1.
std::vector<VariantResult> collect_results(const std::vector<PlannedRun>& plan, int* rc) {
  std::vector<VariantResult> results;
  for (const PlannedRun& p : plan) {
    for (const Variant& v : p.variants) {
      const std::string dir = (fs::path(p.dir) / v.name).string();
      results.push_back({&p.run, v, dir, read_summary((fs::path(dir) / "summary.json").string())});
      const std::string stopped = results.back().summary.value("stopped_by", "");
      const bool by_design = stopped == "completed" ||
                             (stopped == "duration" && v.experiment.measurement.duration_ns > 0);
      if (!by_design) {
        fmt::print(stderr, "{}/{}: stopped by {}: incomplete\n", p.run.name, v.name, stopped);
        *rc = std::max(*rc, 1);
      }
    }
  }
  return results;
}

// The figures, the checks' verdicts and the report; returns the exit code they give (1: a check
// fails; 2: a figure draws nothing, a mistake of the reproduction file, not of the result).
int judge_and_report(const Reproduction& reproduction, const std::vector<VariantResult>& results,
                     const std::string& path, const std::string& out, const ReproduceArgs& args) {
  std::vector<FigureData> figures;
  for (const Figure& f : reproduction.figures) figures.push_back(gather_figure(f, results));
  std::vector<CheckOutcome> checks;
  for (const Check& c : reproduction.checks) checks.push_back(evaluate_check(c, figures));
  const std::string command =
      fmt::format("spraylab reproduce {}{}", args.target, args.small ? " --small" : "");
  const std::string plots = write_report(out, reproduction, command, figures, checks, args.small);
  int rc = 0;
  fmt::print("\n{}\n", reproduction.title);
  for (const CheckOutcome& c : checks) {
    fmt::print("  {:<5} {} {}: {} — {}\n", c.passed ? "holds" : "FAILS", c.check->figure,
               c.check->series, c.check->text, c.detail);
    if (!c.passed) rc = 1;
  }
  fmt::print("report: {}/report.md; {}\n", out, plots);
  for (const FigureData& d : figures) {
    if (d.series.empty() && !d.problems.empty()) {
      fmt::print(stderr,
                 "spraylab: {}: figure {} draws nothing: no variant has its values, e.g. {}\n",
                 path, d.figure->name, d.problems.front());
      rc = std::max(rc, 2);
    }
  }
  return rc;
}

int reproduce(const ReproduceArgs& args) {
  if (args.list) return list_reproductions();
  if (args.target.empty()) {
    throw std::invalid_argument("name a reproduction (spraylab reproduce --list) or a file");
  }
  const std::string path = resolve(args.target);
  const std::string text = conf::read_experiment_text(path);
  const conf::Experiment experiment = conf::load_experiment_string(text, path);
  const Reproduction reproduction = read_reproduction(text, path, experiment.name);
  const std::string out =
      args.out_dir.empty() ? (fs::path("results") / experiment.name).string() : args.out_dir;
  check_reproduction_dir(out);
  const std::vector<PlannedRun> plan = plan_runs(reproduction, text, path, out, args.small);
  size_t total = 0;
  for (const PlannedRun& p : plan) total += p.variants.size();
  if (args.dry_run) {
    fmt::print("{}: {} runs, {} variants into {}\n", reproduction.title, plan.size(), total, out);
    for (const PlannedRun& p : plan) {
      for (const Variant& v : p.variants) fmt::print("  {}/{}\n", p.run.name, v.name);
    }
    return 0;
  }
  int rc = args.redraw ? 0 : execute(plan, total, out, args);
  const std::vector<VariantResult> results = collect_results(plan, &rc);
  return std::max(rc, judge_and_report(reproduction, results, path, out, args));
}

}  // namespace

void add_reproduce_command(CLI::App& app, int* exit_code, const std::string& command_line) {
  auto args = std::make_shared<ReproduceArgs>();
  auto* cmd = app.add_subcommand(
      "reproduce",
      "Reproduce a paper's result: run conf/experiments/NAME.yaml's variants in virtual time, "
      "draw its figures and check its shape into results/NAME/ (docs/reproduce.md)");
  cmd->add_option("name", args->target,
                  "A reproduction's name (conf/experiments/NAME.yaml) or an experiment file with a "
                  "reproduce: section");
  cmd->add_flag("--list", args->list, "List the reproductions and their titles");
  cmd->add_flag("--small", args->small,
                "The small version (the file's reproduce.small settings), as make test runs it");
  cmd->add_flag("--redraw", args->redraw,
                "Run nothing: draw the figures and evaluate the checks from the results already "
                "in the folder");
  cmd->add_option("-o,--out", args->out_dir,
                  "Results folder (default: results/<experiment name>); each run is a subfolder "
                  "that a new run replaces whole")
      ->check(conf::kNonEmptyPath);
  cmd->add_option("--timeout", args->timeout_seconds,
                  "Wall-clock limit per variant in seconds (a variant stopped by it is incomplete)")
      ->check(conf::kPositiveNumber)
      ->capture_default_str();
  cmd->add_flag("-n,--dry-run", args->dry_run, "Check the file, print the variants, run nothing");
  args->command_line = command_line;
  cmd->final_callback([args, exit_code] { *exit_code = reproduce(*args); });
}

}  // namespace spraylab::fabric
