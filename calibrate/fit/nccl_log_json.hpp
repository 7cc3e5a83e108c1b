// nccl-tests' JSON report (`-J FILE.json`, nccl-tests from October 2025, report version 3): the
// same run as its text output, written as the text it stands for, so that one reader reads both.
// Internal to the fit library.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace tpsim::fit {

// The report as nccl-tests' text output: the command line (its "args"), the NCCL_* settings of its
// "env", the version line (its "nccl_version" code), the nThread/nGpus line and one Rank line a device
// ("config"), the column header, one row a result ("results": size, count, type, redop, root, then
// out-of-place and in-place time, alg_bw, bus_bw and nwrong; N/A where null) and the closing lines.
struct RenderedReport {
  std::string text;
  std::vector<int> json_line;  // for each line of `text` (0-based), the report's line it comes from (1-based)
};

// nullopt when `text` is not a JSON object (a text log); a located InputError for JSON that is
// malformed or lacks the report's "results".
std::optional<RenderedReport> render_json_report(const std::string& text, const std::string& file);

}  // namespace tpsim::fit
