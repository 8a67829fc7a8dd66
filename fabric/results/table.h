// The comparison `spraylab run` prints across variants, and the same rows as CSV
// (DIR/summary.csv). One column list serves both, so the table and the file cannot disagree.
#pragma once

#include <string>
#include <vector>

#include "fabric/results/summary.h"

namespace spraylab::fabric {

// An aligned text table, one row per variant, a header line and a rule; ends with a newline.
std::string format_table(const std::vector<VariantSummary>& rows);

// "" or, when any row's numbers measure the machine more than the fabric (VariantSummary::
// machine_bound), one line naming those variants and why; format_table ends with it.
std::string machine_bound_note(const std::vector<VariantSummary>& rows);

// CSV with a header line (RFC 4180 quoting, \n line ends): exact numbers (ns, bytes, fractions),
// empty where a value does not exist (the CCT of an incomplete run).
std::string format_csv(const std::vector<VariantSummary>& rows);

// One CSV field, quoted when it holds a comma, quote or line break.
std::string csv_field(const std::string& text);

}  // namespace spraylab::fabric
