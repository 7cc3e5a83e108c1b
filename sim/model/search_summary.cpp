#include "search_summary.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <tuple>

namespace tpsim {
namespace {

bool any_slo(const SloSpec& slo) { return slo.ttft_p99_s || slo.tpot_p99_s || slo.e2e_p99_s; }

std::vector<std::size_t> rank(const std::vector<ConfigResult>& configs, const Scenario& s) {
  std::vector<std::size_t> order(configs.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  auto key = [&](std::size_t i) {
    const ConfigResult& c = configs[i];
    return std::tuple(!c.memory.fits, !within_slo(c, s.slo), objective_score(c, s.objective), i);
  };
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return key(a) < key(b); });
  return order;
}

// One point per configuration and load: the sweep's points when it sweeps the arrival rate, else the base run.
std::vector<ParetoPoint> operating_points(const Scenario& s, const ScenarioResult& r, bool within_only) {
  std::vector<ParetoPoint> out;
  auto add = [&](const std::vector<ConfigResult>& configs, std::optional<double> rate) {
    for (const auto& c : configs)
      if (c.memory.fits && c.requests_completed > 0 && c.tpot_s.p50 > 0 && (!within_only || within_slo(c, s.slo)))
        out.push_back({c.name, rate, c.throughput_tok_s_per_gpu, 1 / c.tpot_s.p50, gpus_of(c)});
  };
  if (r.sweep_parameter && *r.sweep_parameter == "workload.rate") {
    for (const auto& p : r.sweep_points) add(p.configs, p.value);
  } else {
    add(r.configs, s.workload.arrivals == ArrivalKind::closed ? std::nullopt : std::optional<double>(s.workload.rate_per_s));
  }
  return out;
}

}  // namespace

std::vector<ParetoPoint> pareto_frontier(std::vector<ParetoPoint> points) {
  std::stable_sort(points.begin(), points.end(), [](const ParetoPoint& a, const ParetoPoint& b) {
    return std::tie(b.tok_s_per_user, b.tok_s_per_gpu) < std::tie(a.tok_s_per_user, a.tok_s_per_gpu);
  });
  std::vector<ParetoPoint> front;
  for (const auto& p : points)
    if (front.empty() || p.tok_s_per_gpu > front.back().tok_s_per_gpu) front.push_back(p);
  std::reverse(front.begin(), front.end());
  return front;
}

SearchSummary summarize_search(const Scenario& s, const ScenarioResult& r, const std::vector<std::string>& left_out) {
  SearchSummary sum;
  sum.ranking = rank(r.configs, s);
  for (const auto& c : r.configs)
    sum.status.push_back(!c.memory.fits                          ? "does not fit"
                         : c.requests_completed == 0             ? "completes nothing"
                         : c.saturated                           ? "saturated"
                         : within_slo(c, s.slo)                  ? (any_slo(s.slo) ? "meets the SLOs" : "keeps up")
                                                                 : "misses the SLOs");
  sum.notes = left_out;
  sum.notes.push_back(fmt::format("ranked by {} among the splits that fit{}, then the others", objective_name(s.objective),
                                  any_slo(s.slo) ? " and meet the SLOs at p99 without saturating" : " and keep up with their arrivals"));
  if (any_slo(s.slo) && !sum.ranking.empty() && !within_slo(r.configs[sum.ranking.front()], s.slo))
    sum.notes.push_back(fmt::format("no split meets the SLOs at this load: the first is the best by {} among those that fit",
                                    objective_name(s.objective)));
  sum.points = operating_points(s, r, true);
  sum.pareto_basis = any_slo(s.slo) ? "points within the SLOs" : "points that keep up with their arrivals";
  if (sum.points.empty()) {
    sum.points = operating_points(s, r, false);
    sum.pareto_basis = "no point meets the SLOs: every point that fits";
  }
  sum.pareto = pareto_frontier(sum.points);
  sum.fewest_gpus_mode = s.search && s.search->fewest_gpus;
  if (sum.fewest_gpus_mode)
    if (const ConfigResult* c = fewest_gpus_within_slo(r.configs, s)) sum.fewest_gpus_config = c->name, sum.fewest_gpus = gpus_of(*c);
  return sum;
}

const ConfigResult* fewest_gpus_within_slo(const std::vector<ConfigResult>& configs, const Scenario& s) {
  const ConfigResult* best = nullptr;
  for (const auto& c : configs) {
    if (!c.memory.fits || !within_slo(c, s.slo)) continue;
    if (!best || gpus_of(c) < gpus_of(*best) ||
        (gpus_of(c) == gpus_of(*best) && objective_score(c, s.objective) < objective_score(*best, s.objective)))
      best = &c;
  }
  return best;
}

std::string search_recommendation(const SearchSummary& sum, const ScenarioResult& r) {
  if (sum.fewest_gpus_mode && !sum.fewest_gpus_config.empty()) return sum.fewest_gpus_config;
  if (sum.ranking.empty() || !r.configs[sum.ranking.front()].memory.fits) return "";
  return r.configs[sum.ranking.front()].name;
}

}  // namespace tpsim
