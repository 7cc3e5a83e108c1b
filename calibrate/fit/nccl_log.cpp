// nccl-tests log reader. The column header (`#  size  count  type  redop  root  time ...`)
// fixes the layout; without one the v2.13 layout (13 fields) is assumed.
#include "nccl_log.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <fmt/format.h>

#include "util/error.hpp"

namespace tpsim::fit {
namespace {

struct Token {
  std::string_view text;
  int col;  // 1-based
};

std::vector<Token> tokenize(std::string_view line) {
  std::vector<Token> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    if (i >= line.size()) break;
    std::size_t start = i;
    while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    out.push_back({line.substr(start, i - start), static_cast<int>(start) + 1});
  }
  return out;
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::optional<std::uint64_t> to_uint(std::string_view s) {
  if (!all_digits(s)) return std::nullopt;
  std::uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<double> to_double(std::string_view s) {
  double v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

// The table layout read from the column header.
struct Layout {
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

// Reads `#  size count type redop root time algbw busbw #wrong [i_min ...] time ...`.
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
  static const std::array<const char*, 5> lead{"size", "count", "type", "redop", "root"};
  if (names.size() < 5) bad("too few columns");
  for (std::size_t i = 0; i < lead.size(); ++i)
    if (names[i] != lead[i]) bad(fmt::format("column {} is '{}', not '{}'", i + 1, names[i], lead[i]));
  if (names.size() < 13 || !is_time_name(names[5])) bad("no out-of-place time column after 'root'");
  int second = -1;
  for (std::size_t i = 6; i < names.size(); ++i)
    if (is_time_name(names[i])) { second = static_cast<int>(i); break; }
  if (second < 0) bad("no in-place time column");
  int width = second - 5;
  if (width < 4 || names[6] != "algbw" || names[7] != "busbw" || names[8] != "#wrong") bad("expected 'time algbw busbw #wrong'");
  if (static_cast<int>(names.size()) < second + width) bad("in-place group is shorter than the out-of-place one");
  for (int i = 0; i < width; ++i)
    if (names[second + i] != names[5 + i]) bad(fmt::format("in-place column '{}' does not match '{}'", names[second + i], names[5 + i]));
  l.oop = 5;
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
  auto root = to_double(t[4].text);
  if (!root || *root != std::floor(*root) || std::fabs(*root) > 1e6)  // never cast a value an int cannot hold
    throw InputError({file, line, t[4].col}, fmt::format("expected the root rank (an integer, -1 for none), found '{}'", t[4].text));
  row.size_B = *size;
  row.count = *count;
  row.type = std::string(t[2].text);
  row.redop = std::string(t[3].text);
  row.root = static_cast<int>(*root);
  row.out_of_place = timing(t, l, l.oop, file, line);
  row.in_place = timing(t, l, l.ip, file, line);
  row.time_col = t[l.oop].col;
  row.busbw_col = t[l.oop + 2].col;
  return row;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// NCCL's own log lines (`host:pid:tid [dev] NCCL INFO ...`) interleave with the table.
bool is_nccl_log_line(std::string_view s) {
  return s.find(" NCCL INFO") != std::string_view::npos || s.find(" NCCL WARN") != std::string_view::npos ||
         s.find(" NCCL CALL") != std::string_view::npos || s.find(" NCCL TRACE") != std::string_view::npos;
}

// A collective named by a `<op>_perf` word in a comment (e.g. a recorded command line).
std::optional<CollectiveOp> op_in_comment(std::string_view s) {
  for (const Token& t : tokenize(s)) {
    std::string_view w = t.text;
    auto slash = w.find_last_of('/');
    if (slash != std::string_view::npos) w.remove_prefix(slash + 1);
    if (w.size() > 5 && w.substr(w.size() - 5) == "_perf")
      if (auto op = op_from_name(w)) return op;
  }
  return std::nullopt;
}

std::optional<CollectiveOp> op_in_file_name(const std::string& file) {
  std::string base = file.substr(file.find_last_of("/\\") == std::string::npos ? 0 : file.find_last_of("/\\") + 1);
  std::string low;
  for (char c : base)
    if (c != '_' && c != '-') low += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  // Longest names first: "reducescatter" contains "reduce", "allreduce" too.
  static const std::array<std::pair<const char*, CollectiveOp>, 6> names{{
      {"reducescatter", CollectiveOp::reduce_scatter}, {"allreduce", CollectiveOp::all_reduce},
      {"allgather", CollectiveOp::all_gather},         {"alltoall", CollectiveOp::alltoall},
      {"sendrecv", CollectiveOp::send_recv},            {"broadcast", CollectiveOp::broadcast},
  }};
  for (auto& [n, op] : names)
    if (low.find(n) != std::string::npos) return op;
  return std::nullopt;
}

// `nranks: 16`, `nranks 16`, `nranks=16` in a comment.
// `nThread 1 nGpus 8 minBytes ...`: the GPUs each thread drives (nccl-tests -g).
std::optional<int> gpus_per_thread_in_comment(std::string_view s) {
  auto pos = s.find("nGpus ");
  if (s.find("nThread") == std::string_view::npos || pos == std::string_view::npos) return std::nullopt;
  s.remove_prefix(pos + 6);
  std::size_t n = 0;
  while (n < s.size() && std::isdigit(static_cast<unsigned char>(s[n]))) ++n;
  auto v = to_uint(s.substr(0, n));
  if (!v || *v < 1 || *v > 1000000) return std::nullopt;
  return static_cast<int>(*v);
}

std::optional<int> nranks_in_comment(std::string_view s) {
  auto pos = s.find("nranks");
  if (pos == std::string_view::npos) return std::nullopt;
  s.remove_prefix(pos + 6);
  while (!s.empty() && (s.front() == ' ' || s.front() == ':' || s.front() == '=')) s.remove_prefix(1);
  std::size_t n = 0;
  while (n < s.size() && std::isdigit(static_cast<unsigned char>(s[n]))) ++n;
  auto v = to_uint(s.substr(0, n));
  if (!v || *v < 1 || *v > 1000000) return std::nullopt;
  return static_cast<int>(*v);
}

// Print rounding of nccl-tests' bandwidth cells (2 decimals) bounds how far
// algbw * f may sit from busbw.
bool ratio_matches(const NcclTiming& t, double f) {
  return std::fabs(t.algbw_GBps * f - t.busbw_GBps) <= 0.005 * f + 0.005 + 1e-3 * t.busbw_GBps;
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
    case OpSource::file_name: return "the file name";
    case OpSource::columns: return "the redop/root columns and busbw/algbw";
  }
  return "?";
}

const char* source_name(NranksSource s) {
  switch (s) {
    case NranksSource::rank_lines: return "the '#  Rank' lines";
    case NranksSource::comment: return "an 'nranks' comment";
    case NranksSource::bw_ratio: return "busbw/algbw";
    case NranksSource::not_needed: return "nothing (not needed: bus factor 1)";
  }
  return "?";
}

NcclLog parse_nccl_log(const std::string& text, const std::string& file) {
  NcclLog log;
  log.file = file;
  if (trim(text).empty()) throw InputError({file, 1, 1}, "empty file: expected nccl-tests output");

  std::optional<Layout> layout;
  bool in_table = false, table_done = false;
  std::optional<CollectiveOp> op_header, op_comment;
  std::optional<int> nranks_comment;
  int max_rank = -1;

  int line_no = 0;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    pos = end + 1;
    ++line_no;
    std::string_view body = trim(line);
    if (body.empty()) continue;

    if (body.front() == '#') {
      std::string_view c = trim(body.substr(1));
      auto toks = tokenize(line);
      if (starts_with(c, "nccl-tests version ")) {
        auto v = tokenize(c.substr(19));
        if (!v.empty()) log.nccl_tests_version = std::string(v[0].text);
      } else if (starts_with(c, "Collective test starting:")) {
        auto name = trim(c.substr(25));
        op_header = op_from_name(name);
        if (!op_header)
          throw InputError({file, line_no, static_cast<int>(name.data() - line.data()) + 1},
                           fmt::format("unsupported collective '{}'", name));
      } else if (starts_with(c, "Rank ")) {
        auto t = tokenize(c);
        if (t.size() >= 2)
          if (auto r = to_uint(t[1].text); r && *r < 1000000)  // like nranks_in_comment: no int overflow
            max_rank = std::max(max_rank, static_cast<int>(*r));
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
      } else if (starts_with(c, "Out of bounds values") || starts_with(c, "Avg bus bandwidth") ||
                 starts_with(c, "Collective test concluded")) {
        if (in_table) table_done = true;
        in_table = false;
      } else {
        if (!op_comment) op_comment = op_in_comment(c);
        if (!nranks_comment) nranks_comment = nranks_in_comment(c);
        if (auto g = gpus_per_thread_in_comment(c)) log.gpus_per_thread = *g;
      }
      continue;
    }
    if (is_nccl_log_line(body)) continue;
    auto toks = tokenize(line);
    if (!in_table) {
      // Without a column header, the first line that starts with a size opens a v2.13 table.
      if (layout || table_done || !all_digits(toks.front().text)) continue;
      layout = Layout{};
      in_table = true;
    }
    NcclRow row = parse_row(toks, line, *layout, file, line_no);
    // all_gather/reduce_scatter runs from -b 8 print 0 B rows first: nccl-tests rounds a size
    // below nranks x element size down to nothing. They move no data; a 0 B row later is an error.
    if (row.size_B == 0 && log.rows.empty()) continue;
    if (!log.rows.empty() && row.size_B <= log.rows.back().size_B)
      throw InputError({file, line_no, toks.front().col},
                       fmt::format("size {} B is not larger than the previous row's {} B (line {}); "
                                   "a log must hold one sweep with increasing sizes",
                                   row.size_B, log.rows.back().size_B, log.rows.back().line));
    log.rows.push_back(std::move(row));
  }

  if (log.rows.empty())
    throw InputError({file, log.header_line, log.header_line ? 1 : 0},
                     "no nccl-tests data rows (expected lines like '8  2  float  sum  -1  13.67  0.00  0.00  0 ...' "
                     "under the '#  size  count  type ...' header)");

  // The collective: header line, a comment naming the binary, the file name, the columns.
  const NcclRow* ratio_row = best_ratio_row(log.rows);
  if (op_header) {
    log.op = *op_header;
    log.op_source = OpSource::test_header;
  } else if (op_comment) {
    log.op = *op_comment;
    log.op_source = OpSource::comment;
  } else if (auto op = op_in_file_name(file)) {
    log.op = *op;
    log.op_source = OpSource::file_name;
  } else {
    // redop 'none' moves data only (all_gather, broadcast, sendrecv); a reduction with
    // busbw > algbw is an all_reduce, with busbw < algbw a reduce_scatter.
    const NcclRow& r0 = log.rows.front();
    double ratio = ratio_row ? ratio_row->out_of_place.busbw_GBps / ratio_row->out_of_place.algbw_GBps : NAN;
    auto undecided = [&](const std::string& why) {
      throw InputError({file, r0.line, 1}, "cannot tell which collective this log measures (" + why +
                                               "); name it in the file name, e.g. 'mybox_all_reduce.log'");
    };
    if (std::isnan(ratio)) undecided("no row with a non-zero algbw");
    bool reduction = r0.redop != "none";
    if (reduction && r0.root >= 0) log.op = CollectiveOp::reduce;
    else if (!reduction && r0.root >= 0) log.op = CollectiveOp::broadcast;
    else if (reduction) log.op = ratio < 0.999 ? CollectiveOp::reduce_scatter : CollectiveOp::all_reduce;
    else if (ratio < 0.999) log.op = CollectiveOp::all_gather;
    else undecided("redop 'none' with busbw = algbw: sendrecv or broadcast");
    log.op_source = OpSource::columns;
  }

  // The rank count: '#  Rank' lines, an 'nranks' comment, busbw/algbw.
  if (max_rank >= 0) {
    log.nranks = max_rank + 1;
    log.nranks_source = NranksSource::rank_lines;
  } else if (nranks_comment) {
    log.nranks = *nranks_comment;
    log.nranks_source = NranksSource::comment;
  } else if (bus_factor_is_constant(log.op)) {
    log.nranks = 0;
    log.nranks_source = NranksSource::not_needed;
  } else {
    auto n = ratio_row ? nranks_from_ratio(log.op, ratio_row->out_of_place) : std::nullopt;
    if (!n)
      throw InputError({file, ratio_row ? ratio_row->line : log.rows.front().line, 1},
                       fmt::format("cannot tell the number of ranks: no '#  Rank' lines, no 'nranks' comment, and "
                                   "busbw/algbw gives no whole rank count for {}",
                                   collective_op_name(log.op)));
    log.nranks = *n;
    log.nranks_source = NranksSource::bw_ratio;
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

}  // namespace tpsim::fit
