// The report of a `configs: auto` search: the ranking (fits, SLOs, objective), the Pareto
// frontier of output tokens/s per GPU against tokens/s per user, the fewest GPUs meeting the
// SLOs — in the table, the JSON (`search`, `pareto: [{config, tok_s_per_gpu, tok_s_per_user}]`),
// the Markdown and an SVG chart (`--plot DIR` writes pareto.svg). Empty for other scenarios.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "model/results.hpp"

namespace tpsim {

std::string render_search_table(const ScenarioResult& r);
// Adds `pareto` and `search` to the scenario's JSON, and each configuration's rank and replica TPs.
void add_search_json(nlohmann::json& j, const ScenarioResult& r);
std::string render_search_markdown(const ScenarioResult& r);
// ("pareto.svg", SVG): every configuration's points over the swept rates, and the frontier.
std::vector<std::pair<std::string, std::string>> search_charts(const ScenarioResult& r);

}  // namespace tpsim
