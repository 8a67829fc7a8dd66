#include "fabric/reproduce/figures.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "conf/units.h"
#include "fabric/reproduce/loglog_fit.h"
#include "fabric/results/plots.h"
#include "fabric/results/result_files.h"

namespace spraylab::fabric {
namespace {

namespace fs = std::filesystem;

constexpr int kWidth = 1000;
constexpr int kHeight = 600;

std::string number(double v) { return fmt::format("{:.4g}", v); }

FigureSeries& series_named(std::vector<FigureSeries>& all, const std::string& name) {
  auto it = std::find_if(all.begin(), all.end(),
                         [&name](const FigureSeries& s) { return s.name == name; });
  if (it == all.end())
    it = all.insert(all.end(), FigureSeries{name, {}, std::nullopt, std::nullopt, false});
  return *it;
}

// One seed's y at x: joins the point at that x (every seed of a point has the same x).
void add_sample(FigureSeries& series, double x, const std::string& x_text, uint64_t seed,
                double y) {
  auto it = std::find_if(series.points.begin(), series.points.end(),
                         [x](const FigurePoint& p) { return p.x == x; });
  if (it == series.points.end()) {
    it = series.points.insert(series.points.end(), FigurePoint{x, 0, x_text, {}, {}});
  }
  it->per_seed.push_back({seed, y});
}

std::vector<double> ys(const std::vector<SeedValue>& values) {
  std::vector<double> out;
  for (const SeedValue& v : values) out.push_back(v.y);
  return out;
}

std::string whole_number(double v) { return fmt::format("{:.0f}", v); }

// A model's series: its closed form at every x the measured series have (in the figure's unit:
// x · x_divide is the payload in bytes) and at its own optimum, y in the figure's unit.
FigureSeries model_series(const Figure& figure, const ModelCurve& model,
                          const std::vector<FigureSeries>& measured) {
  FigureSeries out{model.name, {}, std::nullopt, std::nullopt, true};
  const PacketSizeModel& m = model.packet_size;
  const auto add = [&](double x, const std::string& x_text) {
    if (std::any_of(out.points.begin(), out.points.end(),
                    [x](const FigurePoint& p) { return p.x == x; })) {
      return;
    }
    const double y = m.cct_ns(x * figure.x_divide) / figure.y_divide;
    out.points.push_back({x, y, x_text, {}, Interval{0, y, 0, 0}});
  };
  for (const FigureSeries& s : measured) {
    for (const FigurePoint& p : s.points) add(p.x, p.x_text);
  }
  const double best = m.best_payload_bytes();
  add(best / figure.x_divide, whole_number(best));
  std::stable_sort(out.points.begin(), out.points.end(),
                   [](const FigurePoint& a, const FigurePoint& b) { return a.x < b.x; });
  return out;
}

// Per series, the log-log slope of the means and each seed's own slope, over the series' x.
void fit_slopes(FigureData& data) {
  for (FigureSeries& s : data.series) {
    std::vector<double> x, y;
    std::set<uint64_t> seeds;
    for (const FigurePoint& p : s.points) {
      x.push_back(p.x);
      y.push_back(p.y);
      for (const SeedValue& v : p.per_seed) seeds.insert(v.seed);
    }
    s.slope = loglog_slope(x, y);
    std::vector<double> slopes;
    for (uint64_t seed : seeds) {
      std::vector<double> sx, sy;
      for (const FigurePoint& p : s.points) {
        for (const SeedValue& v : p.per_seed) {
          if (v.seed != seed) continue;
          sx.push_back(p.x);
          sy.push_back(v.y);
        }
      }
      if (const std::optional<double> slope = loglog_slope(sx, sy)) slopes.push_back(*slope);
    }
    if (!slopes.empty()) s.slope_ci = mean_interval(slopes);
  }
}

// The figure's model curves, drawn at the measured series' x.
void add_models(FigureData& data) {
  const std::vector<FigureSeries> measured = data.series;
  for (const ModelCurve& m : data.figure->models) {
    data.series.push_back(model_series(*data.figure, m, measured));
  }
}

}  // namespace

// Each point's mean and interval over its seeds, points by x (a CSV source's in file order),
// with fit: loglog the slope of the means and each seed's own slope, then the models' curves.
void finish_figure(FigureData& data) {
  const Figure& figure = *data.figure;
  std::erase_if(data.series, [](const FigureSeries& s) { return s.points.empty() || s.model; });
  for (size_t i = 0; i < data.series.size(); ++i) {
    FigureSeries& s = data.series[i];
    for (FigurePoint& p : s.points) {
      std::stable_sort(p.per_seed.begin(), p.per_seed.end(),
                       [](const SeedValue& a, const SeedValue& b) { return a.seed < b.seed; });
      p.ci = mean_interval(ys(p.per_seed));
      p.y = p.ci.mean;
      if (figure.by_variant()) p.x = static_cast<double>(i);  // after the empty ones went
    }
    if (figure.source.empty()) {
      std::stable_sort(s.points.begin(), s.points.end(),
                       [](const FigurePoint& a, const FigurePoint& b) { return a.x < b.x; });
    }
  }
  if (figure.fit_loglog) fit_slopes(data);
  add_models(data);
}

namespace {

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> cells;
  std::stringstream in(line);
  std::string cell;
  while (std::getline(in, cell, ',')) cells.push_back(cell);
  return cells;
}

// The (x, y) columns of a variant's CSV source, in file order.
void read_source(const Figure& figure, const VariantResult& r, FigureSeries& series,
                 std::vector<std::string>& problems) {
  const fs::path path = fs::path(r.dir) / figure.source;
  std::ifstream in(path);
  if (!in) {
    problems.push_back(fmt::format("{}: cannot read {}", r.variant.name, path.string()));
    return;
  }
  std::string line;
  std::getline(in, line);
  const std::vector<std::string> header = split_csv_line(line);
  const auto column = [&header](const std::string& name) {
    return static_cast<size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  const size_t xi = column(figure.x);
  const size_t yi = column(figure.y);
  if (xi == header.size() || yi == header.size()) {
    problems.push_back(fmt::format("{}: {} has no column '{}'", r.variant.name, path.string(),
                                   xi == header.size() ? figure.x : figure.y));
    return;
  }
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const std::vector<std::string> cells = split_csv_line(line);
    if (std::max(xi, yi) >= cells.size()) continue;
    char* end_x = nullptr;
    char* end_y = nullptr;
    const double x = std::strtod(cells[xi].c_str(), &end_x);
    const double y = std::strtod(cells[yi].c_str(), &end_y);
    if (*end_x != '\0' || *end_y != '\0' || cells[xi].empty() || cells[yi].empty()) continue;
    add_sample(series, x / figure.x_divide, cells[xi], r.seed, y / figure.y_divide);
  }
}

// The value a figure draws for a summary's y: y / y_divide, or with relative_to the percentage
// of that above its reference (nullopt, and a problem, when the reference is missing).
std::optional<double> plotted_y(const Figure& figure, const VariantResult& r, double y,
                                std::vector<std::string>& problems) {
  if (figure.relative_to.empty()) return y / figure.y_divide;
  double reference = 0;
  if (figure.relative_to_value) {
    reference = *figure.relative_to_value;
  } else if (const std::optional<double> v = json_number(r.summary, figure.relative_to)) {
    reference = *v / figure.y_divide;
  }
  if (!(reference > 0)) {
    problems.push_back(fmt::format("{}/{}: summary.json has no reference > 0 at {}", r.run->name,
                                   r.variant.name, figure.relative_to));
    return std::nullopt;
  }
  return 100 * (y / figure.y_divide / reference - 1);
}

const FigureSeries* find_series(const FigureData& data, const std::string& name) {
  for (const FigureSeries& s : data.series) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

std::string series_list(const FigureData& data) {
  std::string names;
  for (const FigureSeries& s : data.series) names += (names.empty() ? "" : ", ") + s.name;
  return names;
}

// Pairs of (this y, other y) at the x both series have (by-variant figures: their one value).
std::vector<std::pair<double, double>> paired(const FigureData& data, const FigureSeries& a,
                                              const FigureSeries& b) {
  std::vector<std::pair<double, double>> out;
  if (data.figure->by_variant()) {
    if (!a.points.empty() && !b.points.empty()) out.emplace_back(a.points[0].y, b.points[0].y);
    return out;
  }
  for (const FigurePoint& p : a.points) {
    for (const FigurePoint& q : b.points) {
      if (p.x == q.x) out.emplace_back(p.y, q.y);
    }
  }
  return out;
}

// At how many of the x both series have is a's whole interval below b's (an ordering the seeds
// settle, not only the means); the second: how many x they share.
std::pair<size_t, size_t> intervals_apart(const FigureData& data, const FigureSeries& a,
                                          const FigureSeries& b) {
  size_t apart = 0, shared = 0;
  for (const FigurePoint& p : a.points) {
    for (const FigurePoint& q : b.points) {
      if (!data.figure->by_variant() && p.x != q.x) continue;
      ++shared;
      if (std::isfinite(p.ci.half_width) && std::isfinite(q.ci.half_width) &&
          p.ci.high() < q.ci.low()) {
        ++apart;
      }
      if (data.figure->by_variant()) break;
    }
    if (data.figure->by_variant()) break;
  }
  return {apart, shared};
}

std::string data_file(const Figure& f, size_t i) {
  return fmt::format("data/{}.{}.dat", f.name, i);
}

// One colour per series, none repeated among the first twelve (gnuplot's own cycle repeats after
// eight); the paper's marks are black.
constexpr std::array<const char*, 12> kColours = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                                  "#9467bd", "#8c564b", "#e377c2", "#17becf",
                                                  "#7f7f7f", "#bcbd22", "#000080", "#800000"};

std::string colour(size_t i) { return fmt::format("lc rgb '{}'", kColours[i % kColours.size()]); }

// The interval's ends as drawn: the point itself without an interval (one seed), and no lower
// end at or below 0 on a log axis.
std::pair<double, double> drawn_interval(const FigurePoint& p, bool log_y) {
  if (!std::isfinite(p.ci.half_width)) return {p.y, p.y};
  const double low = p.ci.low();
  return {log_y && low <= 0 ? p.y : low, p.ci.high()};
}

// The most seeds any point of the figure has: what its title says the intervals are over.
size_t seed_count(const FigureData& data) {
  size_t n = 0;
  for (const FigureSeries& s : data.series) {
    for (const FigurePoint& p : s.points) n = std::max(n, p.per_seed.size());
  }
  return n;
}

std::string plot_title(const FigureData& data) {
  const size_t n = seed_count(data);
  return data.figure->title + (n > 1 ? fmt::format(" (ours: mean and 95% CI over {} seeds)", n)
                                     : std::string(" (ours: 1 seed, no interval)"));
}

std::string line_plot(const FigureData& data, const std::string& extension,
                      const std::string& terminal) {
  const Figure& f = *data.figure;
  std::string s = terminal + fmt::format("set output '{}.{}'\n", f.name, extension);
  s += fmt::format("set title {}\nset xlabel {}\nset ylabel {}\n", gnuplot_quoted(plot_title(data)),
                   gnuplot_quoted(f.x_label), gnuplot_quoted(f.y_label));
  s += f.log_x ? "set logscale x\n" : "unset logscale x\n";
  s += f.log_y ? "set logscale y\n" : "unset logscale y\nset yrange [0:*]\n";
  // Swept values label their own ticks ("64KB"); divided or CSV axes use numbers.
  const bool tick_labels = f.source.empty() && f.x_divide == 1;
  std::string plots;
  const auto add = [&plots](const std::string& item) {
    plots += (plots.empty() ? "" : ", \\\n     ") + item;
  };
  for (size_t i = 0; i < data.series.size(); ++i) {
    const std::string file = gnuplot_quoted(data_file(f, i));
    if (!f.source.empty()) {
      // A time series: the interval as a band under the line of means.
      add(fmt::format("{} using 1:4:5 with filledcurves {} fs transparent solid 0.2 notitle", file,
                      colour(i)));
      add(fmt::format("{} using 1:2 with lines lw 2 {} title {}", file, colour(i),
                      gnuplot_quoted(data.series[i].name)));
      continue;
    }
    if (data.series[i].model) {
      // A closed form: a dashed line through its values, no interval.
      add(fmt::format("{} using 1:2 with lines dt 2 lw 2 {} title {}", file, colour(i),
                      gnuplot_quoted("model: " + data.series[i].name)));
      continue;
    }
    add(fmt::format("{} using 1:2:4:5{} with yerrorlines lw 2 pt 7 {} title {}", file,
                    tick_labels ? ":xtic(3)" : "", colour(i), gnuplot_quoted(data.series[i].name)));
  }
  for (size_t i = 0; i < f.marks.size(); ++i) {
    const Mark& m = f.marks[i];
    const std::string label = m.series.empty() ? m.label : m.label + " (" + m.series + ")";
    if (m.x) {
      add(fmt::format("{} using 1:2 with points pt {} ps 2.5 lw 2 lc rgb 'black' title {}",
                      gnuplot_quoted(fmt::format("data/{}.mark{}.dat", f.name, i)), 6 + 2 * i,
                      gnuplot_quoted("paper: " + label)));
    } else {
      add(fmt::format("{} with lines dt {} lw 2 lc rgb 'black' title {}", m.y, 2 + i,
                      gnuplot_quoted("paper: " + label)));
    }
  }
  if (plots.empty()) return "";
  return s + "plot " + plots + "\nunset output\nset xtics auto\nset yrange [*:*]\n";
}

std::string bar_plot(const FigureData& data, const std::string& extension,
                     const std::string& terminal) {
  const Figure& f = *data.figure;
  std::string s = terminal + fmt::format("set output '{}.{}'\n", f.name, extension);
  s += fmt::format("set title {}\nset xlabel ''\nset ylabel {}\n", gnuplot_quoted(plot_title(data)),
                   gnuplot_quoted(f.y_label));
  s += "unset logscale x\n";
  s += f.log_y ? "set logscale y\n" : "unset logscale y\nset yrange [0:*]\n";
  s += "set style fill solid 0.8 border -1\nset boxwidth 0.7\nset xtics rotate by -30\n"
       "set offsets 0.5, 0.5, graph 0.08, 0\n";
  const std::string bars = gnuplot_quoted(fmt::format("data/{}.bars.dat", f.name));
  std::string plots = fmt::format(
      "{0} using 0:2:xtic(1) with boxes lc rgb '{1}' notitle, {0} using 0:2:3:4 with yerrorbars "
      "lc rgb 'black' lw 1.5 pt 7 ps 0 title 'ours: 95% CI', {0} using 0:4:(sprintf('%.4g', $2)) "
      "with labels offset 0,0.8 notitle",
      bars, kColours[0]);
  for (size_t i = 0; i < f.marks.size(); ++i) {
    const Mark& m = f.marks[i];
    if (m.series.empty()) {
      plots +=
          fmt::format(", {} with lines dt {} lw 2 lc rgb '{}' title {}", m.y, 2 + i,
                      kColours[(i + 1) % kColours.size()], gnuplot_quoted("paper: " + m.label));
    } else {
      plots +=
          fmt::format(", {} using 1:2 with points pt {} ps 2.5 lw 2 lc rgb '{}' title {}",
                      gnuplot_quoted(fmt::format("data/{}.mark{}.dat", f.name, i)), 6 + 2 * i,
                      kColours[(i + 1) % kColours.size()], gnuplot_quoted("paper: " + m.label));
    }
  }
  return s + "plot " + plots +
         "\nunset output\nset xtics norotate\nset offsets 0, 0, 0, 0\nset yrange [*:*]\n";
}

// Where a mark is drawn: its own x, or the bar of its series.
std::optional<double> mark_x(const FigureData& data, const Mark& m) {
  if (m.x) return m.x;
  if (!m.series.empty() && data.figure->by_variant()) {
    for (size_t i = 0; i < data.series.size(); ++i) {
      if (data.series[i].name == m.series) return static_cast<double>(i);
    }
  }
  return std::nullopt;
}

}  // namespace

std::string draw_figures(const std::string& dir, const std::vector<FigureData>& figures) {
  const std::string gnuplot = find_gnuplot();
  fs::create_directories(fs::path(dir) / "data");
  std::string script =
      "# Written by spraylab reproduce; `gnuplot figures.gp` here redraws.\n"
      "set grid\nset key outside right top noenhanced\n";
  for (const FigureData& data : figures) {
    const Figure& f = *data.figure;
    if (f.by_variant()) {
      std::string bars = "# series mean low high\n";
      for (const FigureSeries& s : data.series) {
        if (s.points.empty()) continue;
        const auto [low, high] = drawn_interval(s.points[0], f.log_y);
        bars += fmt::format("\"{}\" {} {} {}\n", s.name, s.points[0].y, low, high);
      }
      write_file((fs::path(dir) / fmt::format("data/{}.bars.dat", f.name)).string(), bars);
    } else {
      for (size_t i = 0; i < data.series.size(); ++i) {
        std::string text = "# x mean label low high\n";
        for (const FigurePoint& p : data.series[i].points) {
          const auto [low, high] = drawn_interval(p, f.log_y);
          text += fmt::format("{} {} \"{}\" {} {}\n", p.x, p.y, p.x_text, low, high);
        }
        write_file((fs::path(dir) / data_file(f, i)).string(), text);
      }
    }
    for (size_t i = 0; i < f.marks.size(); ++i) {
      if (const std::optional<double> x = mark_x(data, f.marks[i])) {
        write_file((fs::path(dir) / fmt::format("data/{}.mark{}.dat", f.name, i)).string(),
                   fmt::format("{} {}\n", *x, f.marks[i].y));
      }
    }
    for (const auto& [extension, terminal] : gnuplot_terminals(kWidth, kHeight)) {
      script += f.by_variant() ? bar_plot(data, extension, terminal)
                               : line_plot(data, extension, terminal);
    }
  }
  write_file((fs::path(dir) / "figures.gp").string(), script);
  if (gnuplot.empty()) return "gnuplot not found; no plots (Debian: apt-get install gnuplot-nox)";
  const int rc = run_gnuplot(gnuplot, fs::absolute(dir).string(), "figures.gp");
  if (rc != 0) return fmt::format("gnuplot failed (exit {}); see {}/gnuplot.log", rc, dir);
  return fmt::format("{} figures (PNG and SVG) in {}", figures.size(), dir);
}

namespace {

// The point of `series` a paper check reads: the bar, or the one at x = check.at (as the sweep
// wrote it, or the same number).
const FigurePoint* point_at(const FigureData& data, const FigureSeries& series,
                            const std::string& at) {
  if (data.figure->by_variant()) return series.points.empty() ? nullptr : &series.points[0];
  const std::optional<double> x = axis_value(at);
  for (const FigurePoint& p : series.points) {
    if (p.x_text == at || (x && p.x == *x / data.figure->x_divide)) return &p;
  }
  return nullptr;
}

// A point's values by seed; a model's one value stands for every seed (seed 0).
std::vector<SeedValue> seed_values(const FigureSeries& series, const FigurePoint& p) {
  if (series.model) return {{0, p.y}};
  return p.per_seed;
}

// a op b, seed by seed: both series ran the same seed's traffic; a model pairs with every seed.
// A seed for which op is undefined (a zero denominator) is named in `undefined`, never dropped
// silently: the caller reports it and judges nothing on the other seeds alone.
template <typename Op>
std::vector<SeedValue> paired_by_seed(const std::vector<SeedValue>& a, bool a_model,
                                      const std::vector<SeedValue>& b, bool b_model, Op op,
                                      std::vector<uint64_t>& undefined) {
  std::vector<SeedValue> out;
  for (const SeedValue& x : a) {
    for (const SeedValue& y : b) {
      if (a_model || b_model || x.seed == y.seed) {
        const uint64_t seed = b_model ? x.seed : y.seed;
        if (const std::optional<double> v = op(x.y, y.y)) {
          out.push_back({seed, *v});
        } else {
          undefined.push_back(seed);
        }
      }
    }
  }
  return out;
}

// "a quotient with a zero denominator for seeds 3, 7": why a measure is not judged.
std::string undefined_text(const std::vector<uint64_t>& seeds) {
  return fmt::format("a quotient with a zero denominator for seed{} {}: not judged on the others",
                     seeds.size() == 1 ? "" : "s", fmt::join(seeds, ", "));
}

std::optional<double> quotient(double a, double b) {
  return b == 0 ? std::nullopt : std::optional<double>(a / b);
}

// The measure at x = `at` per seed: the series' y, or its ratio to or difference from the other
// series' y at the same x and seed. Empty, and `problem` said, when a point is missing.
std::vector<SeedValue> measure_at(const Check& check, const FigureData& data,
                                  const FigureSeries& series, const std::string& at,
                                  std::string& problem) {
  const FigurePoint* p = point_at(data, series, at);
  const FigureSeries* other = check.other.empty() ? nullptr : find_series(data, check.other);
  const FigurePoint* q = other ? point_at(data, *other, at) : nullptr;
  if (p == nullptr) {
    problem = fmt::format("{} has no point at {}", check.series, at);
    return {};
  }
  if (check.other.empty()) return seed_values(series, *p);
  if (q == nullptr) {
    problem = other ? fmt::format("{} has no point at {}", check.other, at)
                    : fmt::format("no series '{}' in {} (it has: {})", check.other, check.figure,
                                  series_list(data));
    return {};
  }
  std::vector<uint64_t> undefined;
  std::vector<SeedValue> out =
      check.measure == Measure::kDifference
          ? paired_by_seed(
                seed_values(series, *p), series.model, seed_values(*other, *q), other->model,
                [](double a, double b) { return std::optional<double>(a - b); }, undefined)
          : paired_by_seed(seed_values(series, *p), series.model, seed_values(*other, *q),
                           other->model, quotient, undefined);
  if (!undefined.empty()) {
    problem = fmt::format("{} over {} at {}: {}", check.series, check.other, at,
                          undefined_text(undefined));
    return {};
  }
  if (out.empty()) problem = fmt::format("{} and {} share no seed", check.series, check.other);
  return out;
}

// Per seed, the x at which the series is lowest (a model: its lowest point, its optimum). Only a
// seed with a value at every x of the series has one; the others (a variant stopped by its
// timeout) are named in `incomplete`.
std::vector<SeedValue> argmin_per_seed(const FigureSeries& series,
                                       std::vector<uint64_t>& incomplete) {
  std::map<uint64_t, std::pair<double, double>> lowest;  // seed → (its lowest y, that y's x)
  std::map<uint64_t, size_t> points_of;                   // seed → x it has a value at
  for (const FigurePoint& p : series.points) {
    for (const SeedValue& v : seed_values(series, p)) {
      ++points_of[v.seed];
      const auto it = lowest.find(v.seed);
      if (it == lowest.end() || v.y < it->second.first) lowest[v.seed] = {v.y, p.x};
    }
  }
  std::vector<SeedValue> out;
  for (const auto& [seed, y_x] : lowest) {
    if (points_of[seed] == series.points.size()) {
      out.push_back({seed, y_x.second});
    } else {
      incomplete.push_back(seed);
    }
  }
  return out;
}

// The measure of a paper check per seed, its interval and the verdict.
CheckOutcome evaluate_paper_check(const Check& check, const FigureData& data,
                                  const FigureSeries& series) {
  CheckOutcome out;
  out.check = &check;
  std::vector<SeedValue> values;
  if (check.measure == Measure::kSlope) {
    if (!series.slope_ci) {
      out.detail = "no slope: fewer than two points with x > 0 and y > 0";
    } else {
      out.measured = *series.slope_ci;
    }
  } else if (check.measure == Measure::kArgmin) {
    std::vector<uint64_t> incomplete;
    values = argmin_per_seed(series, incomplete);
    if (!check.other.empty()) {
      const FigureSeries* other = find_series(data, check.other);
      if (other == nullptr) {
        out.detail = fmt::format("no series '{}' in {} (it has: {})", check.other, check.figure,
                                 series_list(data));
        values.clear();
      } else {
        std::vector<uint64_t> undefined;
        values = paired_by_seed(values, series.model, argmin_per_seed(*other, incomplete),
                                other->model, quotient, undefined);
        if (!undefined.empty()) {
          out.detail = undefined_text(undefined);
          values.clear();
        }
      }
    }
    if (!incomplete.empty()) {
      out.detail = fmt::format("no value at every x for seed{} {}: not judged on the others",
                               incomplete.size() == 1 ? "" : "s", fmt::join(incomplete, ", "));
      values.clear();
    }
  } else {
    values = measure_at(check, data, series, check.at, out.detail);
    if (!check.from.empty() && !values.empty()) {
      // How the measure changed along x: at `at` over at `from`, seed by seed.
      const std::vector<SeedValue> base = measure_at(check, data, series, check.from, out.detail);
      std::vector<uint64_t> undefined;
      values = paired_by_seed(values, false, base, false, quotient, undefined);
      if (!undefined.empty()) {
        out.detail = fmt::format("at {} over at {}: {}", check.at, check.from,
                                 undefined_text(undefined));
        values.clear();
      } else if (values.empty() && out.detail.empty()) {
        out.detail = fmt::format("{} and {} share no seed", check.at, check.from);
      }
    }
  }
  if (!values.empty()) out.measured = mean_interval(ys(values));
  out.verdict = out.measured ? judge(check.rule, *out.measured) : Verdict::kNotReproduced;
  out.passed = *out.verdict == Verdict::kReproduced;
  if (out.measured) {
    const auto [low, high] = tolerance_band(check.rule);
    out.detail =
        fmt::format("{} (95 % CI [{}, {}], {} seed{}); paper {}{} ± {} = [{}, {}]",
                    mean_ci_text(*out.measured), number(out.measured->low()),
                    number(out.measured->high()), out.measured->n, out.measured->n == 1 ? "" : "s",
                    check.rule.bound == Bound::kAtLeast  ? "at least "
                    : check.rule.bound == Bound::kAtMost ? "at most "
                                                         : "",
                    number(check.rule.paper), check.tolerance_text, number(low), number(high));
  }
  return out;
}

}  // namespace

std::string mean_ci_text(const Interval& i) {
  if (i.n < 2 || !std::isfinite(i.half_width)) {
    return fmt::format("{} ({} seed{})", number(i.mean), i.n, i.n == 1 ? "" : "s");
  }
  // As results are written: the half width to two significant digits and the mean to the same
  // decimal place (9.8 ± 1.3, 0.00935 ± 0.00099), not four digits of noise each.
  // Equal values summed in floating point leave a half width of rounding noise (1e-16 of the
  // mean): that is no spread, not seventeen decimals.
  if (i.half_width <= 1e-12 * std::fabs(i.mean)) return fmt::format("{} ± 0", number(i.mean));
  const int magnitude = static_cast<int>(std::floor(std::log10(i.half_width)));
  const int decimals = std::max(0, 1 - magnitude);
  return fmt::format("{:.{}f} ± {:.{}f}", i.mean, decimals, i.half_width, decimals);
}

std::optional<double> axis_value(const std::string& text) {
  char* end = nullptr;
  const double plain = std::strtod(text.c_str(), &end);
  if (!text.empty() && *end == '\0') return plain;
  if (const auto bytes = conf::parse_size_bytes(text)) return static_cast<double>(*bytes);
  if (const auto ns = conf::parse_time_ns(text)) return *ns;
  if (const auto bps = conf::parse_rate_bps(text)) return *bps;
  return std::nullopt;
}

std::optional<double> json_number(const nlohmann::json& summary, const std::string& path) {
  const nlohmann::json* node = &summary;
  std::stringstream in(path);
  std::string step;
  while (std::getline(in, step, '.')) {
    if (!node->is_object() || !node->contains(step)) return std::nullopt;
    node = &(*node)[step];
  }
  if (!node->is_number()) return std::nullopt;
  return node->get<double>();
}

FigureData gather_figure(const Figure& figure, const std::vector<VariantResult>& results) {
  FigureData data;
  data.figure = &figure;
  for (const VariantResult& r : results) {
    if (!figure.runs.empty() &&
        std::find(figure.runs.begin(), figure.runs.end(), r.run->name) == figure.runs.end()) {
      continue;  // the figure draws only the runs it names
    }
    FigureSeries& series = series_named(data.series, series_name(*r.run, r.variant, figure));
    if (!figure.source.empty()) {
      read_source(figure, r, series, data.problems);
      continue;
    }
    const std::optional<double> raw = json_number(r.summary, figure.y);
    if (!raw) {
      data.problems.push_back(fmt::format("{}/{}: summary.json has no number at {}", r.run->name,
                                          r.variant.name, figure.y));
      continue;
    }
    const std::optional<double> y = plotted_y(figure, r, *raw, data.problems);
    if (!y) continue;
    if (figure.by_variant()) {
      const size_t index = static_cast<size_t>(&series - data.series.data());
      add_sample(series, static_cast<double>(index), series.name, r.seed, *y);
      continue;
    }
    const auto setting = std::find_if(r.variant.settings.begin(), r.variant.settings.end(),
                                      [&figure](const Setting& s) { return s.key == figure.x; });
    const std::optional<double> x =
        setting == r.variant.settings.end() ? std::nullopt : axis_value(setting->value);
    if (!x) {
      data.problems.push_back(fmt::format("{}/{}: {} is not swept or set to a number in this run",
                                          r.run->name, r.variant.name, figure.x));
      continue;
    }
    add_sample(series, *x / figure.x_divide, setting->value, r.seed, *y);
  }
  finish_figure(data);
  return data;
}

namespace {

// The series a `series: [a, b], pick: min` check reads: at every x all of them have (a bar
// figure: at their one bar), per seed
// all of them ran, the smallest (largest) of their values; nullopt, and `problem` said, when
// one is missing.
std::optional<FigureSeries> picked_series(const FigureData& data, const Check& check,
                                          std::string& problem) {
  std::vector<const FigureSeries*> parts;
  for (const std::string& name : check.picked) {
    const FigureSeries* s = find_series(data, name);
    if (s == nullptr) {
      problem =
          fmt::format("no series '{}' in {} (it has: {})", name, check.figure, series_list(data));
      return std::nullopt;
    }
    parts.push_back(s);
  }
  FigureSeries out;
  out.name = check.series;
  for (const FigurePoint& first : parts[0]->points) {
    FigurePoint point = first;
    point.per_seed.clear();
    for (const SeedValue& seed : first.per_seed) {
      double y = seed.y;
      bool everywhere = true;
      for (size_t i = 1; i < parts.size() && everywhere; ++i) {
        everywhere = false;
        for (const FigurePoint& p : parts[i]->points) {
          if (!data.figure->by_variant() && p.x != first.x) continue;  // a bar: one point
          for (const SeedValue& other : p.per_seed) {
            if (other.seed != seed.seed) continue;
            y = check.pick == Pick::kMin ? std::min(y, other.y) : std::max(y, other.y);
            everywhere = true;
          }
        }
      }
      if (everywhere) point.per_seed.push_back({seed.seed, y});
    }
    if (point.per_seed.empty()) continue;
    point.ci = mean_interval(ys(point.per_seed));
    point.y = point.ci.mean;
    out.points.push_back(std::move(point));
  }
  return out;
}

}  // namespace

CheckOutcome evaluate_check(const Check& check, const std::vector<FigureData>& figures) {
  CheckOutcome out;
  out.check = &check;
  const auto data = std::find_if(figures.begin(), figures.end(), [&check](const FigureData& d) {
    return d.figure->name == check.figure;
  });
  if (data == figures.end()) {
    out.detail = fmt::format("no figure '{}'", check.figure);
    return out;
  }
  std::optional<FigureSeries> picked;
  if (!check.picked.empty()) {
    picked = picked_series(*data, check, out.detail);
    if (!picked) {
      out.verdict = Verdict::kNotReproduced;  // only paper checks take a list
      return out;
    }
  }
  const FigureSeries* series = picked ? &*picked : find_series(*data, check.series);
  if (series == nullptr) {
    out.detail = fmt::format("no series '{}' in {} (it has: {})", check.series, check.figure,
                             series_list(*data));
    return out;
  }
  if (check.kind == CheckKind::kPaper) return evaluate_paper_check(check, *data, *series);
  const auto by_y = [](const FigurePoint& a, const FigurePoint& b) { return a.y < b.y; };
  switch (check.kind) {
    case CheckKind::kPaper:
      break;
    case CheckKind::kSlopeBelow:
    case CheckKind::kSlopeBetween:
      if (!series->slope) {
        out.detail = "no slope: fewer than two points with x > 0 and y > 0";
        return out;
      }
      out.passed = check.kind == CheckKind::kSlopeBelow
                       ? *series->slope < check.a
                       : *series->slope >= check.a && *series->slope <= check.b;
      out.detail = fmt::format("slope {:.3f}", *series->slope);
      return out;
    case CheckKind::kMaxAtMost: {
      const FigurePoint& p = *std::max_element(series->points.begin(), series->points.end(), by_y);
      out.passed = p.y <= check.a;
      out.detail = fmt::format("max {} at {}", number(p.y), p.x_text);
      return out;
    }
    case CheckKind::kMinAtLeast: {
      const FigurePoint& p = *std::min_element(series->points.begin(), series->points.end(), by_y);
      out.passed = p.y >= check.a;
      out.detail = fmt::format("min {} at {}", number(p.y), p.x_text);
      return out;
    }
    case CheckKind::kBelowSeries:
    case CheckKind::kRatioAtMost: {
      const FigureSeries* other = find_series(*data, check.other);
      if (other == nullptr) {
        out.detail = fmt::format("no series '{}' in {} (it has: {})", check.other, check.figure,
                                 series_list(*data));
        return out;
      }
      const std::vector<std::pair<double, double>> pairs = paired(*data, *series, *other);
      if (pairs.empty()) {
        out.detail = fmt::format("{} and {} share no x", check.series, check.other);
        return out;
      }
      out.passed = true;
      double worst = check.kind == CheckKind::kBelowSeries ? -INFINITY : 0;
      for (const auto& [y, y_other] : pairs) {
        if (check.kind == CheckKind::kBelowSeries) {
          out.passed = out.passed && y < y_other;
          worst = std::max(worst, y - y_other);
        } else {
          const double ratio = y_other == 0 ? (y == 0 ? 1 : INFINITY) : y / y_other;
          out.passed = out.passed && ratio <= check.a;
          worst = std::max(worst, ratio);
        }
      }
      out.detail = check.kind == CheckKind::kBelowSeries
                       ? fmt::format("largest difference {} − {}: {} over {} x", check.series,
                                     check.other, number(worst), pairs.size())
                       : fmt::format("largest ratio {:.4f} over {} x", worst, pairs.size());
      if (check.kind == CheckKind::kBelowSeries) {
        const auto [apart, shared] = intervals_apart(*data, *series, *other);
        out.detail += fmt::format("; 95 % intervals apart at {} of {} x", apart, shared);
      }
      return out;
    }
  }
  return out;
}

}  // namespace spraylab::fabric
