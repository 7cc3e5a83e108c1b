// What a `configs: auto` search concludes from its runs: the ranking (fits, then within the SLOs
// and keeping up with arrivals, then the objective), the Pareto frontier of output tokens/s per
// GPU against tokens/s per user (1 / TPOT p50) over every configuration and swept rate, and the
// fewest GPUs that meet the SLOs. No SimGrid: it reads metric records.
#pragma once
#include "config/scenario.hpp"
#include "results.hpp"

namespace tpsim {

// `left_out`: the degrees the split enumeration refused, and why.
SearchSummary summarize_search(const Scenario& s, const ScenarioResult& r, const std::vector<std::string>& left_out);

// The non-dominated points (no other point has both more tokens/s per GPU and per user, one of
// them strictly), by tokens/s per user ascending.
std::vector<ParetoPoint> pareto_frontier(std::vector<ParetoPoint> points);

// Among the configurations that fit and meet the SLOs, the one on the fewest GPUs (the objective's
// best among as many); nullptr when none meets them. A fewest-GPUs search recommends it.
const ConfigResult* fewest_gpus_within_slo(const std::vector<ConfigResult>& configs, const Scenario& s);

// The recommendation of a search: the fewest-GPU split within the SLOs in that mode (when one
// is), else the first of the ranking that fits ("" = none fits).
std::string search_recommendation(const SearchSummary& summary, const ScenarioResult& r);

}  // namespace tpsim
