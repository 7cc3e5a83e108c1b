// Renderers of a scenario result: the terminal table, JSON (fields in design.md), a Markdown
// report for design reviews, and per-request CSV. Files are written whole or not at all.
#pragma once
#include <string>

#include <optional>
#include <vector>

#include "model/collective_model.hpp"
#include "model/results.hpp"

namespace tpsim {

// A simulated collective sweep (tpsim collective), with the measured times of --compare.
struct CollectiveSweepRow {
  double size_B = 0;
  const CollectivePlan* plan = nullptr;
  std::optional<double> measured_s;  // the measured out-of-place time, with --compare
};
struct CollectiveSweep {
  std::string op, platform, gpus, p2p, calibration, compared_with;  // "" when absent
  int nranks = 0;
  int gpus_per_thread = 1;                    // launch mode simulated
  std::vector<std::string> calibration_use = {};  // CollectiveModel::calibration_notes()
  std::vector<CollectiveSweepRow> rows = {};
  std::vector<std::string> log_settings = {};  // the compared log's NCCL_ALGO, ... as simulated
  std::string nccl_version = {};              // the NCCL release simulated ("": a current one)
  std::vector<std::string> notes = {};         // what tpsim assumed or chose (the text output's other notes)
  std::string engine = "nccl";                // --engine: whose all-reduce (nccl: NCCL's, as nccl-tests)
};
std::string render_collective_json(const CollectiveSweep& s, const std::string& version);

std::string render_table(const ScenarioResult& r);
std::string render_json(const ScenarioResult& r, const std::string& version);
std::string render_markdown(const ScenarioResult& r);
std::string render_requests_csv(const ScenarioResult& r);

// Throws InputError (located at `path`) when `path` cannot be a file: its folder is missing,
// or it is a folder. Commands check every output before they compute anything, so that a
// mistyped path costs no time and leaves no other output written.
void check_output_path(const std::string& path);
// Writes `text` to `path` through a temporary file and a rename; throws InputError.
void write_file_atomically(const std::string& path, const std::string& text);

// "-" names standard output where a command's report can make way for one output (tpsim SCENARIO,
// tpsim collective): that output is printed in place of the text report, which it carries. Elsewhere
// check_output_path refuses it rather than write a file named "-".
inline constexpr const char* STANDARD_OUTPUT = "-";
// Whether one of `paths` names standard output; InputError when several do.
bool takes_standard_output(const std::vector<const std::string*>& paths);
// write_file_atomically, or standard output for "-".
void write_output(const std::string& path, const std::string& text);

}  // namespace tpsim
