// The figures, fits and verdicts of a reproduction (fabric/reproduce/reproduction.h): each figure's
// series gathered from the runs' summary.json (or a CSV per variant), a log-log slope per series,
// the paper's marks, the checks evaluated, and the files: figures/<name>.{csv,png,svg}, the gnuplot
// script, report.md and report.json. Plain C++: the runs themselves are the runner's.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "fabric/reproduce/reproduction.h"

namespace spraylab::fabric {

// One finished variant of one run: what a figure reads.
struct VariantResult {
  const ReproRun* run = nullptr;
  Variant variant;
  std::string dir;  // its results folder (summary.json, CSV sources)
  nlohmann::json summary;
};

struct FigurePoint {
  double x = 0;  // the bar's index when the figure is by variant
  double y = 0;
  std::string x_text;  // as the sweep wrote it ("64KB"), or the variant's series name
};

struct FigureSeries {
  std::string name;
  std::vector<FigurePoint> points;  // by x
  std::optional<double> slope;      // fit: loglog
};

struct FigureData {
  const Figure* figure = nullptr;
  std::vector<FigureSeries> series;   // in the order their first variant ran
  std::vector<std::string> problems;  // values missing from a summary, unreadable CSVs
};

struct CheckOutcome {
  const Check* check = nullptr;
  bool passed = false;
  std::string detail;  // the measured values behind the verdict
};

// The number a sweep value stands for on an axis: a plain number, a size in bytes, a time in
// ns or a rate in bits/s ("64KB" → 65536, "20us" → 20000); nullopt for anything else.
std::optional<double> axis_value(const std::string& text);

// A dotted path into a summary ("queue.by_layer.edge_up.max_packets"); nullopt when missing or
// not a number.
std::optional<double> json_number(const nlohmann::json& summary, const std::string& path);

FigureData gather_figure(const Figure& figure, const std::vector<VariantResult>& results);
CheckOutcome evaluate_check(const Check& check, const std::vector<FigureData>& figures);

// Writes figures/ (CSV, data files, figures.gp, PNG and SVG when gnuplot is there), report.md
// and report.json into `dir`. Returns a line saying where the plots are or why there are none.
std::string write_report(const std::string& dir, const Reproduction& reproduction,
                         const std::string& command, const std::vector<FigureData>& figures,
                         const std::vector<CheckOutcome>& checks, bool small);

// report.md's text (also what docs/RESULTS.md quotes).
std::string report_markdown(const Reproduction& reproduction, const std::string& command,
                            const std::vector<FigureData>& figures,
                            const std::vector<CheckOutcome>& checks, bool small);

}  // namespace spraylab::fabric
