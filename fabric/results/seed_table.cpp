#include "fabric/results/seed_table.h"

#include <fmt/format.h>

#include <cmath>
#include <functional>
#include <optional>

#include "fabric/results/confidence.h"
#include "fabric/results/table.h"
#include "fabric/run/variants.h"

namespace spraylab::fabric {
namespace {

// One value a row has (or not: the CCT of an incomplete run), its table heading, the factor
// the table shows it in and its format, and its CSV name.
struct SeedColumn {
  const char* heading;
  const char* csv_name;
  std::function<std::optional<double>(const VariantSummary&)> value;
  double shown_per_unit = 1;  // table: value / this
  const char* format = "{:.1f}";
};

const std::vector<SeedColumn>& seed_columns() {
  static const std::vector<SeedColumn> kColumns = {
      {"CCT us", "cct_ns", [](const auto& s) { return s.cct_ns; }, 1e3},
      {"inflation %", "inflation", [](const auto& s) { return s.inflation; }, 0.01},
      {"msg p99 us", "message_p99_ns",
       [](const auto& s) -> std::optional<double> {
         if (!s.message_cct_p99_ns) return std::nullopt;
         return static_cast<double>(*s.message_cct_p99_ns);
       },
       1e3},
      {"max queue KB", "max_queue_bytes",
       [](const auto& s) { return std::optional<double>(s.queue.max_bytes); }, 1e3},
      {"p99 queue KB", "p99_queue_bytes",
       [](const auto& s) { return std::optional<double>(s.queue.p99_bytes); }, 1e3},
      {"utilisation %", "utilisation", [](const auto& s) { return s.utilisation_mean; }, 0.01},
      {"drops", "switch_drops", [](const auto& s) { return std::optional<double>(s.switch_drops); },
       1, "{:.0f}"},
      {"reordered %", "out_of_order_fraction",
       [](const auto& s) { return s.out_of_order_fraction; }, 0.01},
  };
  return kColumns;
}

struct Point {
  std::string name;
  std::vector<const VariantSummary*> seeds;
};

// The rows grouped by point, in the order each point first appears.
std::vector<Point> points(const std::vector<VariantSummary>& rows) {
  std::vector<Point> out;
  for (const VariantSummary& r : rows) {
    const std::string name = name_without_seed(r.variant);
    auto it =
        std::find_if(out.begin(), out.end(), [&name](const Point& p) { return p.name == name; });
    if (it == out.end()) it = out.insert(out.end(), Point{name, {}});
    it->seeds.push_back(&r);
  }
  return out;
}

std::optional<Interval> interval_of(const Point& p, const SeedColumn& c) {
  std::vector<double> values;
  for (const VariantSummary* s : p.seeds) {
    if (const std::optional<double> v = c.value(*s)) values.push_back(*v);
  }
  if (values.empty()) return std::nullopt;
  return mean_interval(values);
}

std::string cell(const Point& p, const SeedColumn& c) {
  const std::optional<Interval> i = interval_of(p, c);
  if (!i) return "-";
  const std::string mean = fmt::format(fmt::runtime(c.format), i->mean / c.shown_per_unit);
  // Fewer seeds than points of the variant: some did not give the value (incomplete). Said
  // with one value too, where there is no interval: a bare mean read as every seed's.
  const std::string n = i->n < p.seeds.size() ? fmt::format(" (n={})", i->n) : "";
  if (!std::isfinite(i->half_width)) return mean + n;
  const std::string half = fmt::format(fmt::runtime(c.format), i->half_width / c.shown_per_unit);
  return mean + " ± " + half + n;
}

}  // namespace

std::string format_seed_table(const std::vector<VariantSummary>& rows) {
  const std::vector<Point> all = points(rows);
  std::vector<std::vector<std::string>> cells;
  std::vector<std::string> heading = {"variant", "seeds"};
  for (const SeedColumn& c : seed_columns()) heading.push_back(c.heading);
  cells.push_back(heading);
  for (const Point& p : all) {
    std::vector<std::string> line = {p.name, fmt::format("{}", p.seeds.size())};
    for (const SeedColumn& c : seed_columns()) line.push_back(cell(p, c));
    cells.push_back(line);
  }
  std::vector<size_t> width(heading.size(), 0);
  for (const auto& line : cells) {
    for (size_t c = 0; c < line.size(); ++c) width[c] = std::max(width[c], line[c].size());
  }
  std::string out;
  const auto print = [&](const std::vector<std::string>& line) {
    std::string text;
    for (size_t c = 0; c < line.size(); ++c) {
      if (c > 0) text += "  ";
      text += c == 0 ? fmt::format("{:<{}}", line[c], width[c])
                     : fmt::format("{:>{}}", line[c], width[c]);
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    out += text + "\n";
  };
  print(cells[0]);
  std::vector<std::string> rule;
  for (size_t w : width) rule.push_back(std::string(w, '-'));
  print(rule);
  for (size_t i = 1; i < cells.size(); ++i) print(cells[i]);
  return out;
}

std::string format_seed_csv(const std::vector<VariantSummary>& rows) {
  std::string out = "variant,seeds";
  for (const SeedColumn& c : seed_columns()) {
    out += fmt::format(",{0}_mean,{0}_ci_low,{0}_ci_high", c.csv_name);
  }
  out += "\n";
  for (const Point& p : points(rows)) {
    out += fmt::format("{},{}", csv_field(p.name), p.seeds.size());
    for (const SeedColumn& c : seed_columns()) {
      const std::optional<Interval> i = interval_of(p, c);
      if (!i) {
        out += ",,,";
      } else if (!std::isfinite(i->half_width)) {
        out += fmt::format(",{},,", i->mean);
      } else {
        out += fmt::format(",{},{},{}", i->mean, i->low(), i->high());
      }
    }
    out += "\n";
  }
  return out;
}

}  // namespace spraylab::fabric
