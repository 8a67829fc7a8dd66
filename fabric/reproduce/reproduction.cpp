#include "fabric/reproduce/reproduction.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <limits>

#include "conf/experiment.h"
#include "conf/loader.h"
#include "conf/units.h"
#include "conf/yaml_value.h"
#include "net/wire.h"

namespace spraylab::fabric {
namespace {

using conf::Map;
using conf::Value;

constexpr double kAny = std::numeric_limits<double>::max();
constexpr std::string_view kBoundPath = "cct.bound_ns";  // relative_to: bound

// A YAML value as --sweep/--set would take it: scalars as written, maps and lists in flow style.
std::string yaml_text(const YAML::Node& node) {
  if (node.IsScalar()) return node.Scalar();
  YAML::Emitter out;
  out.SetMapFormat(YAML::Flow);
  out.SetSeqFormat(YAML::Flow);
  out << node;
  return out.c_str();
}

std::vector<std::string> strings(const Value& list) {
  std::vector<std::string> out;
  for (const Value& v : list.as_list()) out.push_back(v.as_string());
  return out;
}

// `sweep:` — key: [values] — in the order written; `set:` — key: value.
std::vector<Sweep> read_sweeps(const Value& value, bool one_value, const std::string& option) {
  std::vector<Sweep> out;
  const Map map = value.as_map();
  for (const Map::Entry& e : map.entries()) {
    Sweep s{e.key, {}};
    if (one_value) {
      s.values.push_back(yaml_text(e.value.node()));
    } else {
      if (!e.value.node().IsSequence() || e.value.node().size() == 0) {
        e.value.expected("a non-empty list of values");
      }
      for (const Value& v : e.value.as_list()) s.values.push_back(yaml_text(v.node()));
    }
    // The same checks as the command line's: a malformed key path, a duplicate value.
    std::string text = s.key + "=";
    for (size_t i = 0; i < s.values.size(); ++i) text += (i ? "," : "") + s.values[i];
    try {
      parse_sweep(one_value ? s.key + "=" + s.values[0] : text, option);
    } catch (const std::invalid_argument& error) {
      e.value.fail(error.what());
    }
    out.push_back(std::move(s));
  }
  return out;
}

ReproRun read_run(const Value& value) {
  const Map map = value.as_map();
  static constexpr std::array<std::string_view, 5> kKeys = {"name", "label", "algorithms", "sweep",
                                                            "set"};
  map.allow_only(kKeys);
  ReproRun run;
  run.name = map.require("name", "the run's folder name").as_string();
  if (run.name.find('/') != std::string::npos || run.name.starts_with(".") ||
      run.name == "figures") {
    map.require("name", "").fail("a run name is one folder: no '/', no leading '.', not 'figures'");
  }
  if (const Value* v = map.find("label")) run.label = v->as_string();
  if (const Value* v = map.find("algorithms")) run.algorithms = strings(*v);
  if (const Value* v = map.find("sweep")) run.sweeps = read_sweeps(*v, false, "sweep");
  if (const Value* v = map.find("set")) run.sets = read_sweeps(*v, true, "set");
  return run;
}

Mark read_mark(const Value& value) {
  const Map map = value.as_map();
  static constexpr std::array<std::string_view, 4> kKeys = {"label", "x", "y", "series"};
  map.allow_only(kKeys);
  Mark mark;
  mark.label = map.require("label", "what the paper's value is").as_string();
  mark.y = map.require("y", "the paper's value").as_number(-kAny, kAny);
  if (const Value* v = map.find("x")) mark.x = v->as_number(-kAny, kAny);
  if (const Value* v = map.find("series")) mark.series = v->as_string();
  return mark;
}

// What a model takes when its own map does not say: the experiment's message size and link rate
// (as the loader resolved them), and spraylab's frame: a data packet's bytes on the wire beyond
// its payload (headers, FCS, preamble and gap: 82 + 4 + 20).
struct ModelDefaults {
  std::optional<double> message_bytes;
  std::optional<double> rate_bps;
  double header_bytes = conf::BufferSpec::kFrameHeaderBytes + net::kWireOverhead;
};

// Whether a run or the small version sets or sweeps `key`.
bool changed_by_a_run(const Reproduction& r, std::string_view key) {
  const auto names = [key](const std::vector<Sweep>& sweeps) {
    return std::any_of(sweeps.begin(), sweeps.end(),
                       [key](const Sweep& s) { return s.key == key; });
  };
  if (names(r.small_sets) || names(r.small_sweeps)) return true;
  return std::any_of(r.runs.begin(), r.runs.end(), [&names](const ReproRun& run) {
    return names(run.sets) || names(run.sweeps);
  });
}

// Only a value the file writes is a default: the loader's own default is no m or C anyone chose
// for the model. And a run or the small version that sets or sweeps the key runs other values than
// the top of the file says: no default then, the model must name its own (one curve, one m and C).
ModelDefaults model_defaults(const Map& top, const conf::Experiment& experiment,
                             const Reproduction& r) {
  const auto written = [&top](std::string_view section, std::string_view key) {
    const Value* v = top.find(section);
    return v != nullptr && v->as_map().find(key) != nullptr;
  };
  ModelDefaults d;
  if (written("workload", "message_size") && !changed_by_a_run(r, "workload.message_size")) {
    d.message_bytes = static_cast<double>(experiment.workload.message_bytes);
  }
  if (written("links", "rate") && !changed_by_a_run(r, "links.rate")) {
    d.rate_bps = experiment.links.rate_bps;
  }
  return d;
}

// A number with a unit ("1MiB", "800Gbps", "6us") from the model's map, or the file's default.
double model_number(const Map& map, const char* key, std::optional<double> (*parse)(const Value&),
                    std::optional<double> fallback, const char* what) {
  if (const Value* v = map.find(key)) {
    const std::optional<double> n = parse(*v);
    if (!n || !(*n > 0)) v->expected(what);
    return *n;
  }
  if (!fallback) {
    map.require(key, fmt::format("{} (the file sets none to default to, or a run or small: "
                                 "sets or sweeps it)",
                                 what));
  }
  return *fallback;
}

std::optional<double> size_of(const Value& v) {
  const auto bytes = conf::parse_size_bytes(v.as_string());
  return bytes ? std::optional<double>(static_cast<double>(*bytes)) : std::nullopt;
}
std::optional<double> rate_of(const Value& v) { return conf::parse_rate_bps(v.as_string()); }

ModelCurve read_model(const Value& value, const Figure& figure, const ModelDefaults& defaults) {
  const Map map = value.as_map();
  static constexpr std::array<std::string_view, 7> kKeys = {
      "name", "formula", "alpha", "latency", "message", "rate", "header"};
  map.allow_only(kKeys);
  ModelCurve m;
  m.name = map.require("name", "the model's series name").as_string();
  const Value& formula = map.require("formula", "the closed form drawn: ofan-theorem-6");
  m.formula =
      static_cast<ModelFormula>(std::find(kModelFormulaNames.begin(), kModelFormulaNames.end(),
                                          formula.as_choice(kModelFormulaNames)) -
                                kModelFormulaNames.begin());
  if (figure.x != "workload.payload" || figure.by_variant() || !figure.source.empty() ||
      !figure.relative_to.empty()) {
    formula.fail(
        "ofan-theorem-6 draws the CCT over the payload: a figure with x: workload.payload, "
        "no source and no relative_to");
  }
  PacketSizeModel& p = m.packet_size;
  p.alpha = map.require("alpha", "the packets of queueing the model assumes").as_number(1e-9, kAny);
  const Value& latency = map.require("latency", "the zero-load RTT the model adds (6us)");
  const std::optional<double> ns = conf::parse_time_ns(latency.as_string());
  if (!ns || *ns < 0) latency.expected("a time such as 6us");
  p.latency_ns = *ns;
  p.message_bytes = model_number(map, "message", size_of, defaults.message_bytes,
                                 "the message size m, such as 1MiB");
  p.rate_bps = model_number(map, "rate", rate_of, defaults.rate_bps, "the link rate C, 800Gbps");
  p.header_bytes = model_number(map, "header", size_of, defaults.header_bytes,
                                "a packet's bytes beyond its payload H, such as 106B");
  return m;
}

Figure read_figure(const Value& value, const ModelDefaults& defaults) {
  const Map map = value.as_map();
  static constexpr std::array<std::string_view, 16> kKeys = {
      "name",     "title", "x",   "source", "y",      "x_label", "y_label",     "x_divide",
      "y_divide", "log",   "fit", "marks",  "series", "runs",    "relative_to", "models"};
  map.allow_only(kKeys);
  Figure f;
  f.name = map.require("name", "the figure's file name").as_string();
  if (f.name.find('/') != std::string::npos || f.name.starts_with(".")) {
    map.require("name", "").fail("a figure name is one file stem: no '/', no leading '.'");
  }
  f.title = map.find("title") ? map.find("title")->as_string() : f.name;
  f.x = map.require("x", "a swept key, or variant").as_string();
  f.y = map.require("y", "a dotted path into summary.json").as_string();
  if (const Value* v = map.find("source")) f.source = v->as_string();
  if (!f.source.empty() && f.by_variant()) {
    map.require("x", "").fail("with source, x is a column of the source file");
  }
  f.x_label = map.find("x_label") ? map.find("x_label")->as_string() : f.x;
  f.y_label = map.find("y_label") ? map.find("y_label")->as_string() : f.y;
  if (const Value* v = map.find("x_divide")) f.x_divide = v->as_number(1e-300, kAny);
  if (const Value* v = map.find("y_divide")) f.y_divide = v->as_number(1e-300, kAny);
  if (const Value* v = map.find("relative_to")) {
    if (!f.source.empty()) v->fail("relative_to reads a summary; a figure with source has none");
    const std::string text = v->as_string();
    char* end = nullptr;
    const double constant = std::strtod(text.c_str(), &end);
    if (!text.empty() && *end == '\0') {
      if (!(constant > 0)) v->fail("a constant reference must be > 0");
      f.relative_to_value = constant;
    } else if (text.empty() || text.find(' ') != std::string::npos) {
      v->expected("bound, a dotted path into summary.json, or a number");
    }
    f.relative_to = text == "bound" ? std::string(kBoundPath) : text;
  }
  if (const Value* v = map.find("log")) {
    static constexpr std::array<std::string_view, 4> kLog = {"none", "x", "y", "xy"};
    const std::string log = v->as_choice(kLog);
    f.log_x = log == "x" || log == "xy";
    f.log_y = log == "y" || log == "xy";
  }
  if (const Value* v = map.find("fit")) {
    static constexpr std::array<std::string_view, 2> kFit = {"none", "loglog"};
    f.fit_loglog = v->as_choice(kFit) == "loglog";
    if (f.fit_loglog && f.by_variant()) v->fail("a fit needs a numeric x, not variant");
  }
  if (const Value* v = map.find("marks")) {
    for (const Value& m : v->as_list()) f.marks.push_back(read_mark(m));
  }
  if (const Value* v = map.find("runs")) {
    for (const Value& r : v->as_list()) f.runs.push_back(r.as_string());
  }
  if (const Value* v = map.find("models")) {
    for (const Value& m : v->as_list()) f.models.push_back(read_model(m, f, defaults));
  }
  return f;
}

std::string fnv1a_hex(const std::string& text) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return fmt::format("{:016x}", h);
}

const Figure& figure_of(const Map& map, const std::vector<Figure>& figures, Check& c) {
  const Value& figure = map.require("figure", "the name of a figure of this reproduction");
  c.figure = figure.as_string();
  const auto it = std::find_if(figures.begin(), figures.end(),
                               [&c](const Figure& f) { return f.name == c.figure; });
  if (it == figures.end()) figure.fail(fmt::format("no figure is named '{}'", c.figure));
  return *it;
}

// `series:` one name, or a list with `pick: min | max` (a paper check's only): per x and seed the
// smallest or largest of the series' values.
void read_series(const Map& map, bool paper, Check& c) {
  const Value& series = map.require("series", "the series the check is about");
  const Value* pick = map.find("pick");
  if (!series.node().IsSequence()) {
    if (pick != nullptr) pick->fail("pick: chooses among a list of series; series: is one name");
    c.series = series.as_string();
    return;
  }
  if (!paper) series.fail("a list of series is read only by a check with paper:");
  for (const Value& name : series.as_list()) c.picked.push_back(name.as_string());
  if (c.picked.size() < 2) series.expected("a list of at least two series");
  const Value& how = map.require("pick", "min or max: which of the listed series' values counts");
  c.pick = how.as_choice(kPickNames) == "min" ? Pick::kMin : Pick::kMax;
  c.series =
      fmt::format("{}({})", kPickNames[static_cast<size_t>(c.pick)], fmt::join(c.picked, ", "));
}

// A check against the paper's number: paper, where, tolerance, measure (and at, to, no_effect).
void read_paper_check(const Map& map, const Figure& figure, Check& c) {
  c.kind = CheckKind::kPaper;
  c.role = CheckRole::kPaper;
  c.rule.paper = map.require("paper", "").as_number(-kAny, kAny);
  c.where = map.require("where", "where the paper gives the number (section, figure)").as_string();
  const Value& tolerance = map.require("tolerance", "relative (10%) or absolute (0.05)");
  c.tolerance_text = tolerance.as_string();
  const std::optional<Tolerance> t = parse_tolerance(c.tolerance_text);
  if (!t) tolerance.expected("a relative tolerance such as 10% or an absolute one such as 0.05");
  c.rule.tolerance = *t;
  if (const Value* v = map.find("bound")) {
    static constexpr std::array<std::string_view, 2> kBounds = {"at_least", "at_most"};
    c.rule.bound = v->as_choice(kBounds) == "at_least" ? Bound::kAtLeast : Bound::kAtMost;
  }
  const Value& measure =
      map.require("measure", "value, ratio, difference, slope, argmin or max (docs/reproduce.md)");
  c.measure = static_cast<Measure>(
      std::find(kMeasureNames.begin(), kMeasureNames.end(), measure.as_choice(kMeasureNames)) -
      kMeasureNames.begin());
  const bool two_series = c.measure == Measure::kRatio || c.measure == Measure::kDifference;
  // A slope, an argmin and a max span every x; a bar has one value.
  const bool extreme = c.measure == Measure::kArgmin || c.measure == Measure::kMax;
  const bool over_x = c.measure == Measure::kSlope || extreme;
  if (const Value* v = map.find("to")) {
    if (!two_series && !extreme) {
      v->fail("to: names the other series of a ratio, a difference, an argmin or a max");
    }
    c.other = v->as_string();
  } else if (two_series) {
    map.require("to", "the series the ratio or difference is taken to");
  }
  if (const Value* v = map.find("at")) {
    if (over_x || figure.by_variant()) {
      v->fail(
          "at: is an x of a line figure; a slope, a max or an argmin spans every x and a bar "
          "has one value");
    }
    c.at = v->as_string();
  } else if (!over_x && !figure.by_variant()) {
    map.require("at", "the x (as the sweep writes it) the value is read at");
  }
  if (const Value* v = map.find("from")) {
    if (c.at.empty()) v->fail("from: is the x a value, ratio or difference at `at` is divided by");
    c.from = v->as_string();
  }
  if (c.measure == Measure::kSlope && (figure.by_variant() || !figure.fit_loglog)) {
    measure.fail(fmt::format(
        "a slope needs a figure over a numeric x with fit: loglog; {} has none", figure.name));
  }
  if (extreme && figure.by_variant()) {
    measure.fail(fmt::format("{} needs a figure over a numeric x, not variant",
                             c.measure == Measure::kArgmin ? "an argmin" : "a max"));
  }
  if (const Value* v = map.find("no_effect")) {
    c.rule.no_effect = v->as_number(-kAny, kAny);
  } else if (c.measure == Measure::kRatio || !c.from.empty() ||
             (c.measure == Measure::kMax && !c.other.empty())) {
    c.rule.no_effect = 1;  // a ratio, or a measure that did not change from `from` to `at`
  } else if (c.measure == Measure::kDifference || c.measure == Measure::kSlope) {
    c.rule.no_effect = 0;
  }
  const std::string measure_name(kMeasureNames[static_cast<size_t>(c.measure)]);
  const std::string what = c.measure == Measure::kSlope   ? std::string("log-log slope")
                           : c.measure == Measure::kValue ? std::string("value")
                           : c.other.empty()              ? measure_name
                           : extreme ? fmt::format("{0} over {1}'s {0}", measure_name, c.other)
                                     : fmt::format("{} to {}", measure_name, c.other);
  const std::string_view relation = c.rule.bound == Bound::kAtLeast  ? "≥"
                                    : c.rule.bound == Bound::kAtMost ? "≤"
                                                                     : "=";
  const std::string where_x = c.at.empty()     ? ""
                              : c.from.empty() ? " at " + c.at
                                               : fmt::format(" at {} / at {}", c.at, c.from);
  c.text = fmt::format("{}{} {} {} ± {} ({})", what, where_x, relation, c.rule.paper,
                       c.tolerance_text, c.where);
  c.id = fmt::format("{}/{}/{}{}{}", c.figure, c.series, measure_name,
                     c.at.empty()     ? ""
                     : c.from.empty() ? "@" + c.at
                                      : fmt::format("@{}..{}", c.from, c.at),
                     c.other.empty() ? "" : "/" + c.other);
}

// An ordering (below_series) or a threshold not traced to a paper (the others), pass or fail.
void read_legacy_check(const Value& value, const Map& map, Check& c) {
  int kinds = 0;
  if (const Value* v = map.find("slope_below")) {
    c.kind = CheckKind::kSlopeBelow;
    c.a = v->as_number(-kAny, kAny);
    c.text = fmt::format("log-log slope < {}", c.a);
    ++kinds;
  }
  if (const Value* v = map.find("slope_between")) {
    c.kind = CheckKind::kSlopeBetween;
    const std::vector<Value> bounds = v->as_list();
    if (bounds.size() != 2) v->expected("[lower, upper]");
    c.a = bounds[0].as_number(-kAny, kAny);
    c.b = bounds[1].as_number(c.a, kAny);
    c.text = fmt::format("log-log slope in [{}, {}]", c.a, c.b);
    ++kinds;
  }
  if (const Value* v = map.find("max_at_most")) {
    c.kind = CheckKind::kMaxAtMost;
    c.a = v->as_number(-kAny, kAny);
    c.text = fmt::format("every value ≤ {}", c.a);
    ++kinds;
  }
  if (const Value* v = map.find("min_at_least")) {
    c.kind = CheckKind::kMinAtLeast;
    c.a = v->as_number(-kAny, kAny);
    c.text = fmt::format("every value ≥ {}", c.a);
    ++kinds;
  }
  if (const Value* v = map.find("below_series")) {
    c.kind = CheckKind::kBelowSeries;
    c.other = v->as_string();
    c.text = fmt::format("below {} at every x", c.other);
    ++kinds;
  }
  if (const Value* v = map.find("ratio_at_most")) {
    const Map ratio = v->as_map();
    static constexpr std::array<std::string_view, 2> kRatio = {"series", "ratio"};
    ratio.allow_only(kRatio);
    c.kind = CheckKind::kRatioAtMost;
    c.other = ratio.require("series", "the series compared with").as_string();
    c.a = ratio.require("ratio", "the largest ratio allowed").as_number(0, kAny);
    c.text = fmt::format("at most {} × {} at every x", c.a, c.other);
    ++kinds;
  }
  if (kinds != 1) {
    value.fail(
        "a check has paper: (with where, tolerance, measure) or exactly one of slope_below, "
        "slope_between, max_at_most, min_at_least, below_series, ratio_at_most");
  }
  c.role = c.kind == CheckKind::kBelowSeries ? CheckRole::kOrdering : CheckRole::kThreshold;
  static constexpr std::array<std::string_view, 6> kKindKeys = {"slope_below",  "slope_between",
                                                                "max_at_most",  "min_at_least",
                                                                "below_series", "ratio_at_most"};
  c.id = fmt::format("{}/{}/{}{}", c.figure, c.series, kKindKeys[static_cast<size_t>(c.kind)],
                     c.other.empty() ? "" : "/" + c.other);
}

Check read_check(const Value& value, const std::vector<Figure>& figures) {
  const Map map = value.as_map();
  static constexpr std::array<std::string_view, 21> kKeys = {
      "figure",      "series",       "slope_below",  "slope_between",
      "max_at_most", "min_at_least", "below_series", "ratio_at_most",
      "note",        "kind",         "paper",        "where",
      "tolerance",   "measure",      "at",           "to",
      "no_effect",   "id",           "bound",        "pick",
      "from"};
  map.allow_only(kKeys);
  Check c;
  const Figure& figure = figure_of(map, figures, c);
  const bool paper = map.find("paper") != nullptr;
  read_series(map, paper, c);
  static constexpr std::array<std::string_view, 7> kPaperKeys = {
      "where", "tolerance", "measure", "to", "no_effect", "bound", "from"};
  if (paper) {
    read_paper_check(map, figure, c);
  } else {
    for (std::string_view key : kPaperKeys) {
      if (const Value* v = map.find(key)) v->fail("only a check with paper: takes this key");
    }
    if (const Value* v = map.find("at")) v->fail("only a check with paper: takes this key");
    read_legacy_check(value, map, c);
  }
  if (paper && (map.find("below_series") || map.find("slope_below") || map.find("slope_between") ||
                map.find("max_at_most") || map.find("min_at_least") || map.find("ratio_at_most"))) {
    value.fail("a check with paper: has no slope_below, below_series, ... (one check, one rule)");
  }
  if (const Value* v = map.find("kind")) {
    const std::string kind = v->as_choice(kCheckRoleNames);
    if (kind != kCheckRoleNames[static_cast<size_t>(c.role)]) {
      v->fail(
          fmt::format("this check is a {} (paper: makes a paper check; below_series an "
                      "ordering; a number not from the paper a threshold)",
                      kCheckRoleNames[static_cast<size_t>(c.role)]));
    }
  }
  if (const Value* v = map.find("id")) c.id = v->as_string();
  if (const Value* v = map.find("note")) c.text += " (" + v->as_string() + ")";
  c.hash = fnv1a_hex(yaml_text(value.node()));
  return c;
}

Difference read_difference(const Value& value) {
  const Map map = value.as_map();
  static constexpr std::array<std::string_view, 4> kKeys = {"setting", "paper", "here", "why"};
  map.allow_only(kKeys);
  Difference d;
  d.setting = map.require("setting", "the setting that differs (a key or a phrase)").as_string();
  d.paper = map.require("paper", "the paper's value").as_string();
  d.here = map.require("here", "the value here").as_string();
  d.why = map.require("why", "why it differs").as_string();
  for (const std::string* text : {&d.setting, &d.paper, &d.here, &d.why}) {
    if (text->empty()) value.fail("setting, paper, here and why each say something");
  }
  return d;
}

}  // namespace

Reproduction read_reproduction(const std::string& yaml, const conf::Experiment& experiment) {
  const std::string& source = experiment.source;
  YAML::Node root;
  try {
    root = YAML::Load(yaml);
  } catch (const YAML::Exception& e) {
    throw conf::ConfigError(source, e.mark.line + 1, e.mark.column + 1, "",
                            "malformed YAML: " + e.msg);
  }
  const Value document(root, "", &source);
  const Map top = document.as_map();
  const Value& section =
      top.require("reproduce", "a map of runs, figures and checks (docs/reproduce.md)");
  const Map map = section.as_map();
  static constexpr std::array<std::string_view, 8> kKeys = {
      "title", "paper", "run_time", "runs", "small", "figures", "checks", "differences"};
  map.allow_only(kKeys);
  Reproduction r;
  r.name = experiment.name;
  r.title = map.require("title", "what the reproduction shows").as_string();
  if (const Value* v = map.find("paper")) r.paper = v->as_string();
  if (const Value* v = map.find("run_time")) r.run_time = v->as_string();
  const Value& runs = map.require("runs", "a list of runs (name, algorithms, sweep, set)");
  for (const Value& run : runs.as_list()) {
    r.runs.push_back(read_run(run));
    for (size_t i = 0; i + 1 < r.runs.size(); ++i) {
      if (r.runs[i].name == r.runs.back().name) {
        run.fail(fmt::format("two runs are named '{}'", r.runs.back().name));
      }
    }
  }
  if (r.runs.empty()) runs.expected("at least one run");
  if (const Value* v = map.find("small")) {
    const Map small = v->as_map();
    static constexpr std::array<std::string_view, 3> kSmall = {"set", "sweep", "seeds"};
    small.allow_only(kSmall);
    if (const Value* s = small.find("seeds")) {
      r.small_seeds = static_cast<uint32_t>(s->as_number(1, 1000));
      if (r.small_seeds != s->as_number(1, 1000)) s->expected("a whole number of seeds");
    }
    if (const Value* s = small.find("set")) r.small_sets = read_sweeps(*s, true, "small.set");
    if (const Value* s = small.find("sweep")) {
      r.small_sweeps = read_sweeps(*s, false, "small.sweep");
    }
  }
  const ModelDefaults defaults = model_defaults(top, experiment, r);
  if (const Value* v = map.find("figures")) {
    for (const Value& f : v->as_list()) {
      r.figures.push_back(read_figure(f, defaults));
      for (const std::string& name : r.figures.back().runs) {
        if (std::none_of(r.runs.begin(), r.runs.end(),
                         [&name](const ReproRun& run) { return run.name == name; })) {
          f.fail(fmt::format("figure '{}' names run '{}', which is not one of runs[]",
                             r.figures.back().name, name));
        }
      }
      for (size_t i = 0; i + 1 < r.figures.size(); ++i) {
        if (r.figures[i].name == r.figures.back().name) {
          f.fail(fmt::format("two figures are named '{}'", r.figures.back().name));
        }
      }
    }
  }
  if (const Value* v = map.find("checks")) {
    for (const Value& c : v->as_list()) {
      r.checks.push_back(read_check(c, r.figures));
      for (size_t i = 0; i + 1 < r.checks.size(); ++i) {
        if (r.checks[i].id == r.checks.back().id) {
          c.fail(fmt::format("two checks are {}: give one an id:", r.checks.back().id));
        }
      }
    }
  }
  if (const Value* v = map.find("differences")) {
    for (const Value& d : v->as_list()) r.differences.push_back(read_difference(d));
  }
  return r;
}

Reproduction read_reproduction(const std::string& yaml, const std::string& source,
                               const std::string& experiment_name) {
  Reproduction r = read_reproduction(
      yaml, conf::load_experiment_string(yaml, source, conf::Checks::kTemplate));
  r.name = experiment_name;
  return r;
}

std::vector<ReproRun> runs_to_execute(const Reproduction& reproduction, bool small,
                                      const Sweep& seeds) {
  std::vector<ReproRun> runs = reproduction.runs;
  for (ReproRun& run : runs) {
    if (!small) break;
    for (const Sweep& sweep : reproduction.small_sweeps) {
      auto it = std::find_if(run.sweeps.begin(), run.sweeps.end(),
                             [&sweep](const Sweep& s) { return s.key == sweep.key; });
      if (it != run.sweeps.end()) {
        *it = sweep;
      } else {
        run.sweeps.push_back(sweep);
      }
    }
    for (const Sweep& set : reproduction.small_sets) {
      // A small value replaces the run's own set of that key, and a sweep of it.
      std::erase_if(run.sets, [&set](const Sweep& s) { return s.key == set.key; });
      std::erase_if(run.sweeps, [&set](const Sweep& s) { return s.key == set.key; });
      run.sets.push_back(set);
    }
  }
  if (seeds.values.empty()) return runs;
  for (ReproRun& run : runs) {
    const auto is_seed = [](const Sweep& s) { return s.key == kSeedKey; };
    if (std::any_of(run.sweeps.begin(), run.sweeps.end(), is_seed) ||
        std::any_of(run.sets.begin(), run.sets.end(), is_seed)) {
      throw std::invalid_argument(
          fmt::format("reproduce run '{}' sweeps or sets seed; the seeds come from --seeds and the "
                      "experiment's seed: (the first)",
                      run.name));
    }
    run.sweeps.push_back(seeds);  // last: varies fastest, a point's seeds side by side
  }
  return runs;
}

std::string series_name(const ReproRun& run, const Variant& variant, const Figure& figure) {
  std::string name =
      run.label.empty()
          ? variant.algorithm
          : (run.algorithms.size() > 1 ? run.label + "/" + variant.algorithm : run.label);
  // A key swept with one value in this run names no series: every variant of the run has it (a
  // one-value sweep only gives line figures their common x).
  const auto single = [&run](const std::string& key) {
    return std::any_of(run.sweeps.begin(), run.sweeps.end(),
                       [&key](const Sweep& s) { return s.key == key && s.values.size() == 1; });
  };
  for (const NamePart& part : variant.name_parts) {
    if (part.key.empty() || part.key == figure.x || part.key == kSeedKey || single(part.key)) {
      continue;
    }
    name += "-" + part.text;
  }
  return name;
}

}  // namespace spraylab::fabric
