// The growth exponent of a measured curve: the least-squares slope of ln y against ln x. The
// Ofan paper's shapes are exponents (queues grow like m^0.5 for random spraying, m^1 for
// synchronised round robin, m^0 for Ofan), so a reproduction checks the slope, not the values.
#pragma once

#include <optional>
#include <vector>

namespace spraylab::fabric {

// The slope over the points with x > 0 and y > 0 (a log of 0 does not exist: a queue that stayed
// empty says nothing about growth); nullopt when fewer than two such points have distinct x.
std::optional<double> loglog_slope(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace spraylab::fabric
