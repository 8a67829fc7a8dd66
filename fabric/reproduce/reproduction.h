// A reproduction of a paper's result: the `reproduce:` section of an experiment file
// (docs/reproduce.md). It names the runs (each one `spraylab run`: algorithms, sweeps, sets),
// a smaller version for tests (`small`), the figures drawn from the runs' summaries and the
// checks that decide whether the paper's shape holds.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "conf/experiment.h"
#include "fabric/reproduce/packet_size_model.h"
#include "fabric/reproduce/verdict.h"
#include "fabric/run/variants.h"

namespace spraylab::fabric {

struct ReproRun {
  std::string name;   // its folder under the reproduction's results folder
  std::string label;  // series name of its variants; empty: the algorithm
  std::vector<std::string> algorithms;
  std::vector<Sweep> sweeps;
  std::vector<Sweep> sets;
};

// A value the paper gives: a horizontal line (y only), a point (x and y), or the value of one
// series (series and y; at every x of that series, or its bar).
struct Mark {
  std::string label;
  std::optional<double> x;
  double y = 0;
  std::string series;
};

// A model's curve drawn beside the measured series (`models:`): a series named `name` whose
// value at every x the figure has (and at the model's optimum) is the closed form's, not a
// measurement. One formula so far: Ofan's Theorem 6 over the payload (packet_size_model.h).
enum class ModelFormula { kOfanTheorem6 };
inline constexpr std::array<std::string_view, 1> kModelFormulaNames = {"ofan-theorem-6"};

struct ModelCurve {
  std::string name;
  ModelFormula formula = ModelFormula::kOfanTheorem6;
  PacketSizeModel packet_size;  // kOfanTheorem6: x is the payload in bytes
};

struct Figure {
  std::string name;  // file stem under figures/
  std::string title;
  std::string x;       // a swept key, or "variant"
  std::string source;  // optional: a CSV in each variant's folder; x and y are its columns
  std::string y;       // a dotted path into summary.json, or the source's column
  std::string x_label;
  std::string y_label;
  double x_divide = 1;
  double y_divide = 1;
  // relative_to: y is drawn as the percentage above a reference, 100 · (y / ref − 1): the
  // number at this dotted path of the same summary ("bound" is cct.bound_ns, the variant's CCT
  // lower bound), or a constant in the plotted unit (after y_divide). Empty: y as it is.
  std::string relative_to;
  std::optional<double> relative_to_value;
  bool log_x = false;
  bool log_y = false;
  bool fit_loglog = false;
  std::vector<Mark> marks;
  std::vector<std::string> runs;  // optional: only these runs' variants (default: every run's)
  std::vector<ModelCurve> models;
  bool by_variant() const { return x == "variant"; }
};

enum class CheckKind {
  kSlopeBelow,
  kSlopeBetween,
  kMaxAtMost,
  kMinAtLeast,
  kBelowSeries,
  kRatioAtMost,
  kPaper  // against the paper's number: a verdict (verdict.h)
};

// What a check is (docs/reproduce.md, "Checks"): against the paper's number, with a verdict; an
// ordering of two series (no number), pass or fail; or a threshold whose number is not traced to
// the paper (kept as written, pass or fail, listed as to be replaced by the paper's number).
enum class CheckRole { kPaper, kOrdering, kThreshold };
inline constexpr std::array<std::string_view, 3> kCheckRoleNames = {"paper", "ordering",
                                                                    "threshold"};

// What a paper check measures, per seed: the series' y at x (a bar: its value), its ratio to or
// difference from another series' y at the same x and seed, its log-log slope over x, the x
// at which it is lowest (argmin; with `to:`, that x over the other series' own), or its largest
// y over every x (max; with `to:`, over the other series' own max): with y the accepted load and
// x the offered load, the saturation throughput (the MRLS paper's §5.2 throughput).
enum class Measure { kValue, kRatio, kDifference, kSlope, kArgmin, kMax };
inline constexpr std::array<std::string_view, 6> kMeasureNames = {"value", "ratio",  "difference",
                                                                  "slope", "argmin", "max"};

// A check about the best (or worst) of several series: per x and seed, the smallest (or largest)
// of their values ("the better of AR and REPS": `series: [ar, REPS], pick: min`).
enum class Pick { kMin, kMax };
inline constexpr std::array<std::string_view, 2> kPickNames = {"min", "max"};

struct Check {
  std::string figure;
  std::string series;               // one series, or "min(a, b)" when `picked` is not empty
  std::vector<std::string> picked;  // a list of series: per x and seed their min or max
  Pick pick = Pick::kMin;
  CheckKind kind = CheckKind::kSlopeBelow;
  CheckRole role = CheckRole::kThreshold;
  double a = 0;       // the bound (slope_between: the lower one; ratio_at_most: the ratio)
  double b = 0;       // slope_between: the upper bound
  std::string other;  // below_series, ratio_at_most, ratio, difference: the series compared with
  std::string text;   // for the report: "log-log slope < 0.15"
  // kPaper: what is measured, at which x (as the sweep writes it; empty for a bar), the paper's
  // value and where it says so, and the rule (verdict.h).
  Measure measure = Measure::kValue;
  std::string at;
  // `from:` an x: the measure at `at` over the same measure at `from`, per seed (how a gap
  // changes along x); empty: the measure at `at` itself.
  std::string from;
  std::string where;
  std::string tolerance_text;  // as written: "10%"
  VerdictRule rule;
  // Names the check in verdicts.json: `id:` or figure/series/measure[@at][/other].
  std::string id;
  // A hash of the check as written (every key, the note too): a stored verdict whose hash
  // differs belongs to an earlier version of the check.
  std::string hash;
};

// One way the experiment differs from the paper's setting (`differences:`), printed in every
// report: the setting, the paper's value, ours, and why.
struct Difference {
  std::string setting;
  std::string paper;
  std::string here;
  std::string why;
};

struct Reproduction {
  std::string name;  // the experiment's name: results/<name>/
  std::string title;
  std::string paper;
  // What a full-size run took on the machine the results come from ("30 minutes"): `--list`
  // shows it, so that nobody starts one unawares; "" when not recorded.
  std::string run_time;
  std::vector<ReproRun> runs;
  std::vector<Sweep> small_sets;    // --small: set in every run
  std::vector<Sweep> small_sweeps;  // --small: replaces (or adds) that key's sweep in every run
  std::vector<Figure> figures;
  std::vector<Check> checks;
  std::vector<Difference> differences;
  // --small: how many seeds when --seeds is not given (default kSmallSeeds).
  uint32_t small_seeds = 0;
};

// Seeds per point when --seeds is not given: the full size, and --small (make test).
inline constexpr uint32_t kDefaultSeeds = 10;
inline constexpr uint32_t kSmallSeeds = 3;

// Reads the `reproduce:` section of the experiment text `yaml`, which the loader loaded into
// `experiment` (its name and source; a model's default m and C). Throws conf::ConfigError naming
// the file, line, column and key for anything malformed: a missing section, a run without a name,
// a figure a check names that does not exist, ...
Reproduction read_reproduction(const std::string& yaml, const conf::Experiment& experiment);

// The same, loading the experiment from `yaml` (from `source`) first.
Reproduction read_reproduction(const std::string& yaml, const std::string& source,
                               const std::string& experiment_name);

// The runs as they execute: with `small`, the small section's sets and sweeps applied; with
// `seeds` (non-empty values), every run swept over them last. Throws std::invalid_argument when
// a run sweeps or sets the seed itself (--seeds does).
std::vector<ReproRun> runs_to_execute(const Reproduction& reproduction, bool small,
                                      const Sweep& seeds = {});

// The series a variant of `run` belongs to in `figure`: the run's label (or the algorithm) and
// any swept value that is not the figure's x (nor of a key the run sweeps over one value).
std::string series_name(const ReproRun& run, const Variant& variant, const Figure& figure);

}  // namespace spraylab::fabric
