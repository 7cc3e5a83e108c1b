#include "nccl_log_sections.hpp"

#include <algorithm>
#include <iterator>
#include <vector>

#include <fmt/format.h>

#include "nccl_log_text.hpp"
#include "util/error.hpp"

namespace tpsim::fit {
namespace {

using log_text::starts_with;
using log_text::trim;

constexpr std::string_view STARTING = "Collective test starting:";

struct Run {
  std::size_t first_line;  // 0-based: the run's version line, else its `Collective test starting` line
  int header_line;         // 1-based, for messages
  int col;                 // of the binary's name
  std::string name;        // all_gather_perf
  std::optional<CollectiveOp> op;
};

// The comment after '#' of a line, or nothing.
std::optional<std::string_view> comment_of(std::string_view line) {
  const std::string_view body = trim(line);
  if (body.empty() || body.front() != '#') return std::nullopt;
  return trim(body.substr(1));
}

std::vector<Run> runs_in(const std::vector<std::string_view>& lines) {
  std::vector<Run> runs;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto c = comment_of(lines[i]);
    if (!c || !starts_with(*c, STARTING)) continue;
    const std::string_view name = trim(c->substr(STARTING.size()));
    Run r{i, int(i) + 1, int(name.data() - lines[i].data()) + 1, std::string(name), op_from_name(name)};
    if (i > 0) {
      const auto previous = comment_of(lines[i - 1]);
      if (previous && starts_with(*previous, "nccl-tests version")) r.first_line = i - 1;
    }
    runs.push_back(std::move(r));
  }
  return runs;
}

std::string listed(const std::vector<Run>& runs) {
  std::string out;
  for (const auto& r : runs) out += fmt::format("{}{} (line {})", out.empty() ? "" : ", ", r.name, r.header_line);
  return out;
}

}  // namespace

std::string one_collective_run(const std::string& text, const std::string& file, std::optional<CollectiveOp> op) {
  const std::vector<std::string_view> lines = log_text::lines_of(text);
  const std::vector<Run> runs = runs_in(lines);
  const auto same = [&](const Run& r) { return r.name == runs.front().name || (r.op && r.op == runs.front().op); };
  const auto other = std::find_if_not(runs.begin(), runs.end(), same);
  if (other == runs.end()) return text;
  if (!op)
    throw InputError({file, other->header_line, other->col},
                     fmt::format("the log holds runs of several collectives: {}; give --op to read one", listed(runs)));
  const auto chosen = std::find_if(runs.begin(), runs.end(), [&](const Run& r) { return r.op == op; });
  if (chosen == runs.end())
    throw InputError({file, runs.front().header_line, runs.front().col},
                     fmt::format("--op {}: the log holds no run of it, only {}", collective_op_name(*op), listed(runs)));
  const std::size_t from = chosen->first_line,
                    to = std::next(chosen) == runs.end() ? lines.size() : std::next(chosen)->first_line;
  std::string out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (i < runs.front().first_line || (i >= from && i < to)) out += lines[i];
    if (i + 1 < lines.size()) out += '\n';
  }
  return out;
}

}  // namespace tpsim::fit
