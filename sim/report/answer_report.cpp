#include "answer_report.hpp"

#include <cctype>
#include <fmt/format.h>

namespace tpsim {
namespace {

using nlohmann::json;

std::string named_or_value(const Change& c) {
  if (!c.threshold_name.empty()) return c.threshold_name;
  return c.threshold ? format_in_unit(*c.threshold, c.unit) : "";
}

std::string now(const Change& c) { return c.base ? fmt::format(" (now {})", format_in_unit(*c.base, c.unit)) : ""; }

// The entries that change nothing, one line per parameter (both directions together).
std::vector<std::string> unchanged_lines(const std::vector<Change>& changes) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < changes.size(); ++i) {
    const Change& c = changes[i];
    if (!c.to.empty()) continue;
    if (!c.threshold_name.empty()) {
      out.push_back(fmt::format("{} {}: {}", c.parameter, c.threshold_name, c.why));
      continue;
    }
    std::string line = fmt::format("{}{}: {}", c.parameter, now(c), c.why);
    // The other direction of the same parameter comes next (said once when it says the same).
    if (i + 1 < changes.size() && changes[i + 1].parameter == c.parameter && changes[i + 1].to.empty())
      if (const std::string& other = changes[++i].why; other != c.why) line += "; " + other;
    out.push_back(line);
  }
  return out;
}

std::string objective_label(std::string o) {
  if (o == "ttft" || o == "tpot" || o == "slo")
    for (auto& ch : o) ch = char(std::toupper(static_cast<unsigned char>(ch)));
  return o;
}

}  // namespace

std::string change_line(const Change& c) {
  if (c.to.empty()) return fmt::format("{} {}{}: {}", c.parameter, c.threshold_name.empty() ? c.direction : c.threshold_name, now(c), c.why);
  if (!c.threshold_name.empty()) return fmt::format("{} {}: {} — {}", c.parameter, c.threshold_name, c.to, c.why);
  return fmt::format("{} {} {}{}: {} — {}", c.parameter, c.direction, named_or_value(c), now(c), c.to, c.why);
}

std::string table_grounding(const ScenarioResult& r) {
  std::string out;
  for (const auto& g : r.grounding) out += "grounding: " + g + "\n";
  return out;
}

std::string table_intervals(const ScenarioResult& r) {
  std::size_t w = 13;
  for (const auto& c : r.configs) w = std::max(w, c.name.size());
  std::string out = fmt::format("\n{:<{}} {:>17} {:>13} {:>17} {:>13}   (p50 intervals, ms)\n", "intervals", w, "TTFT", "TPOT", "e2e", "tok/s/GPU");
  for (const auto& c : r.configs) {
    if (!c.bounds) continue;
    const FigureBounds& b = *c.bounds;
    out += fmt::format("{:<{}} {:>8.1f}–{:<8.1f} {:>6.2f}–{:<6.2f} {:>8.1f}–{:<8.1f} {:>6.1f}–{:.1f}\n", c.name, w, b.ttft_p50_s.low * 1e3,
                       b.ttft_p50_s.high * 1e3, b.tpot_p50_s.low * 1e3, b.tpot_p50_s.high * 1e3, b.e2e_p50_s.low * 1e3,
                       b.e2e_p50_s.high * 1e3, b.throughput_tok_s_per_gpu.low, b.throughput_tok_s_per_gpu.high);
  }
  return out;
}

std::string table_what_would_change(const ScenarioResult& r) {
  std::string out;
  if (r.what_would_change.empty()) return out;
  out += fmt::format("\nwhat would change the answer (winner {} by {}):\n", r.recommendation, r.objective);
  if (!r.what_would_change_scope.empty()) out += "  (" + r.what_would_change_scope + ")\n";
  for (const auto& c : r.what_would_change)
    if (!c.to.empty()) out += "  " + change_line(c) + "\n";
  std::string same;
  for (const auto& line : unchanged_lines(r.what_would_change)) same += "    " + line + "\n";
  if (!same.empty()) out += "  unchanged:\n" + same;
  return out;
}

void add_config_intervals(json& j, const ConfigResult& c) {
  if (!c.bounds || !j.contains("ttft_ms")) return;
  const FigureBounds& b = *c.bounds;
  for (const auto& [key, p, ratio] : {std::tuple{"ttft_ms", &c.ttft_s, b.prefill_ratio}, std::tuple{"tpot_ms", &c.tpot_s, b.decode_ratio}}) {
    for (const auto& [name, v] : {std::pair{"p50", p->p50}, std::pair{"p90", p->p90}, std::pair{"p99", p->p99}}) {
      j[key][std::string(name) + "_low"] = v * ratio.low * 1e3;
      j[key][std::string(name) + "_high"] = v * ratio.high * 1e3;
    }
  }
  j["e2e_ms"]["p50_low"] = b.e2e_p50_s.low * 1e3;
  j["e2e_ms"]["p50_high"] = b.e2e_p50_s.high * 1e3;
  j["decode_step_ms_low"] = b.decode_step_s.low * 1e3, j["decode_step_ms_high"] = b.decode_step_s.high * 1e3;
  j["prefill_ms_low"] = b.prefill_s.low * 1e3, j["prefill_ms_high"] = b.prefill_s.high * 1e3;
  j["throughput_tok_s_per_gpu_low"] = b.throughput_tok_s_per_gpu.low;
  j["throughput_tok_s_per_gpu_high"] = b.throughput_tok_s_per_gpu.high;
  j["interval_spread"] = {{"gpu_time", b.gpu_spread}, {"collectives_down", b.collective_spread_down}, {"collectives_up", b.collective_spread_up}};
}

void add_answer_json(json& j, const ScenarioResult& r) {
  j["grounding"] = r.grounding;
  j["recommendation"]["confidence"] = r.confidence.empty() ? json(nullptr) : json(r.confidence);
  j["recommendation"]["confidence_why"] = r.confidence_why;
  json w = json::array();
  for (const auto& c : r.what_would_change) {
    json e = {{"parameter", c.parameter}, {"unit", c.unit}, {"from", c.from}, {"to", c.to.empty() ? json(nullptr) : json(c.to)},
              {"why", c.why}, {"evaluations", c.evaluations}};
    e["threshold"] = !c.threshold_name.empty() ? json(c.threshold_name) : c.threshold ? json(*c.threshold) : json(nullptr);
    e["base"] = c.base ? json(*c.base) : json(nullptr);
    e["direction"] = c.direction.empty() ? json(nullptr) : json(c.direction);
    e["searched_to"] = c.searched_to ? json(*c.searched_to) : json(nullptr);
    w.push_back(e);
  }
  j["what_would_change"] = w;
  j["what_would_change_scope"] = r.what_would_change_scope.empty() ? json(nullptr) : json(r.what_would_change_scope);
}

std::string markdown_grounding(const ScenarioResult& r) {
  std::string md = "**What the numbers rest on:**\n\n";
  for (const auto& g : r.grounding) md += "- " + g + "\n";
  return md + "\n";
}

namespace {

// The input in words, by family: "A bigger model", "Longer prompts", "A faster upi link".
std::string what_changes(const Change& c) {
  const bool up = c.direction == "above";
  if (c.parameter == "objective") return fmt::format("A {} objective", objective_label(c.threshold_name));
  if (c.parameter == "collectives.p2p") return fmt::format("P2P {}", c.threshold_name);
  if (c.parameter == "model.weight_bytes") return up ? "A bigger model" : "A smaller model";
  if (c.parameter == "workload.prompt_tokens") return up ? "Longer prompts" : "Shorter prompts";
  if (c.parameter == "workload.output_tokens") return up ? "Longer responses" : "Shorter responses";
  if (c.parameter == "workload.rate") return up ? "More traffic" : "Less traffic";
  if (c.parameter == "workload.batch") return up ? "A larger batch" : "A smaller batch";
  if (c.parameter == "links.sys_path.bandwidth") return up ? "A faster SYS path" : "A slower SYS path";
  if (c.parameter.rfind("links.", 0) == 0) {
    const std::string kind = c.parameter.substr(6, c.parameter.rfind('.') - 6);
    const bool bw = c.parameter.ends_with(".bandwidth");
    return fmt::format("A {} {} link", bw == up ? "faster" : "slower", kind);
  }
  return fmt::format("{} {}", c.parameter, c.direction);
}

std::string where(const Change& c) {
  if (!c.threshold_name.empty()) return "";
  const std::string unit_note = c.parameter == "links.sys_path.bandwidth" ? " for its slowest stage, every PCIe, host-bridge and socket link and host copy of the route scaled alike" : "";
  return fmt::format(" ({} {} {}{}, against {} today)", c.parameter, c.direction == "above" ? "at or above" : "at or below",
                     named_or_value(c), unit_note, c.base ? format_in_unit(*c.base, c.unit) : "?");
}

}  // namespace

std::string markdown_what_would_change(const ScenarioResult& r) {
  if (r.what_would_change.empty()) return "";
  std::string md = "\n## What would change the answer\n\n";
  md += fmt::format("The choice, by {}: **{}**{}. Each input below was moved alone from the scenario's value, the winner "
                    "found by a scan and a bisection over tpsim's own simulation (every configuration re-planned, re-run where it "
                    "could still win).\n\n",
                    r.objective, r.recommendation, r.confidence.empty() ? "" : ", " + r.confidence + " (" + r.confidence_why + ")");
  if (!r.what_would_change_scope.empty()) md += "Scope: the " + r.what_would_change_scope + ".\n\n";
  for (const auto& c : r.what_would_change)
    if (!c.to.empty()) md += fmt::format("- **{}**{}: **{}** becomes the choice — {}.\n", what_changes(c), where(c), c.to, c.why);
  std::string same;
  for (const auto& line : unchanged_lines(r.what_would_change)) same += "- " + line + "\n";
  if (!same.empty()) md += "\nWhat does not change it, within the searched ranges:\n\n" + same;
  return md;
}

}  // namespace tpsim
