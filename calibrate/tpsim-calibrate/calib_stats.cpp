#include "tpsim-calibrate/calib_stats.hpp"

#include <algorithm>
#include <cmath>

#include "tpsim-calibrate/calib_error.hpp"

namespace tpsim::calib {

Summary summarize(std::vector<double> samples) {
  if (samples.empty()) throw RunError("internal: no timing samples to summarize");
  std::sort(samples.begin(), samples.end());
  const size_t n = samples.size();
  Summary s;
  s.count = static_cast<int>(n);
  s.median = n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
  const size_t rank = static_cast<size_t>(std::ceil(0.99 * static_cast<double>(n)));
  s.p99 = samples[std::clamp<size_t>(rank, 1, n) - 1];
  return s;
}

}  // namespace tpsim::calib
