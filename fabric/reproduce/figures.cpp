#include "fabric/reproduce/figures.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "conf/units.h"
#include "fabric/reproduce/loglog_fit.h"
#include "fabric/reproduce/model_curves.h"
#include "fabric/results/plots.h"
#include "fabric/results/result_files.h"

namespace spraylab::fabric {
namespace {

namespace fs = std::filesystem;

constexpr int kWidth = 1000;
constexpr int kHeight = 600;

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

}  // namespace

Interval interval_over_seeds(const std::vector<SeedValue>& values) {
  std::vector<double> ys;
  for (const SeedValue& v : values) ys.push_back(v.y);
  return mean_interval(ys);
}

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
      p.ci = interval_over_seeds(p.per_seed);
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

// The figure's title and what ours are, as a gnuplot string expression, wrapped at spaces into
// lines that fit the 1000-pixel image: gnuplot cuts a longer title at both edges (mrls-11k's
// RSP figure lost its "RSP").
std::string plot_title(const FigureData& data) {
  constexpr size_t kLine = 110;  // characters of the default font in 1000 pixels, with room
  const size_t n = seed_count(data);
  const std::string text =
      data.figure->title + (n > 1 ? fmt::format(" (ours: mean and 95% CI over {} seeds)", n)
                                  : std::string(" (ours: 1 seed, no interval)"));
  std::vector<std::string> lines{""};
  size_t from = 0;
  while (from < text.size()) {
    size_t to = text.find(' ', from);
    if (to == std::string::npos) to = text.size();
    const std::string word = text.substr(from, to - from);
    if (!lines.back().empty() && lines.back().size() + 1 + word.size() > kLine) lines.emplace_back();
    lines.back() += (lines.back().empty() ? "" : " ") + word;
    from = to + 1;
  }
  std::string out;
  for (const std::string& line : lines) {
    out += (out.empty() ? "" : ".\"\\n\".") + gnuplot_quoted(line);
  }
  return out;
}

std::string line_plot(const FigureData& data, const std::string& extension,
                      const std::string& terminal) {
  const Figure& f = *data.figure;
  std::string s = terminal + fmt::format("set output '{}.{}'\n", f.name, extension);
  s += fmt::format("set title {}\nset xlabel {}\nset ylabel {}\n", plot_title(data),
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
  s += fmt::format("set title {}\nset xlabel ''\nset ylabel {}\n", plot_title(data),
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
  return fmt::format("{} figure{} (PNG and SVG) in {}", figures.size(),
                     figures.size() == 1 ? "" : "s", dir);
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

}  // namespace spraylab::fabric
