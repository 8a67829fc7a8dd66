// The figures of a reproduction (fabric/reproduce/reproduction.h): each figure's series gathered
// from the runs' summary.json (or a CSV per variant), a log-log slope per series, the paper's marks
// and the models' curves (model_curves.h), and the files: figures/<name>.{csv,png,svg}, the gnuplot
// script, seeds.csv, verdicts.json, report.md and report.json. The checks judged on the figures are
// checks.h's. Plain C++: the runs themselves are the runner's.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "fabric/reproduce/checks.h"
#include "fabric/reproduce/reproduction.h"
#include "fabric/results/confidence.h"

namespace spraylab::fabric {

// One finished variant of one run: what a figure reads.
struct VariantResult {
  const ReproRun* run = nullptr;
  Variant variant;
  std::string dir;  // its results folder (summary.json, CSV sources)
  nlohmann::json summary;
  uint64_t seed = 1;  // the experiment seed it ran with
};

struct SeedValue {
  uint64_t seed = 0;
  double y = 0;
};

struct FigurePoint {
  double x = 0;                     // the bar's index when the figure is by variant
  double y = 0;                     // the mean over seeds
  std::string x_text;               // as the sweep wrote it ("64KB"), or the variant's series name
  std::vector<SeedValue> per_seed;  // by seed
  Interval ci;                      // of y over the seeds
};

struct FigureSeries {
  std::string name;
  std::vector<FigurePoint> points;   // by x
  std::optional<double> slope;       // fit: loglog, of the means
  std::optional<Interval> slope_ci;  // fit: loglog, of each seed's own slope
  // A model's curve (Figure::models): its points are the closed form's values at the figure's x
  // and at the model's optimum, without seeds (per_seed empty, ci.n 0); seeds.csv leaves it out.
  bool model = false;
};

struct FigureData {
  const Figure* figure = nullptr;
  std::vector<FigureSeries> series;   // in the order their first variant ran
  std::vector<std::string> problems;  // values missing from a summary, unreadable CSVs
};

// One row of seeds.csv: a figure's y for one point and one seed, as drawn (after y_divide and
// relative_to).
struct SeedRow {
  std::string figure;
  std::string series;
  double x = 0;
  std::string x_text;
  uint64_t seed = 0;
  double y = 0;
};

// The number a sweep value stands for on an axis: a plain number, a size in bytes, a time in
// ns or a rate in bits/s ("64KB" → 65536, "20us" → 20000); nullopt for anything else.
std::optional<double> axis_value(const std::string& text);

// A dotted path into a summary ("queue.by_layer.edge_up.max_packets"); nullopt when missing or
// not a number.
std::optional<double> json_number(const nlohmann::json& summary, const std::string& path);

FigureData gather_figure(const Figure& figure, const std::vector<VariantResult>& results);

// The mean and 95 % interval of values over their seeds (a point's, a check's measure).
Interval interval_over_seeds(const std::vector<SeedValue>& values);

// Each point's mean and interval from its per-seed values, points by x, slopes, and the
// figure's model curves (gather_figure and figure_from_rows end with it).
void finish_figure(FigureData& data);

// Writes the gnuplot data and script into `dir` (a reproduction's figures/) and runs gnuplot;
// returns a line saying where the plots are or why there are none.
std::string draw_figures(const std::string& dir, const std::vector<FigureData>& figures);

// The per-seed data behind every figure: seeds.csv (figure,series,x,x_text,seed,y), and back.
// --redraw draws and judges from it alone, so a copy in docs/results/NAME/ can be redrawn.
std::string seeds_csv(const std::vector<FigureData>& figures);
std::vector<SeedRow> parse_seeds_csv(const std::string& text, const std::string& source);
FigureData figure_from_rows(const Figure& figure, const std::vector<SeedRow>& rows);

// verdicts.json: every check's outcome, keyed by its id and hash (Check).
nlohmann::ordered_json verdicts_json(const std::vector<CheckOutcome>& checks);

// --redraw: a check's verdict from the first judgement stored in `stored` (verdicts.json) is
// kept, and a stored `not reproduced` (or a failed ordering or threshold) stays one even when
// the check changed since; the outcome's history says so.
void keep_stored_verdicts(std::vector<CheckOutcome>& checks, const nlohmann::json& stored);

// Writes figures/ (CSV, data files, figures.gp, PNG and SVG when gnuplot is there), report.md
// and report.json into `dir`. Returns a line saying where the plots are or why there are none.
// What the report says of the runs beyond the figures: seeds, and each run's resolved settings.
struct ReportContext {
  std::string command;
  bool small = false;
  std::vector<uint64_t> seeds;
  // Per run and algorithm, the resolved load_balancer, workload and buffer (one line each).
  std::vector<std::pair<std::string, std::string>> settings;
  // Where the figures are, relative to the markdown file ("figures", "results/mrls/figures").
  std::string figures_link = "figures";
  int heading = 1;  // the level of the title's heading (2 inside a generated RESULTS.md)
};

std::string write_report(const std::string& dir, const Reproduction& reproduction,
                         const ReportContext& context, const std::vector<FigureData>& figures,
                         const std::vector<CheckOutcome>& checks);

// report.md's text (also what a generated RESULTS.md holds per result).
std::string report_markdown(const Reproduction& reproduction, const ReportContext& context,
                            const std::vector<FigureData>& figures,
                            const std::vector<CheckOutcome>& checks);

// A generated RESULTS.md's section for a reproduction with no stored result yet: its title, paper,
// the command that would run it and what it costs, its differences and the checks declared for it.
std::string not_run_markdown(const Reproduction& reproduction, int heading);

}  // namespace spraylab::fabric
