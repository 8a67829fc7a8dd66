#include "fabric/results/confidence.h"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace spraylab::fabric {
namespace {

// The continued fraction of the incomplete beta function (modified Lentz; Numerical Recipes
// §6.4, betacf), converging fast for x < (a + 1) / (a + b + 2).
double beta_fraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300;
  constexpr double kEpsilon = 1e-15;
  double c = 1;
  double d = 1 - (a + b) * x / (a + 1);
  if (std::fabs(d) < kTiny) d = kTiny;
  d = 1 / d;
  double h = d;
  for (int m = 1; m <= 300; ++m) {
    const double m2 = 2.0 * m;
    double aa = m * (b - m) * x / ((a - 1 + m2) * (a + m2));
    d = 1 + aa * d;
    d = std::fabs(d) < kTiny ? kTiny : d;
    c = 1 + aa / c;
    c = std::fabs(c) < kTiny ? kTiny : c;
    d = 1 / d;
    h *= d * c;
    aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + 1 + m2));
    d = 1 + aa * d;
    d = std::fabs(d) < kTiny ? kTiny : d;
    c = 1 + aa / c;
    c = std::fabs(c) < kTiny ? kTiny : c;
    d = 1 / d;
    const double step = d * c;
    h *= step;
    if (std::fabs(step - 1) < kEpsilon) break;
  }
  return h;
}

// I_x(a, b), the regularised incomplete beta function.
double incomplete_beta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double front = std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) +
                                a * std::log(x) + b * std::log1p(-x));
  if (x < (a + 1) / (a + b + 2)) return front * beta_fraction(a, b, x) / a;
  return 1 - front * beta_fraction(b, a, 1 - x) / b;
}

// P(T <= t) for Student's t with df degrees of freedom.
double t_cdf(double t, double df) {
  const double tail = 0.5 * incomplete_beta(df / 2, 0.5, df / (df + t * t));
  return t >= 0 ? 1 - tail : tail;
}

}  // namespace

double t_quantile(double p, double df) {
  if (!(p > 0 && p < 1) || !(df >= 1)) {
    throw std::invalid_argument("t_quantile: needs 0 < p < 1 and df >= 1");
  }
  if (p < 0.5) return -t_quantile(1 - p, df);
  // Bisection: the CDF is monotone, and 1e6 is past any quantile below 1 - 1e-12 at df >= 1.
  double lo = 0;
  double hi = 1e6;
  for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    (t_cdf(mid, df) < p ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

Interval mean_interval(std::span<const double> values, double confidence) {
  Interval out;
  out.n = values.size();
  if (out.n == 0) {
    out.mean = std::numeric_limits<double>::quiet_NaN();
    out.half_width = std::numeric_limits<double>::infinity();
    return out;
  }
  double sum = 0;
  for (double v : values) sum += v;
  out.mean = sum / static_cast<double>(out.n);
  if (out.n < 2) {
    out.half_width = std::numeric_limits<double>::infinity();
    return out;
  }
  double squares = 0;
  for (double v : values) squares += (v - out.mean) * (v - out.mean);
  out.stddev = std::sqrt(squares / static_cast<double>(out.n - 1));
  const double t = t_quantile((1 + confidence) / 2, static_cast<double>(out.n - 1));
  out.half_width = t * out.stddev / std::sqrt(static_cast<double>(out.n));
  return out;
}

}  // namespace spraylab::fabric
