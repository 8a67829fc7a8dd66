// The results of several spraylab-gen processes as one generator JSON, as if one generator had
// run every host (trafficgen/results.h): what `spraylab run --mode namespaced` hands the summary,
// the table and the plots, which read one generator's results in every mode.
//
// Exact: messages (concatenated), collectives (messages, bytes, the first transmission and the
// last ACK across the parts, so the CCT spans every generator), counters, loss, goodput,
// reordering and path lengths (sums, maxima). Not exact: a collective's bound is the largest of
// the parts' (exact for a permutation, whose every message has the same bound), and the latency
// percentiles are the largest of the parts' (an upper bound; count, min, mean and max are
// exact). Every generator's times are the host's TSC in ns, one clock on one machine.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

namespace spraylab::fabric {

// `parts`: each generator's results, in any order; at least one. Keys one of them lacks (a run
// stopped early) are left out of the sums.
nlohmann::ordered_json merge_generator_results(const std::vector<nlohmann::ordered_json>& parts);

}  // namespace spraylab::fabric
