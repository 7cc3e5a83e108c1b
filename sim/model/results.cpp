#include "results.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <fmt/format.h>
#include <numeric>

#include "util/units.hpp"

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

std::string objective_metric(const ConfigResult& c, const std::string& objective) {
  if (objective == "ttft") return fmt::format("TTFT p50 {:.1f} ms", c.ttft_s.p50 * 1e3);
  if (objective == "tpot") return fmt::format("TPOT p50 {:.2f} ms", c.tpot_s.p50 * 1e3);
  if (objective == "throughput") return fmt::format("{:.0f} output tok/s per GPU", c.throughput_tok_s_per_gpu);
  if (objective == "slo") return fmt::format("SLO attainment {:.1f}%, goodput {:.2f} req/s", c.slo_attainment * 100, c.goodput_req_s);
  return fmt::format("end-to-end latency p50 {:.1f} ms", c.e2e_s.p50 * 1e3);
}

std::string format_in_unit(double v, const std::string& unit) {
  if (unit == "B/s") return format_bandwidth(v);
  if (unit == "s") return format_time(v);
  if (unit == "B") return format_size(v);
  return fmt::format("{:.6g} {}", v, unit);
}

}  // namespace tpsim
