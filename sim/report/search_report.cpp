#include "search_report.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <map>

#include "svg_plot.hpp"

namespace tpsim {
namespace {

using nlohmann::json;

std::string point_label(const ParetoPoint& p) {
  return p.rate_req_s ? fmt::format("{} at {:g} req/s", p.config, *p.rate_req_s) : p.config;
}

std::vector<int> replica_tps(const ConfigResult& c) {
  std::vector<int> v;
  for (const auto& rep : c.layout) v.push_back(int(rep.size()) / c.pp);
  return v;
}

std::string fewest_line(const SearchSummary& s) {
  if (s.fewest_gpus_config.empty()) return "no split meets the SLOs at this rate";
  return fmt::format("{} ({} GPUs)", s.fewest_gpus_config, s.fewest_gpus);
}

}  // namespace

std::string render_search_table(const ScenarioResult& r) {
  if (!r.search) return "";
  const SearchSummary& s = *r.search;
  std::string out = fmt::format("\nsearch: {} configurations ({} fit)\n", r.configs.size(),
                                std::count_if(r.configs.begin(), r.configs.end(), [](const auto& c) { return c.memory.fits; }));
  for (const auto& n : s.notes) out += "  " + n + "\n";
  std::size_t w = 13;
  for (const auto& c : r.configs) w = std::max(w, c.name.size());
  out += fmt::format("  {:>4}  {:<{}} {:>4}  {}\n", "rank", "configuration", w, "GPUs", "status");
  for (std::size_t k = 0; k < s.ranking.size(); ++k) {
    const ConfigResult& c = r.configs[s.ranking[k]];
    out += fmt::format("  {:>4}  {:<{}} {:>4}  {}\n", k + 1, c.name, w, gpus_of(c), s.status[s.ranking[k]]);
  }
  out += fmt::format("Pareto frontier ({}): output tok/s per GPU against tok/s per user (1 / TPOT p50)\n", s.pareto_basis);
  for (const auto& p : s.pareto)
    out += fmt::format("  {:>9.1f} tok/s/GPU  {:>7.1f} tok/s/user  {}\n", p.tok_s_per_gpu, p.tok_s_per_user, point_label(p));
  if (s.fewest_gpus_mode) out += "fewest GPUs meeting the SLOs: " + fewest_line(s) + "\n";
  return out;
}

void add_search_json(json& j, const ScenarioResult& r) {
  if (!r.search) return;
  const SearchSummary& s = *r.search;
  auto points = [](const std::vector<ParetoPoint>& v) {
    json a = json::array();
    for (const auto& p : v) {
      json q = {{"config", p.config}, {"tok_s_per_gpu", p.tok_s_per_gpu}, {"tok_s_per_user", p.tok_s_per_user}, {"gpus", p.gpus}};
      if (p.rate_req_s) q["rate_req_s"] = *p.rate_req_s;
      a.push_back(q);
    }
    return a;
  };
  j["pareto"] = points(s.pareto);
  json ranking = json::array();
  for (std::size_t k = 0; k < s.ranking.size(); ++k) {
    const ConfigResult& c = r.configs[s.ranking[k]];
    ranking.push_back(c.name);
    j["configs"][s.ranking[k]]["rank"] = k + 1;
    j["configs"][s.ranking[k]]["replica_tp"] = replica_tps(c);
    j["configs"][s.ranking[k]]["gpus"] = gpus_of(c);
    j["configs"][s.ranking[k]]["search_status"] = s.status[s.ranking[k]];
  }
  j["search"] = {{"ranking", ranking}, {"notes", s.notes}, {"pareto_basis", s.pareto_basis}, {"points", points(s.points)},
                 {"units", "tok_s_per_gpu: output tokens/s per GPU; tok_s_per_user: 1 / TPOT p50, output tokens/s"}};
  if (s.fewest_gpus_mode)
    j["search"]["fewest_gpus"] = s.fewest_gpus_config.empty() ? json(nullptr)
                                                              : json{{"config", s.fewest_gpus_config}, {"gpus", s.fewest_gpus}};
}

std::string render_search_markdown(const ScenarioResult& r) {
  if (!r.search) return "";
  const SearchSummary& s = *r.search;
  std::string md = "\n## Every split searched\n\n";
  for (const auto& n : s.notes) md += "- " + n + "\n";
  md += "\n| rank | configuration | GPUs | status |\n|---|---|---|---|\n";
  for (std::size_t k = 0; k < s.ranking.size(); ++k) {
    const ConfigResult& c = r.configs[s.ranking[k]];
    md += fmt::format("| {} | {} | {} | {} |\n", k + 1, c.name, gpus_of(c), c.memory.fits ? s.status[s.ranking[k]] : "does not fit: " + c.memory.why);
  }
  md += fmt::format("\nPareto frontier ({}):\n\n| point | output tok/s per GPU | tok/s per user |\n|---|---|---|\n", s.pareto_basis);
  for (const auto& p : s.pareto) md += fmt::format("| {} | {:.1f} | {:.1f} |\n", point_label(p), p.tok_s_per_gpu, p.tok_s_per_user);
  if (s.fewest_gpus_mode) md += "\nFewest GPUs meeting the SLOs: " + fewest_line(s) + ".\n";
  return md;
}

std::vector<std::pair<std::string, std::string>> search_charts(const ScenarioResult& r) {
  if (!r.search || r.search->points.empty()) return {};
  std::map<std::string, Series> by_config;
  std::vector<std::string> order;
  for (const auto& p : r.search->points) {
    if (!by_config.count(p.config)) order.push_back(p.config), by_config[p.config].name = p.config;
    by_config[p.config].points.emplace_back(p.tok_s_per_user, p.tok_s_per_gpu);
  }
  std::vector<Series> series{{"Pareto frontier", {}}};
  for (const auto& p : r.search->pareto) series.front().points.emplace_back(p.tok_s_per_user, p.tok_s_per_gpu);
  for (const auto& name : order) {
    Series s = by_config[name];
    std::sort(s.points.begin(), s.points.end());
    series.push_back(s);
  }
  return {{"pareto.svg", svg_line_chart(r.scenario + ": Pareto frontier (" + r.search->pareto_basis + ")",
                                        "tokens/s per user (1 / TPOT p50)", "output tokens/s per GPU", series, false)}};
}

}  // namespace tpsim
