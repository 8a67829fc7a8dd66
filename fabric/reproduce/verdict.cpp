#include "fabric/reproduce/verdict.h"

#include <cmath>
#include <cstdlib>
#include <limits>

namespace spraylab::fabric {

std::string_view verdict_name(Verdict v) { return kVerdictNames[static_cast<size_t>(v)]; }

std::optional<Verdict> find_verdict(std::string_view name) {
  for (size_t i = 0; i < kVerdictNames.size(); ++i) {
    if (kVerdictNames[i] == name) return static_cast<Verdict>(i);
  }
  return std::nullopt;
}

std::optional<Tolerance> parse_tolerance(const std::string& text) {
  Tolerance t;
  std::string number = text;
  if (!number.empty() && number.back() == '%') {
    t.relative = true;
    number.pop_back();
  }
  char* end = nullptr;
  const double v = std::strtod(number.c_str(), &end);
  if (number.empty() || *end != '\0' || !(v >= 0) || !std::isfinite(v)) return std::nullopt;
  t.value = t.relative ? v / 100 : v;
  return t;
}

std::pair<double, double> tolerance_band(const VerdictRule& rule) {
  const double width =
      rule.tolerance.relative ? std::fabs(rule.paper) * rule.tolerance.value : rule.tolerance.value;
  const double inf = std::numeric_limits<double>::infinity();
  switch (rule.bound) {
    case Bound::kAtLeast:
      return {rule.paper - width, inf};
    case Bound::kAtMost:
      return {-inf, rule.paper + width};
    case Bound::kPoint:
      break;
  }
  return {rule.paper - width, rule.paper + width};
}

Verdict judge(const VerdictRule& rule, const Interval& measured) {
  if (measured.n < 2 || !std::isfinite(measured.half_width) || !std::isfinite(measured.mean)) {
    return Verdict::kNotReproduced;
  }
  const auto [low, high] = tolerance_band(rule);
  // A bound whose edge is no effect itself ("larger", "decreases": paper 1 = no effect, no
  // tolerance) claims a direction: an interval that touches no effect has not shown it, so that
  // edge is exclusive.
  const bool edge_is_none = rule.no_effect && rule.bound != Bound::kPoint &&
                            (rule.bound == Bound::kAtLeast ? low : high) == *rule.no_effect;
  const bool inside = edge_is_none ? measured.low() > low && measured.high() < high
                                   : measured.low() >= low && measured.high() <= high;
  if (inside) return Verdict::kReproduced;
  if (!rule.no_effect || rule.paper == *rule.no_effect) return Verdict::kNotReproduced;
  const double none = *rule.no_effect;
  const bool above = rule.paper > none;
  if (rule.bound != Bound::kPoint) {
    // Only a bound on the far side of no effect has a direction short of it.
    if (above != (rule.bound == Bound::kAtLeast)) return Verdict::kNotReproduced;
    const bool short_of_it = above ? measured.low() > none : measured.high() < none;
    return short_of_it ? Verdict::kSmallerEffect : Verdict::kNotReproduced;
  }
  const bool same_side = above ? measured.low() > none : measured.high() < none;
  if (!same_side) return Verdict::kNotReproduced;
  return std::fabs(measured.mean - none) < std::fabs(rule.paper - none) ? Verdict::kSmallerEffect
                                                                        : Verdict::kLargerEffect;
}

}  // namespace spraylab::fabric
