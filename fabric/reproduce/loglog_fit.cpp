#include "fabric/reproduce/loglog_fit.h"

#include <cmath>
#include <cstddef>

namespace spraylab::fabric {

std::optional<double> loglog_slope(const std::vector<double>& x, const std::vector<double>& y) {
  double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (size_t i = 0; i < x.size() && i < y.size(); ++i) {
    if (!(x[i] > 0) || !(y[i] > 0)) continue;
    const double lx = std::log(x[i]);
    const double ly = std::log(y[i]);
    n += 1;
    sx += lx;
    sy += ly;
    sxx += lx * lx;
    sxy += lx * ly;
  }
  const double spread = n * sxx - sx * sx;
  // Two points at one x have no slope; the spread is then 0 up to rounding.
  if (n < 2 || spread <= 1e-12 * n * sxx) return std::nullopt;
  return (n * sxy - sx * sy) / spread;
}

}  // namespace spraylab::fabric
