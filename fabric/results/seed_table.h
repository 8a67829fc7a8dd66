// `spraylab run --seeds N`: the comparison table once more with one row per point (the variants
// that differ only in their seed, "-seed=N"), each column the mean and its 95 % confidence
// interval over the seeds (confidence.h), and the same rows as CSV (DIR/summary_seeds.csv).
#pragma once

#include <string>
#include <vector>

#include "fabric/results/summary.h"

namespace spraylab::fabric {

// An aligned text table: variant, seeds, then per column "mean ± half width".
std::string format_seed_table(const std::vector<VariantSummary>& rows);

// CSV: variant, seeds, then per value its mean, ci_low and ci_high (empty without an interval).
std::string format_seed_csv(const std::vector<VariantSummary>& rows);

}  // namespace spraylab::fabric
