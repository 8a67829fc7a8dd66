// The verdict of a check against a paper's number (docs/reproduce.md, "Verdicts"): the measured
// value's 95 % confidence interval over seeds against the paper's value ± a tolerance, and
// against the value that would mean "no effect". One of exactly four words, computed here.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "fabric/results/confidence.h"

namespace spraylab::fabric {

enum class Verdict { kReproduced, kSmallerEffect, kLargerEffect, kNotReproduced };

inline constexpr std::array<std::string_view, 4> kVerdictNames = {
    "reproduced", "same direction, smaller effect", "same direction, larger effect",
    "not reproduced"};

std::string_view verdict_name(Verdict v);
std::optional<Verdict> find_verdict(std::string_view name);

// "10%": a fraction of |paper|; "0.05": absolute, in the measure's unit.
struct Tolerance {
  double value = 0;
  bool relative = false;
};

// Parses "10%" or "0.05"; nullopt for anything else (a negative number among it).
std::optional<Tolerance> parse_tolerance(const std::string& text);

// A paper's number is a point (the default: "about 5 %") or a bound ("over 11 %": at_least;
// "under 1 %": at_most), and then `paper` is the bound itself.
enum class Bound { kPoint, kAtLeast, kAtMost };

struct VerdictRule {
  double paper = 0;
  Tolerance tolerance;
  // The measure's value when there is no effect (a ratio of 1, a difference or slope of 0);
  // without it only `reproduced` and `not reproduced` can be said.
  std::optional<double> no_effect;
  Bound bound = Bound::kPoint;
};

// The band [paper - tolerance, paper + tolerance]; for a bound, open on the claimed side
// ([paper - tolerance, +inf) for at_least, (-inf, paper + tolerance] for at_most).
std::pair<double, double> tolerance_band(const VerdictRule& rule);

// reproduced: the whole interval inside the band. Else, same direction: the whole interval
// strictly on the paper's side of no_effect — a smaller effect when the mean is nearer
// no_effect than the paper's value is, a larger one otherwise (an interval wider than the band
// lands here too: more seeds can narrow it). Else, and always with fewer than two values (no
// interval), not reproduced.
// A bound: reproduced when the whole interval is on the claimed side of paper ∓ tolerance; a
// smaller effect when it is not but lies strictly on the bound's side of a no_effect that is
// on the other side of the bound ("over 11 %" measured at 5 ± 1 %, no effect 0); never a larger
// effect; else not reproduced.
Verdict judge(const VerdictRule& rule, const Interval& measured);

}  // namespace spraylab::fabric
