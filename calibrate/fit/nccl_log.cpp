// nccl-tests log reader. The column header (`#  size  count  type  redop  root  time ...`)
// fixes the layout; without one the v2.13 layout (13 fields) is assumed.
#include "nccl_log.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <fmt/format.h>
#include <regex>
#include <sstream>

#include "nccl_log_json.hpp"
#include "nccl_log_sections.hpp"
#include "nccl_log_text.hpp"
#include "util/error.hpp"

namespace tpsim::fit {
namespace {

using namespace log_text;

std::optional<double> to_double(std::string_view s) {
  double v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

// The table layout read from the column header.
struct Layout {
  int redop = 3;      // index of the redop column; -1 where nccl-tests before 2.10 printed none (all_gather, broadcast)
  int root = 4;       // index of the root column; -1 in nccl-tests before 2.10, which printed one for rooted ops only
  int oop = 5;        // index of the out-of-place time column
  int ip = 9;         // index of the in-place time column
  int required = 13;  // fields every data row has
  int optional = 0;   // trailing fields a row may add (a timestamp prints as 2)
  std::vector<std::string> names{"size", "count", "type", "redop", "root", "time", "algbw", "busbw",
                                 "#wrong", "time", "algbw", "busbw", "#wrong"};
  std::string describe() const {
    std::string s;
    for (std::size_t i = 0; i < static_cast<std::size_t>(required); ++i) s += (i ? " " : "") + names[i];
    return s;
  }
};

bool is_time_name(std::string_view s) { return s == "time" || s == "cputime"; }

// The column after busbw: `#wrong` (errors found), or `error` (the largest relative error) in
// nccl-tests before 2.10.
bool is_check_name(std::string_view s) { return s == "#wrong" || s == "error"; }

// Reads `#  size count type redop root time algbw busbw #wrong [i_min ...] time ...`, or the layouts
// of nccl-tests before 2.10, which printed only the columns an op has: `size count type redop time
// algbw busbw error time ...` (all_reduce), `size count type root time ...` (broadcast), `size count
// type time ...` (all_gather).
Layout read_header(const std::vector<Token>& t, const std::string& file, int line) {
  // t[0] is "#" or starts with '#'; the names follow.
  std::vector<std::string> names;
  for (const Token& tok : t) {
    std::string_view s = tok.text;
    if (&tok == &t.front()) {
      s.remove_prefix(1);
      if (s.empty()) continue;
    }
    names.emplace_back(s);
  }
  Layout l;
  auto bad = [&](const std::string& why) {
    throw InputError({file, line, t.front().col},
                     "unrecognised nccl-tests column header (" + why +
                         "); expected '# size count type redop root time algbw busbw #wrong time algbw busbw #wrong'");
  };
  static const std::array<const char*, 3> lead{"size", "count", "type"};
  if (names.size() < 4) bad("too few columns");
  for (std::size_t i = 0; i < lead.size(); ++i)
    if (names[i] != lead[i]) bad(fmt::format("column {} is '{}', not '{}'", i + 1, names[i], lead[i]));
  std::size_t next = lead.size();
  const int redop = names[next] == "redop" ? static_cast<int>(next++) : -1;
  const int root = next < names.size() && names[next] == "root" ? static_cast<int>(next++) : -1;
  if (next >= names.size() || !is_time_name(names[next]))
    bad(fmt::format("column {} is '{}', not 'redop', 'root' or 'time'", next + 1, next < names.size() ? names[next] : ""));
  const int oop = static_cast<int>(next);
  if (static_cast<int>(names.size()) < oop + 8) bad("no in-place columns after the out-of-place ones");
  int second = -1;
  for (std::size_t i = oop + 1; i < names.size(); ++i)
    if (is_time_name(names[i])) { second = static_cast<int>(i); break; }
  if (second < 0) bad("no in-place time column");
  int width = second - oop;
  if (width < 4 || names[oop + 1] != "algbw" || names[oop + 2] != "busbw" || !is_check_name(names[oop + 3]))
    bad("expected 'time algbw busbw #wrong'");
  if (static_cast<int>(names.size()) < second + width) bad("in-place group is shorter than the out-of-place one");
  for (int i = 0; i < width; ++i)
    if (names[second + i] != names[oop + i]) bad(fmt::format("in-place column '{}' does not match '{}'", names[second + i], names[oop + i]));
  l.redop = redop;
  l.root = root;
  l.oop = oop;
  l.ip = second;
  l.required = second + width;
  int rest = static_cast<int>(names.size()) - l.required;
  if (rest == 1 && names.back() == "timestamp") l.optional = 2;  // "2025-01-31 12:00:00"
  else if (rest != 0) bad(fmt::format("unexpected column '{}'", names[l.required]));
  l.names = names;
  return l;
}

std::string cell_name(const Layout& l, int i) {
  std::string n = l.names[i];
  if (i >= l.ip) return "in-place " + n;
  if (i >= l.oop) return "out-of-place " + n;
  return n;
}

// A measurement cell: a number >= 0 or N/A (NaN).
double measurement(const Token& t, const Layout& l, int i, const std::string& file, int line) {
  if (t.text == "N/A") return NAN;
  auto v = to_double(t.text);
  if (!v || *v < 0)
    throw InputError({file, line, t.col},
                     fmt::format("expected a number >= 0 or N/A in the {} column, found '{}'", cell_name(l, i), t.text));
  return *v;
}

NcclTiming timing(const std::vector<Token>& t, const Layout& l, int first, const std::string& file, int line) {
  NcclTiming out;
  out.time_us = measurement(t[first], l, first, file, line);
  out.algbw_GBps = measurement(t[first + 1], l, first + 1, file, line);
  out.busbw_GBps = measurement(t[first + 2], l, first + 2, file, line);
  out.wrong = measurement(t[first + 3], l, first + 3, file, line);
  // Per-iteration statistics (i_min i_max i_p99 i_cv%): checked, not kept.
  int width = l.ip - l.oop;
  for (int i = first + 4; i < first + width; ++i) measurement(t[i], l, i, file, line);
  return out;
}

NcclRow parse_row(const std::vector<Token>& t, std::string_view text, const Layout& l, const std::string& file, int line) {
  int n = static_cast<int>(t.size());
  if (n < l.required)
    throw InputError({file, line, static_cast<int>(text.size()) + 1},
                     fmt::format("truncated row: expected {} fields ({}), found {}", l.required, l.describe(), n));
  if (n > l.required + l.optional)
    throw InputError({file, line, t[l.required + l.optional].col},
                     fmt::format("row has {} fields, expected {} ({})", n, l.required, l.describe()));
  NcclRow row;
  row.line = line;
  if (t[0].text == "N/A")
    throw InputError({file, line, t[0].col}, "N/A in the size column: every row needs its size in bytes");
  auto size = to_uint(t[0].text);
  if (!size) throw InputError({file, line, t[0].col}, fmt::format("expected the size in bytes (an integer), found '{}'", t[0].text));
  auto count = to_uint(t[1].text);
  if (!count) throw InputError({file, line, t[1].col}, fmt::format("expected the element count (an integer), found '{}'", t[1].text));
  const auto root = l.root < 0 ? std::optional<double>(-1) : to_double(t[l.root].text);
  if (!root || *root != std::floor(*root) || std::fabs(*root) > 1e6)  // never cast a value an int cannot hold
    throw InputError({file, line, t[l.root].col}, fmt::format("expected the root rank (an integer, -1 for none), found '{}'", t[l.root].text));
  row.size_B = *size;
  row.count = *count;
  row.type = std::string(t[2].text);
  row.redop = l.redop < 0 ? "none" : std::string(t[l.redop].text);
  row.root = static_cast<int>(*root);
  row.out_of_place = timing(t, l, l.oop, file, line);
  row.in_place = timing(t, l, l.ip, file, line);
  row.time_col = t[l.oop].col;
  row.busbw_col = t[l.oop + 2].col;
  return row;
}

// Print rounding of nccl-tests' bandwidth cells (2 decimals) bounds how far
// algbw * f may sit from busbw.
bool ratio_matches(const NcclTiming& t, double f) {
  return std::fabs(t.algbw_GBps * f - t.busbw_GBps) <= 0.005 * f + 0.005 + 1e-3 * t.busbw_GBps;
}

// nccl-tests' lines after a table: `# Out of bounds values : 0 OK`, `# Avg bus bandwidth : 40.6`,
// `# Collective test concluded: all_reduce_perf` (here without their '#').
bool is_summary_line(std::string_view s) {
  return starts_with(s, "Out of bounds values") || starts_with(s, "Avg bus bandwidth") || starts_with(s, "Collective test concluded");
}

// Every row of a log prints algbw = busbw = S (n-1)/n / time (to its 3 significant digits, out of place):
// the all_gather / reduce_scatter convention of nccl-tests before June 2020.
bool printed_before_2020_gather_bw(const NcclLog& log) {
  const double share = double(log.nranks - 1) / log.nranks;
  return std::all_of(log.rows.begin(), log.rows.end(), [&](const NcclRow& r) {
    const NcclTiming& t = r.out_of_place;
    if (t.time_us <= 0 || t.algbw_GBps < 0.1) return true;  // too few digits to tell
    const double expected = double(r.size_B) * share / t.time_us / 1e3;
    return ratio_matches(t, 1.0) && std::fabs(t.algbw_GBps - expected) <= 0.01 + 0.01 * expected;
  });
}

// The row whose out-of-place algbw is largest: busbw/algbw is most precise there.
const NcclRow* best_ratio_row(const std::vector<NcclRow>& rows) {
  const NcclRow* best = nullptr;
  for (const NcclRow& r : rows) {
    const NcclTiming& t = r.out_of_place;
    if (std::isnan(t.algbw_GBps) || std::isnan(t.busbw_GBps)) continue;
    if (!best || t.algbw_GBps > best->out_of_place.algbw_GBps) best = &r;
  }
  return best && best->out_of_place.algbw_GBps > 0 ? best : nullptr;
}

// N with bus_factor(op, N) = r, or nullopt when no integer N >= 2 fits the printed cells.
std::optional<int> nranks_from_ratio(CollectiveOp op, const NcclTiming& t) {
  if (bus_factor_is_constant(op)) return std::nullopt;
  double r = t.busbw_GBps / t.algbw_GBps;
  double n = op == CollectiveOp::all_reduce ? 2.0 / (2.0 - r) : 1.0 / (1.0 - r);
  if (!std::isfinite(n) || n < 1.5 || n > 1e6) return std::nullopt;
  int k = static_cast<int>(std::lround(n));
  if (!ratio_matches(t, bus_factor(op, k))) return std::nullopt;
  return k;
}

}  // namespace

std::optional<CollectiveOp> op_from_name(std::string_view name) {
  if (auto p = name.find("_perf_"); p != std::string_view::npos) name = name.substr(0, p + 5);  // all_reduce_perf_mpi
  std::string low;
  for (char c : name)
    if (c != '_') low += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (low.size() > 4 && low.substr(low.size() - 4) == "perf") low.resize(low.size() - 4);
  for (CollectiveOp op : ALL_COLLECTIVE_OPS) {
    std::string n;
    for (const char* p = collective_op_name(op); *p; ++p)
      if (*p != '_') n += *p;
    if (n == low) return op;
  }
  return std::nullopt;
}

const char* source_name(OpSource s) {
  switch (s) {
    case OpSource::test_header: return "the '# Collective test starting:' line";
    case OpSource::comment: return "a comment naming the *_perf binary";
    case OpSource::command_line: return "the command line running the *_perf binary";
    case OpSource::given: return "--op";
    case OpSource::file_name: return "the file name";
    case OpSource::columns: return "the redop/root columns and busbw/algbw";
  }
  return "?";
}

const char* source_name(NranksSource s) {
  switch (s) {
    case NranksSource::rank_lines: return "the '#  Rank' lines";
    case NranksSource::comment: return "an 'nranks' comment";
    case NranksSource::command_line: return "the launcher's process count (-np) x threads x GPUs per thread";
    case NranksSource::bw_ratio: return "busbw/algbw";
    case NranksSource::one_process: return "one process's threads x GPUs per thread (-t, -g; no launcher shown)";
    case NranksSource::unknown: return "nothing (busbw equals algbw at any count, and no line says it)";
  }
  return "?";
}

namespace {

// Rank of a source of the op among those of the log itself: the test header says it best.
int strength(OpSource s) { return s == OpSource::test_header ? 3 : s == OpSource::comment ? 2 : 1; }

// Keeps the first op the log names (upgrading its source to the strongest that names it) and
// refuses a second, different one.
void note_named_op(std::optional<NamedOp>& named, std::optional<NamedOp> found, const std::string& file) {
  if (!found) return;
  if (!named) {
    named = found;
  } else if (found->op != named->op) {
    throw InputError({file, found->line, found->col},
                     fmt::format("the log names two collectives: {} (line {}) and {}; a log holds one sweep of one collective",
                                 named->word, named->line, found->word));
  } else if (strength(found->source) > strength(named->source)) {
    named->source = found->source;
  }
}

// The op from the columns: redop 'none' moves data only (all_gather, alltoall, broadcast, sendrecv); a
// reduction with busbw > algbw is an all_reduce, with busbw < algbw a reduce_scatter. An all_gather and
// an alltoall both have busbw = (N-1)/N algbw: nccl-tests checks an alltoall's out-of-place result only
// (alltoall.cu: reportErrors = in_place ? 0 : 1), so its in-place #wrong reads N/A where the
// out-of-place one is a number; with validation off (-c 0) both read N/A and nothing tells them apart.
CollectiveOp op_from_columns(const NcclLog& log, const NcclRow* ratio_row) {
  const NcclRow& r0 = log.rows.front();
  double ratio = ratio_row ? ratio_row->out_of_place.busbw_GBps / ratio_row->out_of_place.algbw_GBps : NAN;
  auto undecided = [&](const std::string& why) {
    throw InputError({log.file, r0.line, 1}, "cannot tell which collective this log measures (" + why +
                                                 "); give --op, or name it in the file name, e.g. 'mybox_all_reduce.log'");
  };
  if (std::isnan(ratio)) undecided("no row with a non-zero algbw, and no *_perf binary named");
  bool reduction = r0.redop != "none";
  if (reduction && r0.root >= 0) return CollectiveOp::reduce;
  if (!reduction && r0.root >= 0) {
    if (ratio >= 0.999) return CollectiveOp::broadcast;
    undecided("redop 'none' with a root and busbw < algbw: scatter or gather");
  }
  if (reduction) return ratio < 0.999 ? CollectiveOp::reduce_scatter : CollectiveOp::all_reduce;
  if (ratio < 0.999) {
    const bool checked = !std::isnan(r0.out_of_place.wrong);
    if (checked && std::isnan(r0.in_place.wrong)) return CollectiveOp::all_to_all;
    if (checked) return CollectiveOp::all_gather;
    undecided("redop 'none' with busbw < algbw and no #wrong counts (validation off): all_gather or alltoall");
  }
  undecided("redop 'none' with busbw = algbw: sendrecv or broadcast");
  return CollectiveOp::all_reduce;  // not reached
}

// The collective: what the log names (test header, a comment or command line naming the
// binary), else the caller's --op, else the file name, else the columns.
void decide_op(NcclLog& log, const std::optional<NamedOp>& named, const NcclReadOptions& options, const NcclRow* ratio_row) {
  if (named && options.op && *options.op != named->op)
    throw InputError({log.file, named->line, named->col},
                     fmt::format("the log names {} ({}), but --op says {}", named->word, collective_op_name(named->op),
                                 collective_op_name(*options.op)));
  if (named) {
    log.op = named->op;
    log.op_source = named->source;
  } else if (options.op) {
    log.op = *options.op;
    log.op_source = OpSource::given;
  } else if (auto op = op_in_file_name(log.file)) {
    log.op = *op;
    log.op_source = OpSource::file_name;
  } else {
    log.op = op_from_columns(log, ratio_row);
    log.op_source = OpSource::columns;
  }
}

}  // namespace

namespace {

NcclLog parse_text_log(const std::string& whole_text, const std::string& file, const NcclReadOptions& options) {
  NcclLog log;
  log.file = file;
  if (trim(whole_text).empty()) throw InputError({file, 1, 1}, "empty file: expected nccl-tests output");
  const std::string text = one_collective_run(whole_text, file, options.op);

  std::optional<Layout> layout;
  bool in_table = false, table_done = false;
  std::optional<NamedOp> named;
  std::optional<int> nranks_comment, gpus_header, gpus_command, procs_command;
  std::string version_line, version_code;
  Devices devices;
  struct CutRow {
    std::string head;
    int line = 0;
  };
  std::optional<CutRow> cut_row;  // a row NCCL's output cut, waiting for its rest

  int line_no = 0;
  for (std::string_view line : lines_of(text)) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    ++line_no;
    // An mpirun output tag is blanked, not cut, so that columns stay those of the file.
    std::string untagged;
    if (output_tag_length(line) || line.find(">:") != std::string_view::npos) {
      untagged = untagged_line(line);
      line = untagged;
    }
    std::string_view body = trim(line);
    if (body.empty() || is_mpi_message(body)) continue;
    note_env(body, line_no, log.env);
    // A run that failed: its rows so far are what it measured; what follows is other ranks' reports.
    if (is_test_failure(body)) {
      if (log.failure.empty()) log.failure = fmt::format("line {}: {}", line_no, body);
      if (!log.rows.empty()) break;
      continue;
    }

    if (body.front() == '#') {
      std::string_view c = trim(body.substr(1));
      auto toks = tokenize(line);
      if (starts_with(c, "nccl-tests version ")) {
        auto v = tokenize(c.substr(19));
        if (!v.empty()) log.nccl_tests_version = std::string(v[0].text);
        version_code = nccl_version_from_code(c);
      } else if (starts_with(c, "Collective test starting:")) {
        auto name = trim(c.substr(25));
        auto op = op_from_name(name);
        const int col = static_cast<int>(name.data() - line.data()) + 1;
        if (!op) throw InputError({file, line_no, col}, fmt::format("unsupported collective '{}'", name));
        note_named_op(named, NamedOp{*op, std::string(name), line_no, col, OpSource::test_header}, file);
      } else if (starts_with(c, "Rank ")) {
        read_rank_line(c, devices);
      } else if (starts_with(c, "size ") || c == "size") {
        auto t = tokenize(c);
        if (t.size() >= 2 && t[1].text == "count") {
          if (layout && !log.rows.empty())
            throw InputError({file, line_no, 1}, fmt::format("a second results table starts here (the first began at line {}); "
                                                             "tpsim fit reads one sweep per file",
                                                             log.header_line));
          layout = read_header(toks, file, line_no);
          log.header_line = line_no;
          in_table = true;
        }
      } else if (is_summary_line(c)) {
        if (in_table) table_done = true;
        in_table = false;
      } else {
        note_named_op(named, named_op_in(c, line, line_no, OpSource::comment), file);
        if (!nranks_comment) nranks_comment = nranks_in_comment(c);
        if (auto g = gpus_per_thread_in_comment(c)) gpus_header = *g;
        else if (auto g2 = gpus_in_command(c); g2 && !gpus_command) gpus_command = *g2;
        if (auto np = processes_in_command(c); np && !procs_command) procs_command = *np;
        if (auto t = threads_in_comment(c)) log.threads_per_process = *t;
      }
      continue;
    }
    // nccl-tests' closing lines where a page's rendering lost their '#' (a Markdown '#' starts a heading),
    // or the Markdown code fence that closes a pasted log cut after a row (nvidia/nccl-tests#350).
    if (is_summary_line(body) || starts_with(body, "```") || starts_with(body, "~~~")) {
      if (in_table) table_done = true;
      in_table = false;
      continue;
    }
    // Rows a pasted log's author left out, marked by a line of dots (`.......`): the rows around it are read.
    if (body.size() >= 3 && body.find_first_not_of('.') == std::string_view::npos) continue;
    // NCCL's own lines (NCCL INFO ..., or `NCCL version 2.26.2+cuda12.8` alone with NCCL_DEBUG=VERSION).
    if (is_nccl_log_line(body) || starts_with(body, "NCCL version ")) {
      if (auto v = nccl_version_in(body); !v.empty() && version_line.empty()) version_line = v;
      if (in_table)
        if (auto head = row_head_before_nccl_message(body)) cut_row = CutRow{std::string(*head), line_no};
      continue;
    }
    auto toks = tokenize(line);
    std::string joined;  // a cut row's start and its rest, read as one row
    if (cut_row) {
      if (static_cast<int>(toks.size()) >= layout->required)  // a row was cut inside the table: layout is set
        throw InputError({file, cut_row->line, 1}, fmt::format("this row, cut by NCCL's own output, has no rest before the next "
                                                               "row (line {})", line_no));
      joined = cut_row->head + " " + std::string(trim(line));
      line = joined;
      toks = tokenize(line);
      cut_row.reset();
    }
    if (!in_table) {
      // Without a column header, the first line that starts with a size opens a v2.13 table;
      // other lines outside the table may be the command that ran (`./build/all_reduce_perf -b 8 ...`).
      if (layout || table_done || !all_digits(toks.front().text)) {
        note_named_op(named, named_op_in(line, line, line_no, OpSource::command_line), file);
        if (auto g = gpus_in_command(line); g && !gpus_command) gpus_command = *g;
        if (auto np = processes_in_command(line); np && !procs_command) procs_command = *np;
        continue;
      }
      layout = Layout{};
      in_table = true;
    }
    NcclRow row = parse_row(toks, line, *layout, file, line_no);
    // all_gather/reduce_scatter runs from -b 8 print 0 B rows first: nccl-tests rounds a size
    // below nranks x element size down to nothing. They move no data; a 0 B row later is an error.
    if (row.size_B == 0 && log.rows.empty()) continue;
    if (const NcclRow* prev = log.rows.empty() ? nullptr : &log.rows.back(); prev && row.size_B <= prev->size_B)
      throw InputError({file, line_no, toks.front().col},
                       row.type != prev->type
                           ? fmt::format("the sweep starts over here with another datatype ({} after {}, line {}): the log holds one "
                                         "sweep per datatype (nccl-tests -d all); tpsim reads one sweep a file: keep one datatype's rows",
                                         row.type, prev->type, prev->line)
                           : fmt::format("size {} B is not larger than the previous row's {} B (line {}); "
                                         "a log must hold one sweep with increasing sizes",
                                         row.size_B, prev->size_B, prev->line));
    log.rows.push_back(std::move(row));
  }

  // (A run that failed after it: its rows so far stand, as the failure's note says.)
  if (cut_row && log.failure.empty())
    throw InputError({file, cut_row->line, 1}, "this row, cut by NCCL's own output, has no rest before the file ends");
  if (log.rows.empty() && !log.failure.empty())
    throw InputError({file, log.header_line, log.header_line ? 1 : 0},
                     fmt::format("the run failed before it printed a whole row ({}): no sizes to read", log.failure));
  if (log.rows.empty())
    throw InputError({file, log.header_line, log.header_line ? 1 : 0},
                     "no nccl-tests data rows (expected lines like '8  2  float  sum  -1  13.67  0.00  0.00  0 ...' "
                     "under the '#  size  count  type ...' header)");

  log.gpus_per_thread = gpus_header.value_or(gpus_command.value_or(1));
  log.nccl_version = version_line.empty() ? version_code : version_line;
  log.gpu_name = gpu_names(devices);
  log.shared_gpu = devices.shared_gpu;
  log.processes = static_cast<int>(devices.procs.size());
  log.hosts = static_cast<int>(devices.hosts.size());
  log.ranks_listed = static_cast<int>(devices.ranks.size());
  const int max_rank = devices.max_rank;
  const NcclRow* ratio_row = best_ratio_row(log.rows);
  decide_op(log, named, options, ratio_row);

  // The rank count: '#  Rank' lines, an 'nranks' comment, the launcher's process count, busbw/algbw.
  // Rank lines with gaps (a copy that elided some, "ranks 9..99 omitted") say only a lower bound:
  // the sources after them decide, the highest rank listed only when none can.
  const bool elided = max_rank >= 0 && static_cast<int>(devices.ranks.size()) < max_rank + 1 && !bus_factor_is_constant(log.op);
  if (max_rank >= 0 && !elided) {
    log.nranks = max_rank + 1;
    log.nranks_source = NranksSource::rank_lines;
  } else if (nranks_comment) {
    log.nranks = *nranks_comment;
    log.nranks_source = NranksSource::comment;
  } else if (procs_command) {
    // nccl-tests runs processes x threads x GPUs per thread ranks.
    log.nranks = *procs_command * log.threads_per_process * log.gpus_per_thread;
    log.nranks_source = NranksSource::command_line;
  } else if (bus_factor_is_constant(log.op)) {
    // busbw = algbw at any rank count: a run whose launcher is not shown is taken for one process
    // driving its threads' GPUs (-t T -g N) when that is more than one GPU; else the count is unknown.
    const int one_process = log.threads_per_process * log.gpus_per_thread;
    log.nranks = one_process > 1 ? one_process : 0;
    log.nranks_source = one_process > 1 ? NranksSource::one_process : NranksSource::unknown;
  } else {
    auto n = ratio_row ? nranks_from_ratio(log.op, ratio_row->out_of_place) : std::nullopt;
    log.nranks_source = NranksSource::bw_ratio;
    if (!n && elided) n = max_rank + 1;
    // busbw = algbw (nccl-tests before June 2020 printed both as S (n-1)/n / t for all_gather and
    // reduce_scatter): one process driving its threads' GPUs, as for the ops whose factor is 1.
    if (const int one_process = log.threads_per_process * log.gpus_per_thread; !n && one_process > 1) {
      n = one_process;
      log.nranks_source = NranksSource::one_process;
    }
    if (!n)
      throw InputError({file, ratio_row ? ratio_row->line : log.rows.front().line, 1},
                       fmt::format("cannot tell the number of ranks: no '#  Rank' lines, no 'nranks' comment, and "
                                   "busbw/algbw gives no whole rank count for {}",
                                   collective_op_name(log.op)));
    log.nranks = *n;
  }

  // nccl-tests before June 2020 printed an all_gather's and a reduce_scatter's algbw as S (n-1)/n / t, with
  // busbw equal to it (its commit ec1b5e2, "Change all_gather/reduce_scatter algbw to match the
  // documentation"): restated as today's, algbw S / t, busbw S (n-1)/n / t, and said so.
  if (ratio_row && log.nranks > 1 && (log.op == CollectiveOp::all_gather || log.op == CollectiveOp::reduce_scatter) &&
      !ratio_matches(ratio_row->out_of_place, bus_factor(log.op, log.nranks)) && printed_before_2020_gather_bw(log)) {
    for (NcclRow& r : log.rows)
      for (NcclTiming* t : {&r.out_of_place, &r.in_place}) {
        t->busbw_GBps = t->algbw_GBps;
        t->algbw_GBps = t->time_us > 0 ? double(r.size_B) / t->time_us / 1e3 : t->algbw_GBps;
      }
    log.bw_before_2020 = true;
  }
  // Cross-check: the printed busbw/algbw must be the bus factor of (op, nranks).
  if (ratio_row && log.nranks > 0) {
    double f = bus_factor(log.op, log.nranks);
    const NcclTiming& t = ratio_row->out_of_place;
    if (!ratio_matches(t, f))
      throw InputError({file, ratio_row->line, ratio_row->busbw_col},
                       fmt::format("busbw/algbw = {}/{} = {:.4f}, but {} over {} ranks (from {}, op from {}) has bus "
                                   "factor {:.4f}; wrong rank count or collective?",
                                   t.busbw_GBps, t.algbw_GBps, t.busbw_GBps / t.algbw_GBps, collective_op_name(log.op), log.nranks,
                                   source_name(log.nranks_source), source_name(log.op_source), f));
  }
  return log;
}

}  // namespace

NcclLog parse_nccl_log(const std::string& text, const std::string& file, const NcclReadOptions& options) {
  const auto report = render_json_report(text, file);
  if (!report) return parse_text_log(text, file, options);
  // The report's text is read as nccl-tests' own; a line of it is reported at the report's line it came from.
  const auto json_line = [&](int line) { return line >= 1 && line <= int(report->json_line.size()) ? report->json_line[line - 1] : line; };
  try {
    NcclLog log = parse_text_log(report->text, file, options);
    for (NcclRow& row : log.rows) row.line = json_line(row.line), row.time_col = row.busbw_col = 0;
    for (auto& [name, setting] : log.env) setting.line = json_line(setting.line);
    log.header_line = json_line(log.header_line);
    return log;
  } catch (const InputError& e) {
    throw InputError({file, json_line(e.where().line), 0}, e.message());
  }
}

std::string bw_before_2020_note(const NcclLog& log) {
  return fmt::format("the log prints {}'s algbw and busbw as nccl-tests did before June 2020, both S (n-1)/n / time: read as "
                     "today's, algbw S / time and busbw S (n-1)/n / time (its times as printed)",
                     collective_op_name(log.op));
}

// The one published sweep of every datatype tpsim holds (2 x 8 H200, RoCE; tests/data/measured/
// log_formats/2x8-h200-roce-datatype-all.log, its 10-40 GiB all-reduces): bus bandwidth 482-487 GB/s in
// half, bfloat16 and float, where the links bind; 453-456 in int32 and uint32, 464-467 in double, 436-437
// in int64 and uint64, 389-390 in int8 and uint8, 361-364 in f8e4m3 and f8e5m2: NCCL's arithmetic binds.
std::optional<std::string> datatype_note(const NcclLog& log) {
  if (log.rows.empty() || !reduces_below_link_pace(log.op, log.rows.front().type)) return std::nullopt;
  const std::string& type = log.rows.front().type;
  return fmt::format("the log reduces {}: tpsim prices the bytes moved at the pace of float, half and bfloat16, not NCCL's "
                     "arithmetic on other types; a published 2x8 H200 sweep of every datatype (tests/data/measured/log_formats/"
                     "2x8-h200-roce-datatype-all.log) reached 482-487 GB/s of bus bandwidth in those, 436-467 in 32- and 64-bit "
                     "types and 361-390 in 8-bit ones: read the bandwidth-bound sizes as optimistic",
                     type);
}

std::string failure_note(const NcclLog& log) {
  return fmt::format("the run failed ({}): the {} sizes it printed before are read", log.failure, log.rows.size());
}

std::string shared_gpu_note(const NcclLog& log) {
  return fmt::format("the log lists {} on one GPU: its ranks shared that GPU's links and memory, where tpsim gives each rank "
                     "a GPU of the platform, so its times are not those of the GPUs simulated",
                     log.shared_gpu);
}

std::string comment_lines(const std::string& text) {
  std::string comments;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (const auto start = line.find_first_not_of(" \t"); start != std::string::npos && line[start] == '#')
      comments += line.substr(start) + "\n";
  return comments;
}

std::string path_class_named(const std::string& said) {
  auto has = [&](const char* s) { return said.find(s) != std::string::npos; };
  if (has("P2P not supported") || has("NCCL_P2P_DISABLE=1") || has("no-p2p") || has("nop2p") || has("p2p off")) return "SHM";
  std::string lower = said;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  lower = std::regex_replace(lower, std::regex(R"((no|without|non)[ _-]?nvlink)"), "");
  if (lower.find("nvlink") != std::string::npos || lower.find("nvswitch") != std::string::npos ||
      std::regex_search(said, std::regex(R"(\bNV(4|8|12|18)\b)")))
    return "NVL";
  for (const char* code : {"PIX", "PXB", "PHB", "SYS"})
    if (has(code)) return code;
  return "";
}

}  // namespace tpsim::fit
