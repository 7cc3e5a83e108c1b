#include "results.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace tpsim {

Percentiles percentiles(std::vector<double> v) {
  Percentiles p;
  if (v.empty()) return p;
  std::sort(v.begin(), v.end());
  auto at = [&](double q) { return v[std::size_t(std::max(0.0, std::ceil(q * double(v.size())) - 1))]; };
  p.p50 = at(0.50), p.p90 = at(0.90), p.p99 = at(0.99);
  p.mean = std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
  return p;
}

bool within_slo(const ConfigResult& c, const SloSpec& slo) {
  return c.memory.fits && c.requests_completed > 0 && !c.saturated && (!slo.ttft_p99_s || c.ttft_s.p99 <= *slo.ttft_p99_s) &&
         (!slo.tpot_p99_s || c.tpot_s.p99 <= *slo.tpot_p99_s) && (!slo.e2e_p99_s || c.e2e_s.p99 <= *slo.e2e_p99_s);
}

}  // namespace tpsim
