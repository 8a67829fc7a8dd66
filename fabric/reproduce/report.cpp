// The files a reproduction leaves (figures.h): report.md and report.json, seeds.csv (every
// figure's y per point and seed, what --redraw reads) and verdicts.json (every check's outcome,
// the first judgement kept by --redraw).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "fabric/reproduce/figures.h"
#include "fabric/results/result_files.h"
#include "fabric/results/table.h"

namespace spraylab::fabric {
namespace {

namespace fs = std::filesystem;
using ordered_json = nlohmann::ordered_json;

std::string number(double v) { return fmt::format("{:.4g}", v); }

std::string role_name(const Check& c) {
  return std::string(kCheckRoleNames[static_cast<size_t>(c.role)]);
}

// A figure of one value per variant (a bar), or of a time series (its mean and extremes: the
// figure shows the rest), as a table of series.
std::string series_table(const Figure& f, const FigureData& data) {
  std::string md;
  md += fmt::format("| series | {} (mean ± 95 % CI) |{}\n| --- | ---: |{}\n", f.y_label,
                    f.source.empty() ? "" : " points |", f.source.empty() ? "" : " ---: |");
  for (const FigureSeries& s : data.series) {
    if (f.source.empty()) {
      md += fmt::format("| {} | {} |\n", s.name, mean_ci_text(s.points[0].ci));
    } else {
      double sum = 0, lo = INFINITY, hi = -INFINITY;
      for (const FigurePoint& p : s.points) {
        sum += p.y;
        lo = std::min(lo, p.y);
        hi = std::max(hi, p.y);
      }
      md += fmt::format("| {} | mean {}, min {}, max {} (of the means over seeds) | {} |\n", s.name,
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
      md += p == s.points.end() ? " |"
            : s.model           ? fmt::format(" {} (model) |", number(p->y))
                                : fmt::format(" {} |", mean_ci_text(p->ci));
    }
    md += "\n";
  }
  if (f.fit_loglog) {
    md += "| log-log slope |";
    for (const FigureSeries& s : data.series) {
      md += s.slope_ci ? fmt::format(" {} |", mean_ci_text(*s.slope_ci)) : std::string(" — |");
    }
    md += "\n";
  }
  return md;
}

// What the figure's values are, the paper's marks, what no variant gave, and the plot.
std::string figure_notes(const Figure& f, const FigureData& data, const std::string& link) {
  std::string md;
  md +=
      f.relative_to.empty()
          ? fmt::format("\n{} ({}); ours: mean ± 95 % CI half width over seeds.\n", f.y_label, f.y)
          : fmt::format("\n{} ({}, % above {}); ours: mean ± 95 % CI half width over seeds.\n",
                        f.y_label, f.y,
                        f.relative_to_value ? number(*f.relative_to_value) : f.relative_to);
  for (const Mark& m : f.marks) {
    md += fmt::format("Paper: {}{}{} = {}.\n", m.label,
                      m.series.empty() ? "" : fmt::format(" ({})", m.series),
                      m.x ? fmt::format(" at x = {}", number(*m.x)) : "", number(m.y));
  }
  for (const std::string& p : data.problems) md += fmt::format("Missing: {}.\n", p);
  md += fmt::format("\n![{}]({}/{}.png)\n\n", f.title, link, f.name);
  return md;
}

std::string differences_markdown(const Reproduction& r, const std::string& hashes) {
  if (r.differences.empty()) {
    return fmt::format("{} Differences from the paper\n\nNone listed in the experiment file.\n\n",
                       hashes);
  }
  std::string md = fmt::format(
      "{} Differences from the paper\n\n| setting | paper | here | why |\n| --- | --- | --- | --- "
      "|\n",
      hashes);
  for (const Difference& d : r.differences) {
    md += fmt::format("| {} | {} | {} | {} |\n", d.setting, d.paper, d.here, d.why);
  }
  return md + "\n";
}

std::string checks_markdown(const std::vector<CheckOutcome>& checks, const std::string& hashes) {
  std::string md;
  const auto any = [&checks](CheckRole role) {
    return std::any_of(checks.begin(), checks.end(),
                       [role](const CheckOutcome& c) { return c.check->role == role; });
  };
  if (any(CheckRole::kPaper)) {
    md += fmt::format(
        "{} Checks against the paper\n\n| figure | series | the paper | ours | verdict |\n| --- "
        "| --- | --- | --- | --- |\n",
        hashes);
    for (const CheckOutcome& c : checks) {
      if (c.check->role != CheckRole::kPaper) continue;
      md += fmt::format("| {} | {} | {} | {} | **{}**{} |\n", c.check->figure, c.check->series,
                        c.check->text, c.detail,
                        c.verdict ? verdict_name(*c.verdict) : std::string_view("not judged"),
                        c.history.empty() ? "" : " (" + c.history + ")");
    }
    md += "\n";
  }
  for (CheckRole role : {CheckRole::kOrdering, CheckRole::kThreshold}) {
    if (!any(role)) continue;
    md += role == CheckRole::kOrdering
              ? fmt::format("{} Orderings (on the means)\n\n", hashes)
              : fmt::format("{} Thresholds (on the means; not traced to a paper's number yet)\n\n",
                            hashes);
    md += "| figure | series | check | measured | outcome |\n| --- | --- | --- | --- | --- |\n";
    for (const CheckOutcome& c : checks) {
      if (c.check->role != role) continue;
      md += fmt::format("| {} | {} | {} | {} | {}{} |\n", c.check->figure, c.check->series,
                        c.check->text, c.detail,
                        !c.judged() ? "**not judged**"
                        : c.passed ? "holds"
                                   : "**fails**",
                        c.history.empty() ? "" : " (" + c.history + ")");
    }
    md += "\n";
  }
  return md;
}

std::string seeds_text(const std::vector<uint64_t>& seeds) {
  if (seeds.empty()) return "the stored per-seed data (seeds.csv)";
  if (seeds.size() == 1) return fmt::format("1 seed ({})", seeds[0]);
  return fmt::format("{} seeds ({}..{})", seeds.size(), seeds.front(), seeds.back());
}

// One CSV line split into fields, "..." quoting as csv_field writes it.
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        out.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        out.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

ordered_json interval_json(const Interval& i) {
  const bool finite = std::isfinite(i.half_width);
  return {{"n", i.n},
          {"mean", i.mean},
          {"low", finite ? ordered_json(i.low()) : ordered_json()},
          {"high", finite ? ordered_json(i.high()) : ordered_json()}};
}

}  // namespace

std::string seeds_csv(const std::vector<FigureData>& figures) {
  std::string csv = "figure,series,x,x_text,seed,y\n";
  for (const FigureData& data : figures) {
    for (const FigureSeries& s : data.series) {
      for (const FigurePoint& p : s.points) {
        for (const SeedValue& v : p.per_seed) {
          csv += fmt::format("{},{},{},{},{},{}\n", csv_field(data.figure->name), csv_field(s.name),
                             p.x, csv_field(p.x_text), v.seed, v.y);
        }
      }
    }
  }
  return csv;
}

std::vector<SeedRow> parse_seeds_csv(const std::string& text, const std::string& source) {
  std::vector<SeedRow> rows;
  std::istringstream in(text);
  std::string line;
  size_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (number == 1) {
      if (line != "figure,series,x,x_text,seed,y") {
        throw std::runtime_error(
            fmt::format("{}: not a seeds.csv (header figure,series,x,x_text,seed,y)", source));
      }
      continue;
    }
    if (line.empty()) continue;
    const std::vector<std::string> f = csv_fields(line);
    SeedRow row;
    char* end_x = nullptr;
    char* end_y = nullptr;
    char* end_seed = nullptr;
    if (f.size() == 6) {
      row = {f[0],
             f[1],
             std::strtod(f[2].c_str(), &end_x),
             f[3],
             std::strtoull(f[4].c_str(), &end_seed, 10),
             std::strtod(f[5].c_str(), &end_y)};
    }
    if (f.size() != 6 || *end_x != '\0' || *end_y != '\0' || *end_seed != '\0' || f[4].empty()) {
      throw std::runtime_error(fmt::format("{}:{}: malformed row '{}'", source, number, line));
    }
    rows.push_back(std::move(row));
  }
  if (number == 0) throw std::runtime_error(fmt::format("{}: empty", source));
  return rows;
}

ordered_json verdicts_json(const std::vector<CheckOutcome>& checks) {
  ordered_json out = {{"vocabulary", kVerdictNames}, {"checks", ordered_json::array()}};
  for (const CheckOutcome& c : checks) {
    if (!c.judged()) continue;  // never judged: its first judgement is still to come
    ordered_json j = {{"id", c.check->id},
                      {"hash", c.check->hash},
                      {"kind", role_name(*c.check)},
                      {"check", c.check->text},
                      {"measured", c.detail}};
    if (c.check->role == CheckRole::kPaper) {
      j["paper"] = c.check->rule.paper;
      if (c.check->rule.bound != Bound::kPoint) {
        j["bound"] = c.check->rule.bound == Bound::kAtLeast ? "at_least" : "at_most";
      }
      j["where"] = c.check->where;
      j["tolerance"] = c.check->tolerance_text;
      j["interval"] = c.measured ? interval_json(*c.measured) : ordered_json();
      j["verdict"] = verdict_name(*c.verdict);
    } else {
      j["passed"] = c.passed;
    }
    if (!c.history.empty()) j["history"] = c.history;
    out["checks"].push_back(j);
  }
  return out;
}

void keep_stored_verdicts(std::vector<CheckOutcome>& checks, const nlohmann::json& stored) {
  if (!stored.is_object() || !stored.contains("checks")) return;
  for (CheckOutcome& c : checks) {
    if (!c.judged()) continue;  // not judged now: nothing to keep or compare
    for (const nlohmann::json& s : stored["checks"]) {
      if (s.value("id", "") != c.check->id) continue;
      const bool same = s.value("hash", "") == c.check->hash;
      const bool paper = c.check->role == CheckRole::kPaper;
      const std::string was =
          paper ? s.value("verdict", "") : (s.value("passed", false) ? "holds" : "fails");
      const bool stored_failure =
          paper ? was == verdict_name(Verdict::kNotReproduced) : was == "fails";
      if (same) {
        // The first judgement of this very check stands: the data have not changed either.
        if (paper) {
          const std::optional<Verdict> v = find_verdict(was);
          if (v && v != c.verdict) {
            c.history = fmt::format("kept the first verdict; judged again now: {}",
                                    verdict_name(*c.verdict));
            c.verdict = v;
            c.passed = *v == Verdict::kReproduced;
          }
        } else if (stored_failure && c.passed) {
          c.history = "kept the first outcome; holds when judged again now";
          c.passed = false;
        }
      } else {
        c.history = fmt::format("the check changed since it was first judged ({}: {})",
                                s.value("check", ""), was);
        if (stored_failure) {
          c.history += "; a redraw does not turn that into anything else";
          c.passed = false;
          if (paper) c.verdict = Verdict::kNotReproduced;
        }
      }
    }
  }
}

FigureData figure_from_rows(const Figure& figure, const std::vector<SeedRow>& rows) {
  FigureData data;
  data.figure = &figure;
  for (const SeedRow& row : rows) {
    if (row.figure != figure.name) continue;
    auto it = std::find_if(data.series.begin(), data.series.end(),
                           [&row](const FigureSeries& s) { return s.name == row.series; });
    if (it == data.series.end())
      it = data.series.insert(data.series.end(), {row.series, {}, {}, {}, false});
    auto p = std::find_if(it->points.begin(), it->points.end(),
                          [&row](const FigurePoint& q) { return q.x == row.x; });
    if (p == it->points.end()) {
      p = it->points.insert(it->points.end(), FigurePoint{row.x, 0, row.x_text, {}, {}});
    }
    p->per_seed.push_back({row.seed, row.y});
  }
  if (data.series.empty()) {
    data.problems.push_back(fmt::format("seeds.csv has no rows of figure {}", figure.name));
  }
  finish_figure(data);
  return data;
}

std::string not_run_markdown(const Reproduction& reproduction, int heading) {
  const std::string h1(static_cast<size_t>(heading), '#');
  const std::string h2 = h1 + "#";
  std::string md = fmt::format("{} {}\n\n", h1, reproduction.title);
  if (!reproduction.paper.empty()) md += fmt::format("Paper: {}.\n\n", reproduction.paper);
  md += fmt::format(
      "**Not run at full size yet** (no stored result). Command: `spraylab reproduce {}` ({}). "
      "The settings and checks it will be judged by are below; the reading of the paper they "
      "come from is in results/claims/{}.md.\n\n",
      reproduction.name, reproduction.run_time.empty() ? "not timed yet" : reproduction.run_time,
      reproduction.name);
  md += differences_markdown(reproduction, h2);
  if (!reproduction.checks.empty()) {
    md += fmt::format("{} Checks declared\n\n", h2);
    for (const Check& c : reproduction.checks) md += fmt::format("- {}\n", c.text);
    md += "\n";
  }
  return md;
}

std::string report_markdown(const Reproduction& reproduction, const ReportContext& context,
                            const std::vector<FigureData>& figures,
                            const std::vector<CheckOutcome>& checks) {
  const std::string h1(static_cast<size_t>(context.heading), '#');
  const std::string h2 = h1 + "#";
  std::string md = fmt::format("{} {}\n\n", h1, reproduction.title);
  if (!reproduction.paper.empty()) md += fmt::format("Paper: {}.\n\n", reproduction.paper);
  md += fmt::format("Command: `{}`{}\n\n", context.command,
                    context.small ? " (the small version make test runs)" : "");
  md += fmt::format(
      "Every point ran with {}; tables give the mean ± the 95 % confidence interval's half width "
      "(Student t, n − 1 degrees of freedom), plots draw the interval.\n\n",
      seeds_text(context.seeds));
  md += differences_markdown(reproduction, h2);
  if (!context.settings.empty()) {
    md += fmt::format("{} Settings of every run (resolved)\n\n", h2);
    for (const auto& [run, text] : context.settings) md += fmt::format("- {}: `{}`\n", run, text);
    md += "\n";
  }
  for (const FigureData& data : figures) {
    const Figure& f = *data.figure;
    md += fmt::format("{} {}\n\n", h2, f.title);
    md += f.by_variant() || !f.source.empty() ? series_table(f, data) : x_table(f, data);
    md += figure_notes(f, data, context.figures_link);
  }
  md += checks_markdown(checks, h2);
  return md;
}

std::string write_report(const std::string& dir, const Reproduction& reproduction,
                         const ReportContext& context, const std::vector<FigureData>& figures,
                         const std::vector<CheckOutcome>& checks) {
  const fs::path figures_dir = fs::path(dir) / "figures";
  ordered_json report = {{"name", reproduction.name},   {"title", reproduction.title},
                         {"paper", reproduction.paper}, {"command", context.command},
                         {"small", context.small},      {"seeds", context.seeds}};
  report["differences"] = ordered_json::array();
  for (const Difference& d : reproduction.differences) {
    report["differences"].push_back(
        {{"setting", d.setting}, {"paper", d.paper}, {"here", d.here}, {"why", d.why}});
  }
  report["figures"] = ordered_json::array();
  fs::create_directories(figures_dir);
  for (const FigureData& data : figures) {
    std::string csv = "series,x,x_text,y,ci_low,ci_high,seeds\n";
    ordered_json f = {{"name", data.figure->name},
                      {"title", data.figure->title},
                      {"x", data.figure->x},
                      {"y", data.figure->y},
                      {"source", data.figure->source}};
    f["series"] = ordered_json::array();
    for (const FigureSeries& s : data.series) {
      ordered_json series = {{"name", s.name}, {"model", s.model}};
      series["points"] = ordered_json::array();
      for (const FigurePoint& p : s.points) {
        const ordered_json ci = interval_json(p.ci);
        series["points"].push_back({{"x", p.x}, {"x_text", p.x_text}, {"y", p.y}, {"ci", ci}});
        csv += fmt::format("{},{},{},{},{},{},{}\n", csv_field(s.name), p.x, csv_field(p.x_text),
                           p.y, ci["low"].is_null() ? "" : fmt::format("{}", p.ci.low()),
                           ci["high"].is_null() ? "" : fmt::format("{}", p.ci.high()), p.ci.n);
      }
      series["slope"] = s.slope ? ordered_json(*s.slope) : ordered_json();
      series["slope_ci"] = s.slope_ci ? interval_json(*s.slope_ci) : ordered_json();
      f["series"].push_back(series);
    }
    f["marks"] = ordered_json::array();
    for (const Mark& m : data.figure->marks) {
      f["marks"].push_back({{"label", m.label},
                            {"series", m.series},
                            {"x", m.x ? ordered_json(*m.x) : ordered_json()},
                            {"y", m.y}});
    }
    f["problems"] = data.problems;
    report["figures"].push_back(f);
    write_file((figures_dir / (data.figure->name + ".csv")).string(), csv);
  }
  bool all = true;
  report["checks"] = ordered_json::array();
  for (const CheckOutcome& c : checks) {
    all = all && c.passed;
    ordered_json j = {{"figure", c.check->figure},   {"series", c.check->series},
                      {"kind", role_name(*c.check)}, {"check", c.check->text},
                      {"measured", c.detail},        {"passed", c.passed}};
    if (c.verdict) j["verdict"] = verdict_name(*c.verdict);
    if (!c.judged()) j["not_judged"] = true;
    report["checks"].push_back(j);
  }
  report["passed"] = all;
  write_file((fs::path(dir) / "report.json").string(), report.dump(2) + "\n");
  write_file((fs::path(dir) / "verdicts.json").string(), verdicts_json(checks).dump(2) + "\n");
  write_file((fs::path(dir) / "seeds.csv").string(), seeds_csv(figures));
  write_file((fs::path(dir) / "report.md").string(),
             report_markdown(reproduction, context, figures, checks));
  if (figures.empty()) return "no figures";
  return draw_figures(figures_dir.string(), figures);
}

}  // namespace spraylab::fabric
