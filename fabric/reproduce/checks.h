// A reproduction's checks judged on its figures (docs/reproduce.md, "Checks"): a paper check's
// measure per seed, its interval and verdict; an ordering or a threshold, pass or fail.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "fabric/reproduce/reproduction.h"
#include "fabric/reproduce/verdict.h"
#include "fabric/results/confidence.h"

namespace spraylab::fabric {

struct FigureData;  // figures.h, which includes this header

struct CheckOutcome {
  const Check* check = nullptr;
  bool passed = false;               // orderings and thresholds; a paper check: verdict reproduced
  std::string detail;                // the measured values behind the verdict
  std::optional<Interval> measured;  // a paper check: the measure's mean and interval
  std::optional<Verdict> verdict;    // a paper check's (none when not judged())
  // The check names a figure or series that the figures do not have (a mistyped name, a
  // series named "label/algorithm" where the run has one algorithm and its series is the
  // label): a mistake of the reproduction file, so not judged at all (not "not reproduced");
  // `detail` says which name and what the figure has.
  bool misnamed = false;
  // The check's figure draws nothing (no variant has its values: every one failed or timed out):
  // no evidence either way, so not judged either; the figure's own error says why.
  bool no_data = false;
  bool judged() const { return !misnamed && !no_data; }
  // --redraw: what the stored first judgement says about this one ("kept: ...", "changed
  // since ..."); empty when judged afresh.
  std::string history;
};

CheckOutcome evaluate_check(const Check& check, const std::vector<FigureData>& figures);

// "12.3 ± 0.4" (mean ± half width; "12.3 (1 seed)" without an interval).
std::string mean_ci_text(const Interval& i);

}  // namespace spraylab::fabric
