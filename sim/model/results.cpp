#include "results.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
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

double objective_score(const ConfigResult& r, Objective o) {
  if (!r.memory.fits || r.requests_completed == 0) return std::numeric_limits<double>::infinity();
  switch (o) {
    case Objective::latency: return r.e2e_s.p50;
    case Objective::ttft: return r.ttft_s.p50;
    case Objective::tpot: return r.tpot_s.p50 > 0 ? r.tpot_s.p50 : r.decode_step.total();
    case Objective::throughput: return -r.throughput_tok_s_per_gpu;
    case Objective::slo: return -(r.slo_attainment * 1e6 + r.goodput_req_s);
  }
  return 0;
}

int gpus_of(const ConfigResult& c) {
  int n = 0;
  for (const auto& replica : c.layout) n += int(replica.size());
  return n;
}

}  // namespace tpsim
