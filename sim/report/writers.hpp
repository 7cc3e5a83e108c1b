// Renderers of a scenario result: the terminal table, JSON (fields in design.md), a Markdown
// report for design reviews, and per-request CSV. Files are written whole or not at all.
#pragma once
#include <string>

#include "model/results.hpp"

namespace tpsim {

std::string render_table(const ScenarioResult& r);
std::string render_json(const ScenarioResult& r, const std::string& version);
std::string render_markdown(const ScenarioResult& r);
std::string render_requests_csv(const ScenarioResult& r);

// Writes `text` to `path` through a temporary file and a rename; throws std::runtime_error.
void write_file_atomically(const std::string& path, const std::string& text);

}  // namespace tpsim
