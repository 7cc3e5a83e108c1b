// Order statistics of repeated timings: the median is what every file reports, the p99 is
// kept beside it as a measure of noise. Both are plain functions of the samples.
#pragma once
#include <vector>

namespace tpsim::calib {

struct Summary {
  double median = 0;  // middle sample; mean of the two middle ones for an even count
  double p99 = 0;     // nearest rank: the ceil(0.99 * n)-th smallest sample
  int count = 0;
};

// Throws RunError on an empty sample set (a measurement that produced nothing).
Summary summarize(std::vector<double> samples);

}  // namespace tpsim::calib
