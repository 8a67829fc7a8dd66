#include "fabric/reproduce/figures.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
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
  if (it == all.end()) it = all.insert(all.end(), FigureSeries{name, {}, std::nullopt});
  return *it;
}

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
    series.points.push_back({x / figure.x_divide, y / figure.y_divide, cells[xi]});
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

std::string data_file(const Figure& f, size_t i) {
  return fmt::format("data/{}.{}.dat", f.name, i);
}

std::string line_plot(const FigureData& data, const std::string& extension,
                      const std::string& terminal) {
  const Figure& f = *data.figure;
  std::string s = terminal + fmt::format("set output '{}.{}'\n", f.name, extension);
  s += fmt::format("set title {}\nset xlabel {}\nset ylabel {}\n", gnuplot_quoted(f.title),
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
    add(fmt::format("{} using 1:2{} with linespoints lw 2 pt 7 title {}",
                    gnuplot_quoted(data_file(f, i)), tick_labels ? ":xtic(3)" : "",
                    gnuplot_quoted(data.series[i].name)));
  }
  for (size_t i = 0; i < f.marks.size(); ++i) {
    const Mark& m = f.marks[i];
    const std::string label = m.series.empty() ? m.label : m.label + " (" + m.series + ")";
    if (m.x) {
      add(fmt::format("{} using 1:2 with points pt 6 ps 2.5 lw 2 title {}",
                      gnuplot_quoted(fmt::format("data/{}.mark{}.dat", f.name, i)),
                      gnuplot_quoted("paper: " + label)));
    } else {
      add(fmt::format("{} with lines dt 2 lw 2 title {}", m.y, gnuplot_quoted("paper: " + label)));
    }
  }
  if (plots.empty()) return "";
  return s + "plot " + plots + "\nunset output\nset xtics auto\nset yrange [*:*]\n";
}

std::string bar_plot(const FigureData& data, const std::string& extension,
                     const std::string& terminal) {
  const Figure& f = *data.figure;
  std::string s = terminal + fmt::format("set output '{}.{}'\n", f.name, extension);
  s += fmt::format("set title {}\nset xlabel ''\nset ylabel {}\n", gnuplot_quoted(f.title),
                   gnuplot_quoted(f.y_label));
  s += "unset logscale x\n";
  s += f.log_y ? "set logscale y\n" : "unset logscale y\nset yrange [0:*]\n";
  s += "set style fill solid 0.8 border -1\nset boxwidth 0.7\nset xtics rotate by -30\n"
       "set offsets 0.5, 0.5, graph 0.08, 0\n";
  const std::string bars = gnuplot_quoted(fmt::format("data/{}.bars.dat", f.name));
  std::string plots = fmt::format(
      "{0} using 0:2:xtic(1) with boxes notitle, {0} using 0:2:(sprintf('%.4g', $2)) with "
      "labels offset 0,0.8 notitle",
      bars);
  for (size_t i = 0; i < f.marks.size(); ++i) {
    const Mark& m = f.marks[i];
    if (m.series.empty()) {
      plots += fmt::format(", {} with lines dt 2 lw 2 title {}", m.y,
                           gnuplot_quoted("paper: " + m.label));
    } else {
      plots += fmt::format(", {} using 1:2 with points pt 6 ps 2.5 lw 2 title {}",
                           gnuplot_quoted(fmt::format("data/{}.mark{}.dat", f.name, i)),
                           gnuplot_quoted("paper: " + m.label));
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

std::string draw_figures(const std::string& dir, const std::vector<FigureData>& figures) {
  const std::string gnuplot = find_gnuplot();
  fs::create_directories(fs::path(dir) / "data");
  std::string script =
      "# Written by spraylab reproduce; `gnuplot figures.gp` here redraws.\n"
      "set grid\nset key outside right top noenhanced\n";
  for (const FigureData& data : figures) {
    const Figure& f = *data.figure;
    if (f.by_variant()) {
      std::string bars = "# series y\n";
      for (const FigureSeries& s : data.series) {
        if (!s.points.empty()) bars += fmt::format("\"{}\" {}\n", s.name, s.points[0].y);
      }
      write_file((fs::path(dir) / fmt::format("data/{}.bars.dat", f.name)).string(), bars);
    } else {
      for (size_t i = 0; i < data.series.size(); ++i) {
        std::string text = "# x y label\n";
        for (const FigurePoint& p : data.series[i].points) {
          text += fmt::format("{} {} \"{}\"\n", p.x, p.y, p.x_text);
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

}  // namespace

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
      series.points.push_back({static_cast<double>(data.series.size() - 1), *y, series.name});
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
    series.points.push_back({*x / figure.x_divide, *y, setting->value});
  }
  std::erase_if(data.series, [](const FigureSeries& s) { return s.points.empty(); });
  for (FigureSeries& s : data.series) {
    if (!figure.source.empty()) continue;  // a CSV's rows keep their order
    std::stable_sort(s.points.begin(), s.points.end(),
                     [](const FigurePoint& a, const FigurePoint& b) { return a.x < b.x; });
  }
  if (figure.fit_loglog) {
    for (FigureSeries& s : data.series) {
      std::vector<double> x, y;
      for (const FigurePoint& p : s.points) {
        x.push_back(p.x);
        y.push_back(p.y);
      }
      s.slope = loglog_slope(x, y);
    }
  }
  return data;
}

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
  const FigureSeries* series = find_series(*data, check.series);
  if (series == nullptr) {
    out.detail = fmt::format("no series '{}' in {} (it has: {})", check.series, check.figure,
                             series_list(*data));
    return out;
  }
  const auto by_y = [](const FigurePoint& a, const FigurePoint& b) { return a.y < b.y; };
  switch (check.kind) {
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
      return out;
    }
  }
  return out;
}

namespace {

// A figure of one value per variant (a bar), or of a time series (its mean and extremes: the
// figure shows the rest), as a table of series.
std::string series_table(const Figure& f, const FigureData& data) {
  std::string md;
  md += fmt::format("| series | {} |{}\n| --- | ---: |{}\n", f.y_label,
                    f.source.empty() ? "" : " points |", f.source.empty() ? "" : " ---: |");
  for (const FigureSeries& s : data.series) {
    if (f.source.empty()) {
      md += fmt::format("| {} | {} |\n", s.name, number(s.points[0].y));
    } else {
      // A time series: its mean and extremes, the figure shows the rest.
      double sum = 0, lo = INFINITY, hi = -INFINITY;
      for (const FigurePoint& p : s.points) {
        sum += p.y;
        lo = std::min(lo, p.y);
        hi = std::max(hi, p.y);
      }
      md += fmt::format("| {} | mean {}, min {}, max {} | {} |\n", s.name,
                        number(sum / s.points.size()), number(lo), number(hi), s.points.size());
    }
  }
  return md;
}

// A figure over x as a table: one row per x, one column per series, and the log-log slopes.
std::string x_table(const Figure& f, const FigureData& data) {
  std::string md;
  std::vector<std::pair<double, std::string>> xs;
  for (const FigureSeries& s : data.series) {
    for (const FigurePoint& p : s.points) {
      if (std::none_of(xs.begin(), xs.end(), [&p](const auto& x) { return x.first == p.x; }))
        xs.emplace_back(p.x, f.x_divide == 1 ? p.x_text : number(p.x));
    }
  }
  std::sort(xs.begin(), xs.end());
  md += fmt::format("| {} |", f.x_label);
  std::string rule = "| ---: |";
  for (const FigureSeries& s : data.series) {
    md += fmt::format(" {} |", s.name);
    rule += " ---: |";
  }
  md += "\n" + rule + "\n";
  for (const auto& [x, text] : xs) {
    md += fmt::format("| {} |", text);
    for (const FigureSeries& s : data.series) {
      const auto p = std::find_if(s.points.begin(), s.points.end(),
                                  [x = x](const FigurePoint& q) { return q.x == x; });
      md += p == s.points.end() ? " |" : fmt::format(" {} |", number(p->y));
    }
    md += "\n";
  }
  if (f.fit_loglog) {
    md += "| log-log slope |";
    for (const FigureSeries& s : data.series) {
      md += s.slope ? fmt::format(" {:.3f} |", *s.slope) : std::string(" — |");
    }
    md += "\n";
  }
  return md;
}

// What the figure's values are, the paper's marks, what no variant gave, and the plot.
std::string figure_notes(const Figure& f, const FigureData& data) {
  std::string md;
  md += f.relative_to.empty()
            ? fmt::format("\n{} ({}).\n", f.y_label, f.y)
            : fmt::format("\n{} ({}, % above {}).\n", f.y_label, f.y,
                          f.relative_to_value ? number(*f.relative_to_value) : f.relative_to);
  for (const Mark& m : f.marks) {
    md += fmt::format("Paper: {}{}{} = {}.\n", m.label,
                      m.series.empty() ? "" : fmt::format(" ({})", m.series),
                      m.x ? fmt::format(" at x = {}", number(*m.x)) : "", number(m.y));
  }
  for (const std::string& p : data.problems) md += fmt::format("Missing: {}.\n", p);
  md += fmt::format("\n![{}](figures/{}.png)\n\n", f.title, f.name);
  return md;
}

}  // namespace

std::string report_markdown(const Reproduction& reproduction, const std::string& command,
                            const std::vector<FigureData>& figures,
                            const std::vector<CheckOutcome>& checks, bool small) {
  std::string md = fmt::format("# {}\n\n", reproduction.title);
  if (!reproduction.paper.empty()) md += fmt::format("Paper: {}.\n\n", reproduction.paper);
  md += fmt::format("Command: `{}`{}\n\n", command,
                    small ? " (the small version make test runs)" : "");
  for (const FigureData& data : figures) {
    const Figure& f = *data.figure;
    md += fmt::format("## {}\n\n", f.title);
    md += f.by_variant() || !f.source.empty() ? series_table(f, data) : x_table(f, data);
    md += figure_notes(f, data);
  }
  if (!checks.empty()) {
    md +=
        "## Checks\n\n| figure | series | check | measured | verdict |\n| --- | --- | --- | --- | "
        "--- |\n";
    for (const CheckOutcome& c : checks) {
      md += fmt::format("| {} | {} | {} | {} | {} |\n", c.check->figure, c.check->series,
                        c.check->text, c.detail, c.passed ? "holds" : "**fails**");
    }
  }
  return md;
}

std::string write_report(const std::string& dir, const Reproduction& reproduction,
                         const std::string& command, const std::vector<FigureData>& figures,
                         const std::vector<CheckOutcome>& checks, bool small) {
  const fs::path figures_dir = fs::path(dir) / "figures";
  nlohmann::ordered_json report = {{"name", reproduction.name},
                                   {"title", reproduction.title},
                                   {"paper", reproduction.paper},
                                   {"command", command},
                                   {"small", small}};
  report["figures"] = nlohmann::ordered_json::array();
  for (const FigureData& data : figures) {
    std::string csv = "series,x,x_text,y\n";
    nlohmann::ordered_json f = {{"name", data.figure->name},
                                {"title", data.figure->title},
                                {"x", data.figure->x},
                                {"y", data.figure->y}};
    f["series"] = nlohmann::ordered_json::array();
    for (const FigureSeries& s : data.series) {
      nlohmann::ordered_json series = {{"name", s.name}};
      series["points"] = nlohmann::ordered_json::array();
      for (const FigurePoint& p : s.points) {
        series["points"].push_back({{"x", p.x}, {"x_text", p.x_text}, {"y", p.y}});
        csv += fmt::format("{},{},{},{}\n", s.name, p.x, p.x_text, p.y);
      }
      series["slope"] = s.slope ? nlohmann::ordered_json(*s.slope) : nlohmann::ordered_json();
      f["series"].push_back(series);
    }
    f["marks"] = nlohmann::ordered_json::array();
    for (const Mark& m : data.figure->marks) {
      f["marks"].push_back({{"label", m.label},
                            {"series", m.series},
                            {"x", m.x ? nlohmann::ordered_json(*m.x) : nlohmann::ordered_json()},
                            {"y", m.y}});
    }
    f["problems"] = data.problems;
    report["figures"].push_back(f);
    fs::create_directories(figures_dir);
    write_file((figures_dir / (data.figure->name + ".csv")).string(), csv);
  }
  bool all = true;
  report["checks"] = nlohmann::ordered_json::array();
  for (const CheckOutcome& c : checks) {
    all = all && c.passed;
    report["checks"].push_back({{"figure", c.check->figure},
                                {"series", c.check->series},
                                {"check", c.check->text},
                                {"measured", c.detail},
                                {"passed", c.passed}});
  }
  report["passed"] = all;
  write_file((fs::path(dir) / "report.json").string(), report.dump(2) + "\n");
  write_file((fs::path(dir) / "report.md").string(),
             report_markdown(reproduction, command, figures, checks, small));
  if (figures.empty()) return "no figures";
  return draw_figures(figures_dir.string(), figures);
}

}  // namespace spraylab::fabric
