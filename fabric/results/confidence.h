// The mean of a value over seeds and its 95 % confidence interval (Student's t with n - 1 degrees
// of freedom): what `spraylab run --seeds` and `spraylab reproduce` report and plot, and what a
// reproduction's checks are judged on (docs/reproduce.md).
#pragma once

#include <cstddef>
#include <span>

namespace spraylab::fabric {

// The p quantile of Student's t distribution with `df` degrees of freedom (df >= 1, 0 < p < 1):
// t_quantile(0.975, 9) = 2.262. Computed from the regularised incomplete beta function, not a
// table, so any df works.
double t_quantile(double p, double df);

struct Interval {
  size_t n = 0;
  double mean = 0;
  double stddev = 0;  // the sample standard deviation (n - 1); 0 when n < 2
  // mean ± half_width holds the true mean with the confidence asked for; infinite when n < 2
  // (one seed says nothing about the spread), 0 when every value is the same.
  double half_width = 0;
  double low() const { return mean - half_width; }
  double high() const { return mean + half_width; }
};

// The interval of `values`' mean at `confidence` (two-sided): mean ± t((1 + c) / 2, n - 1) · s /
// √n. n = 0 gives a NaN mean.
Interval mean_interval(std::span<const double> values, double confidence = 0.95);

}  // namespace spraylab::fabric
