// The parts of a scenario's report that answer the whole design question: what the numbers rest
// on (grounding), how sure the verdict is (intervals, confidence), and what would change the
// answer — as table lines, JSON fields and Markdown sections. Reads metric records only.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "model/results.hpp"

namespace tpsim {

// Table: grounding lines (after the title), the intervals block, and the what-would-change block.
std::string table_grounding(const ScenarioResult& r);
std::string table_intervals(const ScenarioResult& r);
std::string table_what_would_change(const ScenarioResult& r);

// JSON: per configuration the *_low / *_high fields; the scenario's `grounding`,
// `what_would_change` and `recommendation.confidence`.
void add_config_intervals(nlohmann::json& config, const ConfigResult& c);
void add_answer_json(nlohmann::json& j, const ScenarioResult& r);

// Markdown: the grounding lines under the title, and "What would change the answer" written as
// the chapter's design-exercise answer.
std::string markdown_grounding(const ScenarioResult& r);
std::string markdown_what_would_change(const ScenarioResult& r);

// One change in words: "model.weight_bytes above 140.2 GB (now 16.06 GB): TP=4 — ...".
std::string change_line(const Change& c);

}  // namespace tpsim
