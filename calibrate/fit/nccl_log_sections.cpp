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

// A line of a results table: the column header, or a row (it starts with a size and holds at least a
// row's size, count, type, redop and root).
bool is_table_line(std::string_view body) {
  const auto c = comment_of(body);
  if (c) {
    const auto t = log_text::tokenize(*c);
    return t.size() >= 2 && t[0].text == "size" && t[1].text == "count";
  }
  const auto t = log_text::tokenize(body);
  return t.size() >= 5 && log_text::all_digits(t.front().text);
}

// A run opens where the file first names its *_perf binary after the previous run's table: nccl-tests'
// own `# Collective test starting: X` (its `# nccl-tests version` line just before it), a shell prompt
// running the binary, a wrapper's banner (`===begin all_reduce_perf test===`, `The test is
// all_gather_perf, ...`). A name before any table belongs to the run it is in (a command line and the
// test header of one run; two names that disagree there are the parser's error, not two runs).
std::vector<Run> runs_in(const std::vector<std::string_view>& lines) {
  std::vector<Run> runs;
  bool table_seen = true;  // since the current run opened (none yet: the first name opens one)
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string untagged = log_text::output_tag_length(lines[i]) ? log_text::untagged_line(lines[i]) : std::string();
    const std::string_view line = untagged.empty() ? lines[i] : std::string_view(untagged);
    const std::string_view body = trim(line);
    if (body.empty() || log_text::is_nccl_log_line(body)) continue;
    if (is_table_line(body)) {
      table_seen = true;
      continue;
    }
    const auto c = comment_of(body);
    if (c && starts_with(*c, "Collective test concluded")) continue;  // the run's closing line names it again
    const bool test_header = c && starts_with(*c, STARTING);
    std::string name;
    int col = 0;
    if (test_header) {
      const std::string_view n = trim(c->substr(STARTING.size()));
      name = std::string(n), col = int(n.data() - line.data()) + 1;
    } else if (const auto named = log_text::named_op_in(c ? *c : body, line, int(i) + 1, OpSource::comment)) {
      name = named->word, col = named->col;
    }
    if (name.empty() || !table_seen) continue;
    Run r{i, int(i) + 1, col, name, op_from_name(name)};
    if (i > 0 && test_header) {
      const auto previous = comment_of(lines[i - 1]);
      if (previous && starts_with(*previous, "nccl-tests version")) r.first_line = i - 1;
    }
    runs.push_back(std::move(r));
    table_seen = false;
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
  if (const auto again = std::find_if(std::next(chosen), runs.end(), [&](const Run& r) { return r.op == op; }); again != runs.end())
    throw InputError({file, again->header_line, again->col},
                     fmt::format("--op {}: the log holds more than one run of it ({} and {}); keep the one to read", collective_op_name(*op),
                                 listed({*chosen}), listed({*again})));
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
