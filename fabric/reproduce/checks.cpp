#include "fabric/reproduce/checks.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cassert>
#include <cmath>
#include <map>

#include "fabric/reproduce/figures.h"

namespace spraylab::fabric {
namespace {

std::string number(double v) { return fmt::format("{:.4g}", v); }

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

// What a check says of a series name `data` does not draw.
std::string no_series(const std::string& name, const Check& check, const FigureData& data) {
  return fmt::format("no series '{}' in {} (it has: {})", name, check.figure, series_list(data));
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

// One seed's value in two series.
struct SeedPair {
  uint64_t seed = 0;
  double a = 0;
  double b = 0;
};

// a's and b's values seed by seed: both series ran the same seed's traffic; a model pairs with
// every seed.
std::vector<SeedPair> paired_by_seed(const std::vector<SeedValue>& a, bool a_model,
                                     const std::vector<SeedValue>& b, bool b_model) {
  std::vector<SeedPair> out;
  for (const SeedValue& x : a) {
    for (const SeedValue& y : b) {
      if (a_model || b_model || x.seed == y.seed) {
        out.push_back({b_model ? x.seed : y.seed, x.y, y.y});
      }
    }
  }
  return out;
}

// a − b seed by seed.
std::vector<SeedValue> difference_by_seed(const std::vector<SeedValue>& a, bool a_model,
                                          const std::vector<SeedValue>& b, bool b_model) {
  std::vector<SeedValue> out;
  for (const SeedPair& p : paired_by_seed(a, a_model, b, b_model)) {
    out.push_back({p.seed, p.a - p.b});
  }
  return out;
}

// a / b seed by seed (a ratio, from:, argmin's to:). A seed whose b is 0 has no quotient: it is
// never dropped silently but named in `problem`, after `what` ("ofan over rps at 16KiB") if any,
// and nullopt is returned, so that nothing is judged on the other seeds alone.
std::optional<std::vector<SeedValue>> quotient_by_seed(const std::vector<SeedValue>& a,
                                                       bool a_model,
                                                       const std::vector<SeedValue>& b,
                                                       bool b_model, const std::string& what,
                                                       std::string& problem) {
  std::vector<SeedValue> out;
  std::vector<uint64_t> zero;
  for (const SeedPair& p : paired_by_seed(a, a_model, b, b_model)) {
    if (p.b == 0) {
      zero.push_back(p.seed);
    } else {
      out.push_back({p.seed, p.a / p.b});
    }
  }
  if (zero.empty()) return out;
  problem = fmt::format(
      "{}{}a quotient with a zero denominator for seed{} {}: not judged on the others", what,
      what.empty() ? "" : ": ", zero.size() == 1 ? "" : "s", fmt::join(zero, ", "));
  return std::nullopt;
}

// The measure at x = `at` per seed: the series' y, or its ratio to or difference from the other
// series' y at the same x and seed. Empty, and `problem` said, when a point is missing. Here and
// below, every series the check names is in `data`: evaluate_check() found them (missing_name).
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
    problem = fmt::format("{} has no point at {}", check.other, at);
    return {};
  }
  const std::vector<SeedValue> a = seed_values(series, *p);
  const std::vector<SeedValue> b = seed_values(*other, *q);
  std::vector<SeedValue> out;
  if (check.measure == Measure::kDifference) {
    out = difference_by_seed(a, series.model, b, other->model);
  } else if (auto ratio = quotient_by_seed(
                 a, series.model, b, other->model,
                 fmt::format("{} over {} at {}", check.series, check.other, at), problem)) {
    out = std::move(*ratio);
  } else {
    return {};
  }
  if (out.empty()) problem = fmt::format("{} and {} share no seed", check.series, check.other);
  return out;
}

// Per seed, over every x of the series: kArgmin, the x at which it is lowest (a model: its lowest
// point, its optimum); kMax, its largest y (the saturation throughput of an accepted-load series
// over a sweep of offered load). Only a seed with a value at every x of the series has one; the
// others (a variant stopped by its timeout) are named in `incomplete`.
std::vector<SeedValue> over_x_per_seed(const FigureSeries& series, Measure measure,
                                       std::vector<uint64_t>& incomplete) {
  const bool max = measure == Measure::kMax;
  std::map<uint64_t, std::pair<double, double>> best;  // seed → (its lowest/highest y, its x)
  std::map<uint64_t, size_t> points_of;                // seed → x it has a value at
  for (const FigurePoint& p : series.points) {
    for (const SeedValue& v : seed_values(series, p)) {
      ++points_of[v.seed];
      const auto it = best.find(v.seed);
      if (it == best.end() || (max ? v.y > it->second.first : v.y < it->second.first)) {
        best[v.seed] = {v.y, p.x};
      }
    }
  }
  std::vector<SeedValue> out;
  for (const auto& [seed, y_x] : best) {
    if (points_of[seed] == series.points.size()) {
      out.push_back({seed, max ? y_x.first : y_x.second});
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
  } else if (check.measure == Measure::kArgmin || check.measure == Measure::kMax) {
    std::vector<uint64_t> incomplete;
    values = over_x_per_seed(series, check.measure, incomplete);
    if (!check.other.empty()) {
      const FigureSeries* other = find_series(data, check.other);
      assert(other != nullptr);
      values =
          quotient_by_seed(values, series.model, over_x_per_seed(*other, check.measure, incomplete),
                           other->model, "", out.detail)
              .value_or(std::vector<SeedValue>{});
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
      values = quotient_by_seed(values, false, base, false,
                                fmt::format("at {} over at {}", check.at, check.from), out.detail)
                   .value_or(std::vector<SeedValue>{});
      if (values.empty() && out.detail.empty()) {
        out.detail = fmt::format("{} and {} share no seed", check.at, check.from);
      }
    }
  }
  if (!values.empty()) out.measured = interval_over_seeds(values);
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

// The series a `series: [a, b], pick: min` check reads: at every x all of them have (a bar
// figure: at their one bar), per seed all of them ran, the smallest (largest) of their values.
// Every name is in `data` (evaluate_check's missing_name()).
FigureSeries picked_series(const FigureData& data, const Check& check) {
  std::vector<const FigureSeries*> parts;
  for (const std::string& name : check.picked) {
    const FigureSeries* s = find_series(data, name);
    assert(s != nullptr);
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
    point.ci = interval_over_seeds(point.per_seed);
    point.y = point.ci.mean;
    out.points.push_back(std::move(point));
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

namespace {

// "" when every name the check reads is in `data`, else what is missing.
std::string missing_name(const Check& check, const FigureData& data) {
  std::vector<std::string> names = check.picked;
  if (names.empty()) names.push_back(check.series);
  if (!check.other.empty()) names.push_back(check.other);
  for (const std::string& name : names) {
    if (find_series(data, name) == nullptr) {
      return no_series(name, check, data);
    }
  }
  return "";
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
    out.misnamed = true;
    return out;
  }
  if (data->series.empty()) {
    // Before the names: a figure without series cannot say whether a name is wrong. Every check
    // of it alike, a plain one or one picking among several series, an ordering or a paper's.
    out.detail = fmt::format("figure '{}' draws nothing: no variant has its values", check.figure);
    out.no_data = true;
    return out;
  }
  if (std::string missing = missing_name(check, *data); !missing.empty()) {
    out.detail = std::move(missing);
    out.misnamed = true;
    return out;
  }
  std::optional<FigureSeries> picked;
  if (!check.picked.empty()) picked = picked_series(*data, check);
  const FigureSeries* series = picked ? &*picked : find_series(*data, check.series);
  assert(series != nullptr);  // missing_name() above
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
      assert(other != nullptr);  // missing_name() above
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
