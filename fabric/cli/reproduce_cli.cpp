#include "fabric/cli/reproduce_cli.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include "conf/cli_checks.h"
#include "conf/loader.h"
#include "conf/schema.h"
#include "fabric/emu/eal.h"
#include "fabric/reproduce/figures.h"
#include "fabric/results/result_files.h"
#include "fabric/run/source_tree.h"
#include "fabric/runner/resume.h"
#include "fabric/runner/runner.h"

namespace spraylab::fabric {
namespace {

namespace fs = std::filesystem;

// A reproduction's folder holds this marker; only such a folder (or an empty one) is reused.
constexpr const char* kMarker = ".spraylab-reproduction";
constexpr const char* kExperimentsDir = "conf/experiments";
constexpr const char* kSeedsFile = "seeds.csv";
constexpr const char* kVerdictsFile = "verdicts.json";

struct ReproduceArgs {
  std::string target;
  bool all = false;    // every reproduction in conf/experiments
  std::string report;  // --report FILE: a generated RESULTS-style markdown
  uint32_t seeds = 0;  // 0: kDefaultSeeds, or with --small the file's small.seeds
  bool list = false;
  bool small = false;
  bool redraw = false;
  bool dry_run = false;
  bool resume = false;
  std::string out_dir;
  double timeout_seconds = 1800;
  uint32_t threads = 0;  // --threads; 0: the default
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
    const conf::Experiment e =
        conf::load_experiment_string(text, file.string(), conf::Checks::kTemplate);
    const Reproduction r = read_reproduction(text, e);
    // Every line says what a run costs: a user picks by it (issue 43); a reproduction whose
    // full-size run has not been timed here says so rather than nothing.
    fmt::print("{:<22} {} (full size: {}; --small: seconds)\n", file.stem().string(), r.title,
               r.run_time.empty() ? "not timed yet" : r.run_time);
    for (const Difference& d : r.differences) {
      fmt::print("  differs from the paper: {}: paper {}, here {} ({})\n", d.setting, d.paper,
                 d.here, d.why);
    }
  }
  if (files.empty()) fmt::print(stderr, "no reproductions in {}\n", dir.string());
  return 0;
}

// The results folder may be created or reused: it does not exist, is empty, or is one of ours
// (--redraw: or holds the stored per-seed data, a copy in docs/results/NAME).
void check_reproduction_dir(const std::string& dir, bool redraw) {
  if (!fs::exists(dir)) return;
  if (!fs::is_directory(dir)) {
    throw std::invalid_argument(fmt::format("{}: exists and is not a folder", dir));
  }
  if (fs::is_empty(dir) || fs::exists(fs::path(dir) / kMarker)) return;
  if (redraw && fs::exists(fs::path(dir) / kSeedsFile)) return;
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
                                  const std::string& path, const std::string& out, bool small,
                                  const Sweep& seeds) {
  std::vector<PlannedRun> plan;
  for (const ReproRun& run : runs_to_execute(reproduction, small, seeds)) {
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

// A check naming a series its figure will not draw, or an x none of the figure's runs sweeps, is
// the file's mistake: said before anything runs (it surfaced when the checks were judged, after
// every run). The x only at full size: --small sweeps less, and its checks may find no data.
// (--all checks every file this way before the first runs: check_all_first.)
void check_references(const Reproduction& reproduction, const std::vector<PlannedRun>& plan,
                      bool small) {
  for (const Check& c : reproduction.checks) {
    const auto figure = std::find_if(reproduction.figures.begin(), reproduction.figures.end(),
                                     [&c](const Figure& f) { return f.name == c.figure; });
    if (figure == reproduction.figures.end()) continue;  // read_check refused it already
    const Figure& f = *figure;
    std::vector<std::string> series;  // in the order the figure draws them
    std::set<std::string> xs;
    for (const PlannedRun& p : plan) {
      if (!f.runs.empty() && std::find(f.runs.begin(), f.runs.end(), p.run.name) == f.runs.end())
        continue;
      for (const Variant& v : p.variants) {
        const std::string name = series_name(p.run, v, f);
        if (std::find(series.begin(), series.end(), name) == series.end()) series.push_back(name);
      }
      for (const std::vector<Sweep>* settings : {&p.run.sweeps, &p.run.sets}) {
        for (const Sweep& s : *settings) {
          if (s.key == f.x) xs.insert(s.values.begin(), s.values.end());
        }
      }
    }
    for (const ModelCurve& m : f.models) series.push_back(m.name);  // drawn beside the measured
    std::vector<std::string> names = c.picked.empty() ? std::vector{c.series} : c.picked;
    if (!c.other.empty()) names.push_back(c.other);
    for (const std::string& name : names) {
      if (std::find(series.begin(), series.end(), name) == series.end()) {
        throw std::invalid_argument(fmt::format("check {}: no series '{}' in {} (it has: {})", c.id,
                                                name, f.name, fmt::join(series, ", ")));
      }
    }
    if (small || xs.empty()) continue;
    // As the judge finds a point (checks.cpp, point_at): the text, else the same number.
    const auto is_x = [&xs](const std::string& x) {
      if (xs.count(x) != 0) return true;
      const std::optional<double> v = axis_value(x);
      return v && std::any_of(xs.begin(), xs.end(),
                              [&v](const std::string& s) { return axis_value(s) == v; });
    };
    for (const std::string* x : {&c.at, &c.from}) {
      if (!x->empty() && !is_x(*x)) {
        throw std::invalid_argument(fmt::format(
            "check {}: {} is not an x of figure {} (its runs sweep {} over {}; write the value as "
            "the sweep does)",
            c.id, *x, f.name, f.x, fmt::join(xs, ", ")));
      }
    }
  }
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
      eal.memory_mb = std::max(eal.memory_mb, fabric_memory_mb(v.experiment, args.threads));
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
    options.threads = args.threads;
    options.command_line = args.command_line;
    options.title = "run " + p.run.name;
    // A reproduction runs for hours: an interrupted one keeps what completed, and --resume
    // reuses it (and any earlier run's variant of the same experiment).
    options.keep_completed = true;
    options.resume = args.resume;
    // run_variants says 1 for any variant that did not complete; a reproduction measured over
    // measurement.duration stops every variant there on purpose (stopped_by checked later).
    const int run_rc = run_variants(p.variants, options);
    if (run_rc > 1) rc = std::max(rc, run_rc);
    done += p.variants.size();
  }
  return rc;
}

// Every variant's summary. A run stopped as designed (stopped_as_designed, fabric/runner/resume.h)
// is what the experiment asked for; otherwise the numbers are not the experiment's: *rc becomes at
// least 1.
std::vector<VariantResult> collect_results(const std::vector<PlannedRun>& plan, int* rc) {
  std::vector<VariantResult> results;
  for (const PlannedRun& p : plan) {
    for (const Variant& v : p.variants) {
      const std::string dir = (fs::path(p.dir) / v.name).string();
      results.push_back({&p.run, v, dir, read_summary((fs::path(dir) / "summary.json").string()),
                         v.experiment.seed});
      const std::string stopped = results.back().summary.value("stopped_by", "");
      if (!stopped_as_designed(stopped, v.experiment)) {
        fmt::print(stderr, "{}/{}: stopped by {}: incomplete\n", p.run.name, v.name, stopped);
        *rc = std::max(*rc, 1);
      }
    }
  }
  return results;
}

// The figures: gathered from the runs' summaries, or (--redraw) from the stored seeds.csv.
std::vector<FigureData> figures_of(const Reproduction& reproduction,
                                   const std::vector<VariantResult>& results,
                                   const std::string& out, bool redraw) {
  std::vector<FigureData> figures;
  if (!redraw) {
    for (const Figure& f : reproduction.figures) figures.push_back(gather_figure(f, results));
    return figures;
  }
  const std::string path = (fs::path(out) / kSeedsFile).string();
  const std::optional<std::string> text = read_file(path);
  if (!text) {
    throw std::invalid_argument(
        fmt::format("{}: cannot read; --redraw draws from the stored per-seed data (run "
                    "without --redraw first)",
                    path));
  }
  const std::vector<SeedRow> rows = parse_seeds_csv(*text, path);
  for (const Figure& f : reproduction.figures) figures.push_back(figure_from_rows(f, rows));
  return figures;
}

// The seeds a redraw's data ran with, from its points.
std::vector<uint64_t> seeds_in(const std::vector<FigureData>& figures) {
  std::set<uint64_t> seeds;
  for (const FigureData& d : figures) {
    for (const FigureSeries& s : d.series) {
      for (const FigurePoint& p : s.points) {
        for (const SeedValue& v : p.per_seed) seeds.insert(v.seed);
      }
    }
  }
  return {seeds.begin(), seeds.end()};
}

// `{key: value, ...}` of the keys of `spec` that `fields` declares, as a file would write them.
template <class S>
std::string shown(const conf::Fields<S>& fields, const std::vector<std::string_view>& keys,
                  const S& spec) {
  std::string out;
  for (std::string_view key : keys) {
    const conf::Field<S>* f = conf::find_field(fields, key);
    if (f == nullptr || !f->show) continue;
    out += fmt::format("{}{}: {}", out.empty() ? "" : ", ", key, f->show(spec));
  }
  return "{" + out + "}";
}

// One line per run and algorithm: the resolved load_balancer (the algorithm's own keys, its
// defaults filled in), workload and buffer of its first variant — the baselines' settings as they
// ran, not as the file abbreviates them.
std::vector<std::pair<std::string, std::string>> run_settings(const std::vector<PlannedRun>& plan) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const PlannedRun& p : plan) {
    std::set<std::string> seen;
    for (const Variant& v : p.variants) {
      if (!seen.insert(v.algorithm).second) continue;
      const conf::Experiment& e = v.experiment;
      std::string lb = shown(conf::balancer_fields(),
                             conf::balancer_algorithms().allowed(v.algorithm), e.balancer.fallback);
      if (!e.balancer.per_layer.empty() || !e.balancer.per_switch.empty() || e.balancer.upgrade) {
        lb += " (and per-layer, per-switch or upgrade overrides: see config.yaml)";
      }
      const std::string type = conf::find_field(conf::workload_fields(), "type")->show(e.workload);
      const std::vector<std::string_view> workload_keys = conf::workload_types().allowed(type);
      const std::string text =
          fmt::format("load_balancer: {}; workload: {}; buffer: {}", lb,
                      shown(conf::workload_fields(), workload_keys, e.workload),
                      shown(conf::buffer_fields(), conf::keys_of(conf::buffer_fields()), e.buffer));
      out.emplace_back(fmt::format("{} ({})", p.run.name, v.algorithm), text);
    }
  }
  return out;
}

struct Outcome {
  int rc = 0;
  std::string name;
  std::string out;
  std::string markdown;       // report_markdown for a generated RESULTS.md (heading level 2)
  std::string paper_summary;  // "2 reproduced, 1 not reproduced", or "none yet"
  std::string other_summary;  // "5 hold, 1 fails"
};

// How many checks of each verdict, for the generated file's index.
void summarise(const std::vector<CheckOutcome>& checks, Outcome& o) {
  std::map<std::string, int> paper;
  int hold = 0, fail = 0;
  std::map<std::string, int> unjudged;  // why → how many
  for (const CheckOutcome& c : checks) {
    if (!c.judged()) {
      // Said where the check belongs: a paper check's column, or the orderings' and thresholds'.
      const char* why = c.misnamed ? "misnamed" : "no data";
      if (c.check->role == CheckRole::kPaper)
        ++paper[fmt::format("not judged ({})", why)];
      else
        ++unjudged[why];
    } else if (c.verdict) {
      ++paper[std::string(verdict_name(*c.verdict))];
    } else {
      (c.passed ? hold : fail) += 1;
    }
  }
  for (const auto& [verdict, n] : paper) {
    o.paper_summary += fmt::format("{}{} {}", o.paper_summary.empty() ? "" : "; ", n, verdict);
  }
  if (o.paper_summary.empty()) o.paper_summary = "none yet (the paper's numbers are to be added)";
  o.other_summary = fmt::format("{} hold, {} fail{}", hold, fail, fail == 1 ? "s" : "");
  for (const auto& [why, n] : unjudged) {
    o.other_summary += fmt::format(", {} not judged ({})", n, why);
  }
}

// The figures, the checks' verdicts and the report; returns the exit code they give (1: a check
// does not hold or is not reproduced; 2: a figure draws nothing or a check names a series or
// figure that is not there, a mistake of the reproduction file, not of the result). --redraw keeps
// the stored first verdicts (keep_stored_verdicts).
int judge_and_report(const Reproduction& reproduction, const std::vector<PlannedRun>& plan,
                     const std::vector<VariantResult>& results, const std::string& path,
                     const std::string& out, const ReproduceArgs& args, const Sweep& seeds,
                     Outcome& outcome) {
  const std::vector<FigureData> figures = figures_of(reproduction, results, out, args.redraw);
  std::vector<CheckOutcome> checks;
  for (const Check& c : reproduction.checks) checks.push_back(evaluate_check(c, figures));
  const fs::path verdicts = fs::path(out) / kVerdictsFile;
  if (args.redraw && fs::exists(verdicts)) {
    std::ifstream in(verdicts);
    keep_stored_verdicts(checks, nlohmann::json::parse(in));
  }
  ReportContext context;
  context.small = args.small;
  if (args.redraw) {
    context.seeds = seeds_in(figures);
  } else {
    for (const std::string& s : seeds.values) context.seeds.push_back(std::stoull(s));
  }
  context.command = fmt::format("spraylab reproduce {}{} --seeds {}", reproduction.name,
                                args.small ? " --small" : "", context.seeds.size());
  context.settings = run_settings(plan);
  const std::string plots = write_report(out, reproduction, context, figures, checks);
  ReportContext in_results = context;
  in_results.heading = 2;
  in_results.figures_link = fmt::format("results/{}/figures", reproduction.name);
  outcome.markdown = report_markdown(reproduction, in_results, figures, checks);
  summarise(checks, outcome);
  int rc = 0;
  fmt::print("\n{} ({})\n", reproduction.title,
             context.seeds.size() == 1 ? std::string("1 seed")
                                       : fmt::format("{} seeds", context.seeds.size()));
  for (const Difference& d : reproduction.differences) {
    fmt::print("  differs from the paper: {}: paper {}, here {}\n", d.setting, d.paper, d.here);
  }
  for (const CheckOutcome& c : checks) {
    const std::string outcome = !c.judged() ? "NOT JUDGED"
                                : c.verdict ? std::string(verdict_name(*c.verdict))
                                            : (c.passed ? "holds" : "FAILS");
    fmt::print("  {}: {} {}: {} — {}{}\n", outcome, c.check->figure, c.check->series, c.check->text,
               c.detail, c.history.empty() ? "" : " [" + c.history + "]");
    if (!c.passed) rc = 1;
  }
  fmt::print("report: {}/report.md; {}\n", out, plots);
  for (const CheckOutcome& c : checks) {
    if (!c.misnamed) continue;
    fmt::print(stderr,
               "spraylab: {}: the check '{}' found no values for a series of its figure: {}; not "
               "judged (its names were checked before the run: the series' variants gave no "
               "value, or seeds.csv lacks them)\n",
               path, c.check->text, c.detail);
    rc = std::max(rc, 2);
  }
  for (const FigureData& d : figures) {
    if (d.series.empty()) {
      // Its checks are not judged (CheckOutcome::no_data): the run, not the result, is at fault.
      fmt::print(stderr, "spraylab: {}: figure {} draws nothing: no variant has its values{}\n",
                 path, d.figure->name,
                 d.problems.empty() ? "" : fmt::format(", e.g. {}", d.problems.front()));
      rc = std::max(rc, 2);
    }
  }
  return rc;
}

// The seeds of this reproduction: --seeds, or the default (--small: the file's small.seeds), from
// the experiment's seed on.
Sweep seeds_for(const ReproduceArgs& args, const Reproduction& r, uint64_t first) {
  const uint32_t n = args.seeds > 0 ? args.seeds
                     : args.small   ? (r.small_seeds > 0 ? r.small_seeds : kSmallSeeds)
                                    : kDefaultSeeds;
  return seed_sweep(first, n);
}

// A reproduction's file, read and checked.
struct LoadedReproduction {
  std::string path, text;
  conf::Experiment experiment;
  Reproduction reproduction;
};
LoadedReproduction load_reproduction(const std::string& target) {
  LoadedReproduction r;
  r.path = resolve(target);
  r.text = conf::read_experiment_text(r.path);
  r.experiment = conf::load_experiment_string(r.text, r.path, conf::Checks::kTemplate);
  r.reproduction = read_reproduction(r.text, r.experiment);
  return r;
}

// --all runs for hours: every file is planned and its checks' references are checked before the
// first variant runs, so a mistake in the last file is not found after the others have run.
void check_all_first(const std::vector<std::string>& names, const ReproduceArgs& args) {
  for (const std::string& name : names) {
    const LoadedReproduction r = load_reproduction(name);
    const std::string out = args.out_dir.empty()
                                ? (fs::path("results") / r.experiment.name).string()
                                : (fs::path(args.out_dir) / name).string();
    const Sweep seeds = seeds_for(args, r.reproduction, r.experiment.seed);
    check_references(r.reproduction,
                     plan_runs(r.reproduction, r.text, r.path, out, args.small, seeds), args.small);
  }
}

Outcome reproduce_one(const std::string& target, const std::string& out_dir,
                      const ReproduceArgs& args) {
  const LoadedReproduction loaded = load_reproduction(target);
  const std::string& path = loaded.path;
  const std::string& text = loaded.text;
  const conf::Experiment& experiment = loaded.experiment;
  const Reproduction& reproduction = loaded.reproduction;
  Outcome o;
  o.name = experiment.name;
  o.out = out_dir.empty() ? (fs::path("results") / experiment.name).string() : out_dir;
  if (args.all && args.redraw && !fs::exists(fs::path(o.out) / kSeedsFile)) {
    // --all --redraw regenerates the results page: a reproduction declared but not run yet is
    // listed as such (its checks and differences), not an error that stops the page.
    fmt::print(stderr, "{}: no stored result ({} not found): listed as not run yet\n", o.name,
               (fs::path(o.out) / kSeedsFile).string());
    o.markdown = not_run_markdown(reproduction, 2);
    o.paper_summary = "not run yet";
    o.other_summary = "not run yet";
    o.out.clear();
    return o;
  }
  check_reproduction_dir(o.out, args.redraw);
  const Sweep seeds = seeds_for(args, reproduction, experiment.seed);
  const std::vector<PlannedRun> plan =
      plan_runs(reproduction, text, path, o.out, args.small, seeds);
  check_references(reproduction, plan, args.small);
  size_t total = 0;
  for (const PlannedRun& p : plan) total += p.variants.size();
  if (args.dry_run) {
    fmt::print("{}: {} runs, {} variants ({} seeds each point) into {}\n", reproduction.title,
               plan.size(), total, seeds.values.size(), o.out);
    for (const PlannedRun& p : plan) {
      for (const Variant& v : p.variants) {
        std::string why_not;
        const bool kept =
            args.resume && reusable_run((fs::path(p.dir) / v.name).string(), v, &why_not);
        fmt::print("  {}/{}{}\n", p.run.name, v.name, kept ? " (the earlier run stands)" : "");
      }
    }
    return o;
  }
  std::vector<VariantResult> results;
  if (!args.redraw) {
    o.rc = execute(plan, total, o.out, args);
    results = collect_results(plan, &o.rc);
  }
  o.rc = std::max(o.rc, judge_and_report(reproduction, plan, results, path, o.out, args, seeds, o));
  return o;
}

// Copies the small files of a result (the per-seed data, verdicts, report, plots) from `from` to
// `to`, unless they are the same folder.
void copy_small_files(const fs::path& from, const fs::path& to) {
  if (fs::exists(to) && fs::equivalent(from, to)) return;
  fs::create_directories(to / "figures");
  for (const char* name : {kSeedsFile, kVerdictsFile, "report.json", "report.md"}) {
    if (fs::exists(from / name)) {
      fs::copy_file(from / name, to / name, fs::copy_options::overwrite_existing);
    }
  }
  for (const auto& entry : fs::directory_iterator(from / "figures")) {
    const std::string ext = entry.path().extension().string();
    if (ext == ".png" || ext == ".svg" || ext == ".csv") {
      fs::copy_file(entry.path(), to / "figures" / entry.path().filename(),
                    fs::copy_options::overwrite_existing);
    }
  }
}

// --report FILE: every result's report (headings one level down, plots linked under
// results/NAME/ beside FILE, where the small files are copied) and its hand-written notes from
// results/NAME/notes.md, which the generation reads and never writes.
void write_results_file(const std::string& file, const std::vector<Outcome>& outcomes) {
  const fs::path dir = fs::path(file).has_parent_path() ? fs::path(file).parent_path() : ".";
  std::string md =
      "# Results\n\n"
      "Generated by `spraylab reproduce --report` from the runs (docs/reproduce.md): do not edit "
      "it by hand. Each result's hand-written analysis is its notes file, "
      "results/NAME/notes.md beside this file, which a new generation keeps; its per-seed data "
      "(seeds.csv), verdicts (verdicts.json) and plots are there too. A result's data is exactly "
      "what its run gave at the commit that stored its seeds.csv (`git log` of that file): virtual "
      "time's engine 2 (issue 40, session 22: ties at one ns by node, not in scheduling order) gives "
      "other per-seed numbers for the same seed than engine 1, which made every result stored "
      "before it.\n\n";
  md += "| result | checks against the paper | orderings and thresholds |\n| --- | --- | --- |\n";
  for (const Outcome& o : outcomes) {
    md +=
        fmt::format("| [{}](#{}) | {} | {} |\n", o.name, o.name, o.paper_summary, o.other_summary);
  }
  md += "\n";
  for (const Outcome& o : outcomes) {
    const fs::path dest = dir / "results" / o.name;
    if (!o.out.empty()) copy_small_files(o.out, dest);
    md += fmt::format("<a id=\"{}\"></a>\n\n", o.name) + o.markdown;
    md += fmt::format(
        "### Notes\n\n<!-- hand-written: results/{}/notes.md; kept across "
        "regeneration -->\n\n",
        o.name);
    if (const std::optional<std::string> notes = read_file((dest / "notes.md").string())) {
      md += *notes;
      if (!md.ends_with("\n")) md += "\n";
    } else {
      md += fmt::format("None yet (write them in results/{}/notes.md).\n", o.name);
    }
    md += "\n";
  }
  write_file(file, md);
  fmt::print("{}: {} results\n", file, outcomes.size());
}

// The reproductions' names, by name (conf/experiments/*.yaml).
std::vector<std::string> all_names() {
  std::vector<std::string> names;
  const fs::path dir = experiments_dir();
  if (fs::is_directory(dir)) {
    for (const auto& entry : fs::directory_iterator(dir)) {
      if (entry.path().extension() == ".yaml") names.push_back(entry.path().stem().string());
    }
  }
  std::sort(names.begin(), names.end());
  if (names.empty()) {
    throw std::invalid_argument(fmt::format("no reproductions in {}", dir.string()));
  }
  return names;
}

int reproduce(const ReproduceArgs& args) {
  if (args.list) return list_reproductions();
  if (args.all == !args.target.empty()) {
    throw std::invalid_argument(
        "name one reproduction (spraylab reproduce --list) or a file, or give --all");
  }
  if (args.resume && args.redraw) {
    throw std::invalid_argument("--resume runs what is missing; --redraw runs nothing");
  }
  if (!args.report.empty() && args.dry_run) {
    throw std::invalid_argument("--report writes from results; --dry-run runs nothing");
  }
  std::vector<Outcome> outcomes;
  int rc = 0;
  if (args.all) {
    const std::vector<std::string> names = all_names();
    if (!args.redraw && !args.dry_run) check_all_first(names, args);
    for (size_t i = 0; i < names.size(); ++i) {
      fmt::print(stderr, "[{}/{} reproductions] {}\n", i + 1, names.size(), names[i]);
      const std::string out =
          args.out_dir.empty() ? std::string() : (fs::path(args.out_dir) / names[i]).string();
      outcomes.push_back(reproduce_one(names[i], out, args));
      rc = std::max(rc, outcomes.back().rc);
    }
  } else {
    outcomes.push_back(reproduce_one(args.target, args.out_dir, args));
    rc = outcomes.back().rc;
  }
  if (args.all && args.redraw &&
      std::all_of(outcomes.begin(), outcomes.end(), [](const Outcome& o) { return o.out.empty(); })) {
    // Not one stored result: a wrong --out, not sixteen reproductions that never ran. Nothing
    // is written, so a committed results page is never replaced by an empty one.
    throw std::invalid_argument(fmt::format(
        "--all --redraw: no reproduction has stored data (seeds.csv) under {}; give the folder "
        "that holds the results (--out)",
        args.out_dir.empty() ? std::string("results") : args.out_dir));
  }
  if (!args.report.empty()) write_results_file(args.report, outcomes);
  return rc;
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
  cmd->add_flag("--list", args->list,
                "List the reproductions, their titles and how they differ from the papers");
  cmd->add_flag("--all", args->all,
                "Every reproduction in conf/experiments, each into results/NAME (or --out/NAME)");
  cmd->add_option("--seeds", args->seeds,
                  fmt::format("Seeds per point, from the experiment's seed: on (default {}; with "
                              "--small the file's small.seeds, else {})",
                              kDefaultSeeds, kSmallSeeds))
      ->check(CLI::Range(1u, 1000u));
  cmd->add_option("--report", args->report,
                  "Write a generated RESULTS-style markdown FILE: per result the command, the "
                  "paper, the differences, the tables, plots and verdicts, and the notes kept in "
                  "results/NAME/notes.md in FILE's folder (docs/results/NAME/notes.md for "
                  "--report docs/RESULTS.md); copies each result's small files there")
      ->check(conf::kNonEmptyPath);
  cmd->add_flag("--small", args->small,
                "The small version (the file's reproduce.small settings), as make test runs it");
  cmd->add_flag("--redraw", args->redraw,
                "Run nothing: draw the figures and judge the checks from the stored per-seed data "
                "(seeds.csv) in the folder; a verdict stored in verdicts.json is kept, and a "
                "stored `not reproduced` never becomes anything else");
  cmd->add_option("-o,--out", args->out_dir,
                  "Results folder (default: results/<experiment name>); each run is a subfolder "
                  "that a new run replaces whole")
      ->check(conf::kNonEmptyPath);
  cmd->add_option("--timeout", args->timeout_seconds,
                  "Wall-clock limit per variant in seconds (a variant stopped by it is incomplete)")
      ->check(conf::kPositiveNumber)
      ->capture_default_str();
  cmd->add_option("--threads", args->threads,
                  "Threads of each virtual-time run, one partition of the fabric each, at most the "
                  "fabric's pods or leaves (default: the CPUs this process may use; 1 on CPUs "
                  "other work keeps busy); results are the same for any N (docs/fabric.md)")
      ->check(CLI::Range(1u, 1024u));
  cmd->add_flag("--resume", args->resume,
                "Keep every variant whose folder under the results folder already holds a "
                "completed run of the same experiment (an interrupted reproduction keeps the "
                "variants it completed); run only the others (docs/reproduce.md)");
  cmd->add_flag("-n,--dry-run", args->dry_run, "Check the file, print the variants, run nothing");
  args->command_line = command_line;
  cmd->final_callback([args, exit_code] { *exit_code = reproduce(*args); });
}

}  // namespace spraylab::fabric
