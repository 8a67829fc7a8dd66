#include "fabric/runner/runner.h"
#include "fabric/emu/run_fabric.h"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>

#include "fabric/namespaced/plan.h"
#include "fabric/results/plots.h"
#include "fabric/results/progress_line.h"
#include "fabric/results/result_files.h"
#include "fabric/results/results_folder.h"
#include "fabric/results/seed_table.h"
#include "fabric/results/summary.h"
#include "fabric/results/table.h"
#include "fabric/run/stop_request.h"
#include "fabric/runner/resume.h"

namespace spraylab::fabric {
namespace {

namespace fs = std::filesystem;
using nlohmann::ordered_json;

constexpr const char* kMessageSizeKey = "workload.message_size";
// In a folder an interrupted run kept (RunOptions::keep_completed): what it holds.
constexpr const char* kInterruptedFile = "INTERRUPTED";
// A terminal line is redrawn often; a log gets a line now and then.
constexpr uint64_t kTerminalPeriodNs = 200'000'000;
constexpr uint64_t kLogPeriodNs = 2'000'000'000;

bool message_size_swept(const Variant& v) {
  return std::any_of(v.name_parts.begin(), v.name_parts.end(),
                     [](const NamePart& p) { return p.key == kMessageSizeKey; });
}

void on_stop_signal(int signal) { request_stop(signal); }

// SIGINT and SIGTERM ask the run to stop (request_stop()) while this lives; SA_RESETHAND gives a
// second signal its default action, so a run that does not stop soon enough can still be ended.
// A signal ignored when the run started stays ignored (catch_unless_ignored). The earlier
// handlers come back after.
class StopOnSignal {
 public:
  StopOnSignal() {
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    catch_unless_ignored(SIGINT, sa, old_int_);
    catch_unless_ignored(SIGTERM, sa, old_term_);
  }
  ~StopOnSignal() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }
  StopOnSignal(const StopOnSignal&) = delete;
  StopOnSignal& operator=(const StopOnSignal&) = delete;

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

std::string utc_now() {
  return fmt::format(
      "{:%Y-%m-%dT%H:%M:%SZ}",
      fmt::gmtime(std::chrono::system_clock::to_time_t(std::chrono::system_clock::now())));
}

// Facts of this run that differ between two runs of one experiment: kept out of summary.json.
ordered_json run_json(const Variant& v, const FabricResult& r, const RunOptions& options,
                      const std::string& started_at) {
  ordered_json j = {{"variant", v.name},
                    {"mode", mode_name(r.mode)},
                    {"command", options.command_line},
                    {"started_at", started_at},
                    {"wall_seconds", r.wall_seconds},
                    {"clock_ns", r.clock_ns},
                    {"events", r.events},
                    {"events_per_second", r.wall_seconds > 0 ? r.events / r.wall_seconds : 0.0},
                    {"eal_lcores", options.eal_lcores}};
  if (r.mode == Mode::kVirtual) {
    j["threads"] = r.threads;
    j["virtual_time_engine"] = kVirtualTimeEngine;
    j["frame_pool"] = {{"frames", r.pool_frames}, {"grown_in_window", r.pool_grown_in_window}};
  } else {
    // Wall-clock modes run the experiment k times slower when the machine cannot keep up with
    // its links (run/time_scale.h, docs/runner.md); their times are in that slower time.
    j["time_scale"] = r.time_scale;
  }
  if (r.mode == Mode::kNamespaced)
    j["links"] = namespaced::link_kind_name(options.namespaced.links);
  return j;
}

void write_variant(const std::string& dir, const Variant& v, const FabricResult& r,
                   const VariantSummary& s, const RunOptions& options,
                   const std::string& started_at) {
  // Written under a hidden name and renamed when whole: a run killed while writing leaves no
  // variant folder that a later --resume could take for a completed run (ResultsFolder's
  // leftovers).
  const fs::path done(dir);
  const fs::path base = done.parent_path() / fmt::format(".{}.writing", done.filename().string());
  std::error_code ignored;
  fs::remove_all(base, ignored);
  write_file((base / "config.yaml").string(),
             fmt::format("# {} of experiment {} ({}); spraylab run re-runs it as it ran.\n{}",
                         v.name, v.experiment.name, v.experiment.source, v.yaml));
  write_file((base / "summary.json").string(), json_text(to_json(s)));
  if (v.experiment.measurement.lists_messages()) {
    write_file((base / "generator.json").string(), json_text(r.generator));
  } else {
    // Everything but the per-message list: at scale it is nearly all of the file (tens of MB a
    // variant, a thousand variants a reproduction) and nothing reads it without plots.
    ordered_json g = ordered_json::object();
    for (const auto& [key, value] : r.generator.items()) {
      if (key != "messages") g[key] = value;
    }
    write_file((base / "generator.json").string(), json_text(g));
  }
  write_file((base / "run.json").string(), json_text(run_json(v, r, options, started_at)));
  if (v.experiment.measurement.wants("queues")) {
    write_file((base / "queues.csv").string(), queues_csv(r));
    write_file((base / "utilisation.csv").string(), utilisation_csv(r));
  }
  fs::rename(base, done);
}

PlotVariant plot_variant(const Variant& v, const FabricResult& r, const VariantSummary& s) {
  PlotVariant p;
  p.name = v.name;
  p.message_cct_ns = message_ccts(r.generator);
  p.queue_bytes = deepest_queue_over_time(r);
  p.max_queue_bytes = s.queue.max_bytes;
  if (message_size_swept(v)) {
    p.message_bytes = v.experiment.workload.message_bytes;
    for (const Setting& setting : v.settings) {
      if (setting.key == kMessageSizeKey) p.message_label = setting.value;
    }
    p.series = name_without(v, kMessageSizeKey);
  }
  return p;
}

// A reused variant's line: its CCT, as variant_line gives a run's.
std::string reused_line(const VariantSummary& s) {
  return s.cct_ns ? fmt::format("CCT {}", format_duration_ns(*s.cct_ns))
                  : std::string(gen::to_string(s.stopped_by));
}

// What plot_variant needs of an earlier run: its generator.json (message CCTs). Its queues over
// time are not kept in the folder unless queues.csv was asked for: a reused variant's queue line
// is missing from the plots.
// A kept variant's folder into the new results: hard links (the files are never written again,
// and the earlier folder goes when the new one takes its place), a copy where the file system
// has none. A reproduction resumed over 500 variants of 56 MB each copied 28 GB before.
void link_or_copy(const fs::path& from, const fs::path& to) {
  std::error_code error;
  fs::copy(from, to, fs::copy_options::recursive | fs::copy_options::create_hard_links, error);
  if (!error) return;
  fs::remove_all(to, error);
  fs::copy(from, to, fs::copy_options::recursive);
}

FabricResult earlier_result(const fs::path& folder) {
  FabricResult r;
  std::ifstream in(folder / "generator.json");
  if (in) r.generator = ordered_json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (r.generator.is_discarded()) r.generator = ordered_json::object();
  return r;
}

// A variant's line when it ends; in virtual time with the threads it ran on (--threads' default
// depends on the machine, and a thread per partition at most).
std::string variant_line(const std::string& label, const VariantSummary& s, const FabricResult& r) {
  const std::string cct =
      s.cct_ns ? fmt::format("CCT {}", format_duration_ns(*s.cct_ns)) : "incomplete";
  const std::string threads = r.mode == Mode::kVirtual ? fmt::format(" on {} thread{}", r.threads,
                                                                     r.threads == 1 ? "" : "s")
                                                       : "";
  return fmt::format("{}: {} ({}), messages {}/{}, max queue {:.1f} KB, wall {:.2f} s{}", label,
                     cct, gen::to_string(s.stopped_by), s.messages_completed, s.messages,
                     s.queue.max_bytes / 1e3, r.wall_seconds, threads);
}

}  // namespace

std::string default_out_dir(const conf::Experiment& experiment) {
  // One folder: the loader checks a name the file gives, expand_variants the file's stem.
  return (fs::path("results") / experiment.name).string();
}

namespace {

// The results folder, and how errors name it.
std::string out_dir(const std::vector<Variant>& variants, const RunOptions& options,
                    std::string* label) {
  if (!options.out_dir.empty()) {
    *label = "--out " + options.out_dir;
    return options.out_dir;
  }
  const std::string out = default_out_dir(variants[0].experiment);
  *label = "results folder " + out + " (the default; --out names another)";
  return out;
}

}  // namespace

void check_out_dir(const std::vector<Variant>& variants, const RunOptions& options) {
  if (variants.empty()) return;
  std::string label;
  const std::string out = out_dir(variants, options, &label);
  ResultsFolder::check(out, label);
}

namespace {

FabricOptions fabric_options(const Variant& v, const RunOptions& options, ProgressLine& progress,
                             const std::string& label) {
  FabricOptions fo;
  fo.mode = options.mode;
  fo.lcores = options.lcores;
  fo.threads = options.threads;
  fo.max_wall_seconds = options.max_wall_seconds;
  fo.inprocess_rate_bps = options.inprocess_rate_bps;
  fo.switch_metrics = options.switch_metrics;
  // run_fabric takes max_clock_ns instead of measurement.duration: pass the shorter.
  fo.max_clock_ns = options.max_clock_ns;
  const uint64_t duration = v.experiment.measurement.duration_ns;
  if (duration > 0 && (fo.max_clock_ns == 0 || duration < fo.max_clock_ns)) {
    fo.max_clock_ns = duration;
  }
  fo.progress_period_ns = progress.terminal() ? kTerminalPeriodNs : kLogPeriodNs;
  fo.progress = [&progress, label](const Progress& p) { progress.update(label, p); };
  return fo;
}

// The table on stdout and in DIR/summary.{txt,csv,json}.
void write_comparison(const std::string& out, const std::string& experiment,
                      const std::string& title, Mode mode,
                      const std::vector<VariantSummary>& summaries) {
  const std::string table = format_table(summaries);
  fmt::print("\n{}{}: {} mode, {} variant{}\n{}", experiment,
             title.empty() ? "" : fmt::format(" ({})", title), mode_name(mode), summaries.size(),
             summaries.size() == 1 ? "" : "s", table);
  std::fflush(stdout);
  write_file((fs::path(out) / "summary.txt").string(), table);
  write_file((fs::path(out) / "summary.csv").string(), format_csv(summaries));
  ordered_json all = {
      {"experiment", experiment}, {"mode", mode_name(mode)}, {"variants", ordered_json::array()}};
  for (const VariantSummary& s : summaries) all["variants"].push_back(to_json(s));
  write_file((fs::path(out) / "summary.json").string(), json_text(all));
}

// --seeds: the table of means and 95 % intervals over seeds, on stdout and in
// DIR/summary_seeds.{txt,csv}.
void write_seed_comparison(const std::string& out, const std::vector<VariantSummary>& summaries) {
  const std::string table = format_seed_table(summaries);
  fmt::print("\nmean ± 95 % confidence interval over seeds (Student t):\n{}", table);
  std::fflush(stdout);
  write_file((fs::path(out) / "summary_seeds.txt").string(), table);
  write_file((fs::path(out) / "summary_seeds.csv").string(), format_seed_csv(summaries));
}

}  // namespace

int run_variants(const std::vector<Variant>& variants, const RunOptions& options) {
  if (variants.empty()) return 0;
  std::string out_label;
  const std::string out = out_dir(variants, options, &out_label);
  // Checked and created now, not after the first variant ran; written in full before it
  // replaces an earlier run's folder.
  ResultsFolder folder(out, out_label, /*adopt_leftovers=*/options.resume);
  const fs::path dir(folder.staging());
  const std::vector<std::string> leftovers = folder.leftovers();
  ProgressLine progress(stderr, ::isatty(STDERR_FILENO) != 0);
  const auto started = std::chrono::steady_clock::now();

  // The namespaced fabric outlives a variant when the next differs in its balancer only.
  std::unique_ptr<NamespacedRunner> namespaced;
  std::unique_ptr<StopOnSignal> stop_on_signal;
  if (options.mode == Mode::kNamespaced) {
    namespaced = std::make_unique<NamespacedRunner>(options.namespaced);
  } else {
    stop_on_signal = std::make_unique<StopOnSignal>();
  }
  std::vector<VariantSummary> summaries;
  std::vector<PlotVariant> plots;
  bool want_plots = false;
  size_t reused = 0;
  for (size_t i = 0; i < variants.size(); ++i) {
    const Variant& v = variants[i];
    const std::string label = fmt::format("[{}/{}] {}", i + 1, variants.size(), v.name);
    // A note repeats for every variant of an algorithm (and every run of a reproduction): once.
    static std::set<std::string> said;
    for (const std::string& note : v.notes) {
      if (said.insert(note).second) progress.print("note: " + note);
    }
    if (options.resume) {
      // The earlier results folder first, then the folders of runs killed outright (newest
      // first), which hold the variants they completed.
      std::vector<fs::path> places{fs::path(out) / v.name};
      for (const std::string& l : leftovers) places.push_back(fs::path(l) / v.name);
      std::string why_not;
      std::optional<VariantSummary> s;
      fs::path earlier;
      for (const fs::path& place : places) {
        std::string why;
        s = reusable_run(place.string(), v, &why);
        if (s) {
          earlier = place;
          break;
        }
        if (place == places.front()) why_not = why;
      }
      if (s) {
        link_or_copy(earlier, dir / v.name);
        progress.print(fmt::format("{}: the earlier run in {}{} stands ({})", label,
                                   earlier.lexically_normal().string(),
                                   earlier == places.front() ? "" : " (a killed run's folder)",
                                   reused_line(*s)));
        // Its message CCTs (generator.json: tens of MB for a big run) only for a plot.
        const bool plotted = v.experiment.measurement.wants("plots");
        plots.push_back(plot_variant(v, plotted ? earlier_result(earlier) : FabricResult{}, *s));
        want_plots = want_plots || plotted;
        summaries.push_back(std::move(*s));
        ++reused;
        continue;
      }
      if (fs::exists(places.front())) {
        progress.print(fmt::format("{}: runs again: {}", label, why_not));
      }
    }
    const std::string started_at = utc_now();
    const FabricOptions fo = fabric_options(v, options, progress, label);
    const FabricResult result = [&] {
      try {
        return namespaced ? namespaced->run(v.yaml, fo) : run_fabric(v.experiment, fo);
      } catch (const std::runtime_error&) {
        // The namespaced fabric ends its waits with an error when a signal comes: it was taken
        // down, and the run ends as any interrupted one. Any other error is itself.
        if (!namespaced || !stop_requested()) throw;
        return FabricResult{};
      }
    }();
    if (stop_requested()) {
      if (options.keep_completed && !summaries.empty()) {
        // Hours of completed variants are worth more than the earlier folder's promise to stay
        // as it was: they replace it, and --resume runs the rest.
        write_file((dir / kInterruptedFile).string(),
                   fmt::format("interrupted at {} ({}): {} of {} variants completed; the tables "
                               "are written when --resume completes the rest\n",
                               utc_now(), v.name, summaries.size(), variants.size()));
        folder.commit();
        throw Interrupted(fmt::format(
            "interrupted during {}: the {} variant(s) completed are kept in {}/ (no tables); "
            "--resume runs the rest",
            label, summaries.size(), out));
      }
      throw Interrupted(
          fmt::format("interrupted during {}: no results written ({}/ is as it was)", label, out));
    }
    VariantSummary s = summarize(result, v.name, v.algorithm, mode_name(result.mode));
    write_variant((dir / v.name).string(), v, result, s, options, started_at);
    progress.print(variant_line(label, s, result));
    want_plots = want_plots || v.experiment.measurement.wants("plots");
    plots.push_back(plot_variant(v, result, s));
    summaries.push_back(std::move(s));
  }
  if (namespaced) namespaced->finish();  // down before the table and plots
  write_comparison(dir.string(), variants[0].experiment.name, options.title, options.mode,
                   summaries);
  if (options.seeds) write_seed_comparison(dir.string(), summaries);
  if (want_plots) {
    progress.print(folder.shown(draw_plots((dir / "plots").string(), plots).message));
  }
  // A signal while the table and plots were written (it may also have ended gnuplot): the staged
  // folder is dropped as after any interrupted variant, not committed half-drawn.
  if (stop_requested()) {
    throw Interrupted(fmt::format(
        "interrupted while writing the results: no results written ({}/ is as it was)", out));
  }
  folder.commit();

  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const auto incomplete = std::count_if(summaries.begin(), summaries.end(),
                                        [](const VariantSummary& s) { return !s.completed; });
  progress.print(fmt::format(
      "results in {}/ ({:.1f} s wall{}{})", out, wall,
      reused ? fmt::format(", {} variant(s) from the earlier run", reused) : "",
      incomplete ? fmt::format(", {} variant(s) did not complete", incomplete) : ""));
  return incomplete ? 1 : 0;
}

}  // namespace spraylab::fabric
