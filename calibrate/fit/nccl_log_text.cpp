// Readers of single lines of an nccl-tests log: comments, command lines, Rank lines and
// NCCL's own messages (the table itself is read in nccl_log.cpp).
#include "nccl_log_text.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <fmt/format.h>
#include <initializer_list>
#include <regex>

namespace tpsim::fit::log_text {

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

namespace {

// The number `s` starts with (its leading digits), or nullopt when it starts with none.
std::optional<std::uint64_t> leading_uint(std::string_view s) {
  std::size_t n = 0;
  while (n < s.size() && std::isdigit(static_cast<unsigned char>(s[n]))) ++n;
  return to_uint(s.substr(0, n));
}

// A count `s` starts with, 1 to 1,000,000 (no int overflow); nullopt otherwise.
std::optional<int> leading_count(std::string_view s) {
  const auto v = leading_uint(s);
  if (!v || *v < 1 || *v > 1000000) return std::nullopt;
  return static_cast<int>(*v);
}

}  // namespace

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> lines;
  for (std::size_t pos = 0; pos <= text.size();) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    lines.push_back(text.substr(pos, end - pos));
    pos = end + 1;
  }
  return lines;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

namespace {
// Ray (and SkyPilot, which runs on it) prefixes a worker's every line with its name in parentheses,
// `(pid=3808) ` or `(head, rank=0, pid=3808) `: the length of that prefix, 0 when the line has none.
std::size_t ray_prefix_length(std::string_view line) {
  const std::size_t open = line.find_first_not_of(' ');
  if (open == std::string_view::npos || line[open] != '(') return 0;
  const std::size_t close = line.find(") ", open);
  if (close == std::string_view::npos || close > 80) return 0;
  return line.substr(open, close - open).find("pid=") == std::string_view::npos ? 0 : close + 2;
}

// A Markdown blockquote marker at the line's start: `> ` (or `>` alone, or `>>`), after at most 3
// blanks; its length, 0 when the line has none.
std::size_t quote_marker_length(std::string_view line) {
  const std::size_t at = line.find_first_not_of(' ');
  if (at == std::string_view::npos || at > 3 || line[at] != '>') return 0;
  return at + 1 < line.size() && line[at + 1] != ' ' && line[at + 1] != '>' ? 0 : at + 1;
}

// A launcher's tag at the line's start: srun's task number or mpirun's `<stdout>:`; 0 when none.
std::size_t launcher_tag_length(std::string_view line) {
  // srun --label: `0: ` (or ` 0: `, padded) before every line of task 0.
  const std::size_t digits = line.find_first_not_of(' ');
  if (const std::size_t colon = line.find(": "); digits != std::string_view::npos && colon > digits && colon <= 6 &&
                                                 line.find_first_not_of("0123456789", digits) == colon)
    return colon + 2;
  for (std::string_view tag : {std::string_view("<stdout>:"), std::string_view("<stderr>:")}) {
    const std::size_t at = line.find(tag);
    if (at == std::string_view::npos || at > 40) continue;
    // A copy indented as a block (a README's list item) keeps its indent before the tag.
    const std::size_t indent = std::min(line.find_first_not_of(' '), at);
    const std::string_view before = line.substr(indent, at - indent);
    const bool rank = before.size() >= 5 && before.front() == '[' && before.back() == ']' &&
                      before.find_first_not_of("0123456789,", 1) == before.size() - 1;
    const bool stamp = before.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 :") == std::string_view::npos;
    if (rank || stamp) return at + tag.size();
  }
  return 0;
}
}  // namespace

std::size_t output_tag_length(std::string_view line) {
  // Prefixes that stack, peeled in a loop (a line of a million markers is still one pass): Ray's worker
  // names, a Markdown blockquote's markers (a log pasted into one, nested or not); then one tag.
  std::size_t lead = 0;
  for (std::size_t step = 1; step > 0; lead += step)
    if (!(step = ray_prefix_length(line.substr(lead)))) step = quote_marker_length(line.substr(lead));
  return lead + launcher_tag_length(line.substr(lead));
}

std::string untagged_line(std::string_view line) {
  std::string out(line);
  const std::size_t lead = output_tag_length(line);
  std::fill(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(lead), ' ');
  // `mpirun --tag-output` tags every write, not every line: nccl-tests prints a row in pieces, so a
  // row carries `[1,0]<stdout>:` again before its time columns. Each `[job,rank]<stdout>:` goes.
  for (std::string_view tag : {std::string_view("]<stdout>:"), std::string_view("]<stderr>:")})
    for (std::size_t at = out.find(tag, lead); at != std::string::npos; at = out.find(tag, at + 1)) {
      const std::size_t open = out.rfind('[', at);
      if (open == std::string::npos || open < lead || out.find_first_not_of("0123456789,", open + 1) != at || at - open < 4) continue;
      std::fill(out.begin() + static_cast<std::ptrdiff_t>(open), out.begin() + static_cast<std::ptrdiff_t>(at + tag.size()), ' ');
    }
  return out;
}

bool is_mpi_message(std::string_view s) {
  const std::size_t close = s.find(']');
  if (s.size() > 2 && s.front() == '[' && close != std::string_view::npos && s.substr(1, close).find(':') != std::string_view::npos)
    return true;
  // The same notice copied without its `[host:pid]` prefix: `8 more processes have sent help message ...`.
  static const std::regex help(R"(^\d+ more process(es have| has) sent help message)");
  return std::regex_search(s.begin(), s.end(), help);
}

void note_env(std::string_view s, int line_no, std::map<std::string, LogSetting>& env) {
  if (s.find("NCCL") == std::string_view::npos) return;
  // `NCCL_X=V`, NCCL's `NCCL_X set by environment to V`, aws-ofi-nccl's `NET/OFI Setting NCCL_X to "V"`.
  static const std::regex setting(R"((NCCL_[A-Z0-9_]+)(=| set by environment to | to ")([^\s'";\\]+))");
  const std::string text(s);
  for (auto it = std::sregex_iterator(text.begin(), text.end(), setting); it != std::sregex_iterator(); ++it) {
    std::string value = (*it)[3];
    // "... set by environment to 1." and prose such as "NCCL_NVLS_ENABLE=1, NCCL_ALGO unset": the
    // punctuation after a value is not part of it (a list's inner commas are).
    while (!value.empty() && (value.back() == '.' || value.back() == ',' || value.back() == ')')) value.pop_back();
    if (value.empty()) continue;
    const bool by_nccl = (*it)[2] != "=";  // NCCL's or its net plugin's own line
    const auto [at, added] = env.emplace((*it)[1], LogSetting{value, line_no, by_nccl});
    const bool overrides = by_nccl ? !at->second.by_nccl : !at->second.by_nccl && at->second.line == line_no;
    if (!added && overrides) at->second = LogSetting{value, line_no, by_nccl};
  }
  // NCCL's `NCCL INFO Using network Socket` (or IB, AWS Libfabric, ...): the transport it chose.
  if (const auto at = text.find("NCCL INFO Using network "); at != std::string::npos)
    env.emplace("network", LogSetting{std::string(trim(std::string_view(text).substr(at + 24))), line_no});
  // aws-ofi-nccl's `NET/OFI Selected provider is cxi, fabric is cxi (found 4 nics)`: the libfabric provider
  // under it (efa on AWS, cxi on HPE Slingshot).
  static const std::regex provider(R"(NET/OFI Selected [Pp]rovider is ([A-Za-z0-9_;+-]+))");
  if (std::smatch m; std::regex_search(text, m, provider)) env.emplace("ofi provider", LogSetting{m[1], line_no});
}

bool is_test_failure(std::string_view s) {
  return s.find("Test NCCL failure") != std::string_view::npos || s.find("Test CUDA failure") != std::string_view::npos ||
         s.find("Test failure") != std::string_view::npos;
}

bool is_nccl_log_line(std::string_view s) {
  return s.find(" NCCL INFO") != std::string_view::npos || s.find(" NCCL WARN") != std::string_view::npos ||
         s.find(" NCCL CALL") != std::string_view::npos || s.find(" NCCL TRACE") != std::string_view::npos;
}

std::optional<std::string_view> row_head_before_nccl_message(std::string_view s) {
  s = trim(s);
  if (s.empty() || !std::isdigit(static_cast<unsigned char>(s.front()))) return std::nullopt;  // a row starts with its size
  // NCCL's prefix: host:pid:tid [device] NCCL INFO (the host glued to the row's last field).
  static const std::regex prefix(R"([A-Za-z][\w.\-]*:\d+:\d+ \[\d+\] NCCL (INFO|WARN|CALL|TRACE))");
  std::match_results<std::string_view::const_iterator> m;
  if (!std::regex_search(s.begin(), s.end(), m, prefix)) return std::nullopt;
  const std::string_view head = trim(s.substr(0, static_cast<std::size_t>(m.position(0))));
  // nccl-tests prints a row's size, count, type, redop and root before it runs the collective: a
  // cut row holds those five at least (a host name that starts with digits, `3767c65d25c4:880:880`,
  // is one token, not a row).
  if (tokenize(head).size() < 5) return std::nullopt;
  return head;
}

std::optional<NamedOp> named_op_in(std::string_view text, std::string_view line, int line_no, OpSource source) {
  const int offset = static_cast<int>(text.data() - line.data());
  for (const Token& t : tokenize(text)) {
    std::string_view w = t.text;
    auto slash = w.find_last_of('/');
    if (slash != std::string_view::npos) w.remove_prefix(slash + 1);
    auto p = w.find("_perf");
    if (p == std::string_view::npos || p == 0 || (p + 5 < w.size() && std::isalnum(static_cast<unsigned char>(w[p + 5])))) continue;
    // The name ends at the first character that is not a letter, digit or '_' (`all_reduce_perf,`).
    const auto end = std::find_if(w.begin() + p, w.end(), [](char ch) { return !std::isalnum(static_cast<unsigned char>(ch)) && ch != '_'; });
    w = w.substr(0, static_cast<std::size_t>(end - w.begin()));
    if (auto op = op_from_name(w.substr(0, p)))
      return NamedOp{*op, std::string(w), line_no, offset + t.col + static_cast<int>(w.data() - t.text.data()), source};
  }
  return std::nullopt;
}

namespace {

// Whose flags a command line's count is: the launcher's (before the *_perf binary: mpirun, srun) or
// nccl-tests' own (after it; its `-n` is iterations, not processes).
enum class FlagsOf { launcher, nccl_tests };

// A process launcher's program: mpirun, mpiexec (and their suffixed builds, mpirun.openmpi), orterun,
// srun, jsrun, aprun.
bool is_launcher(std::string_view w) {
  if (const auto slash = w.find_last_of('/'); slash != std::string_view::npos) w.remove_prefix(slash + 1);
  return starts_with(w, "mpirun") || starts_with(w, "mpiexec") || w == "orterun" || w == "srun" || w == "jsrun" || w == "aprun";
}

// The count a command line running a *_perf binary gives one of `flags`: `-np 16`, `--ntasks=16`
// (a `--` flag with `=`), or `-g8` glued to `glued`; 1 to `max`. nullopt when the line runs no *_perf
// binary or gives none. A launcher's flags are those between the launcher and the binary (a `tail -n 60`
// before them is no process count).
std::optional<int> count_in_command(std::string_view text, FlagsOf whose, std::initializer_list<std::string_view> flags,
                                    std::string_view glued, std::uint64_t max) {
  const auto binary = named_op_in(text, text, 0, OpSource::command_line);
  if (!binary) return std::nullopt;
  const auto toks = tokenize(text);
  int launcher_col = -1;
  for (const Token& t : toks)
    if (t.col < binary->col && is_launcher(t.text)) launcher_col = t.col;
  if (whose == FlagsOf::launcher && launcher_col < 0) return std::nullopt;
  for (std::size_t i = 0; i < toks.size(); ++i) {
    const bool launcher_flag = toks[i].col > launcher_col && toks[i].col < binary->col;
    if (whose == FlagsOf::launcher ? !launcher_flag : toks[i].col <= binary->col) continue;
    const std::string_view w = toks[i].text;
    std::optional<std::string_view> value;
    for (std::string_view f : flags) {
      if (w == f) value = i + 1 < toks.size() ? toks[i + 1].text : "";
      else if (starts_with(f, "--") && starts_with(w, f) && w.size() > f.size() && w[f.size()] == '=') value = w.substr(f.size() + 1);
    }
    if (!value && !glued.empty() && starts_with(w, glued) && w.size() > glued.size()) value = w.substr(glued.size());
    const auto v = value ? to_uint(*value) : std::nullopt;
    if (v && *v >= 1 && *v <= max) return static_cast<int>(*v);
  }
  return std::nullopt;
}

}  // namespace

std::optional<int> gpus_in_command(std::string_view text) {
  return count_in_command(text, FlagsOf::nccl_tests, {"-g", "--ngpus"}, "-g", 1024);
}

std::optional<int> processes_in_command(std::string_view text) {
  return count_in_command(text, FlagsOf::launcher, {"-np", "--np", "-n", "--ntasks"}, "", 1000000);
}

std::optional<CollectiveOp> op_in_file_name(const std::string& file) {
  std::string base = file.substr(file.find_last_of("/\\") == std::string::npos ? 0 : file.find_last_of("/\\") + 1);
  std::string low;
  for (char c : base)
    if (c != '_' && c != '-') low += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  // Longest names first: "reducescatter" contains "reduce", "allreduce" too.
  static const std::array<std::pair<const char*, CollectiveOp>, 6> names{{
      {"reducescatter", CollectiveOp::reduce_scatter}, {"allreduce", CollectiveOp::all_reduce},
      {"allgather", CollectiveOp::all_gather},         {"alltoall", CollectiveOp::all_to_all},
      {"sendrecv", CollectiveOp::send_recv},            {"broadcast", CollectiveOp::broadcast},
  }};
  for (auto& [n, op] : names)
    if (low.find(n) != std::string::npos) return op;
  return std::nullopt;
}

namespace {

// The count after `key` ("nGpus ", "nThread ") on nccl-tests' `nThread 1 nGpus 8 minBytes ...`
// line (both words present), 1 to 1,000,000; nullopt otherwise.
std::optional<int> header_count(std::string_view s, std::string_view key) {
  const auto pos = s.find(key);
  if (s.find("nThread") == std::string_view::npos || s.find("nGpus") == std::string_view::npos || pos == std::string_view::npos)
    return std::nullopt;
  return leading_count(s.substr(pos + key.size()));
}

}  // namespace

std::optional<int> gpus_per_thread_in_comment(std::string_view s) { return header_count(s, "nGpus "); }

std::optional<int> threads_in_comment(std::string_view s) { return header_count(s, "nThread "); }

// `nccl-library=21903` -> "2.19.3": NCCL_VERSION_CODE is major*10000 + minor*100 + patch since
// NCCL 2.9 (nccl.h), major*1000 + minor*100 + patch before.
std::string nccl_version_from_code(std::string_view s) {
  auto pos = s.find("nccl-library=");
  if (pos == std::string_view::npos) return "";
  const auto v = leading_uint(s.substr(pos + 13));
  if (!v || *v < 1000 || *v > 999999) return "";
  const std::uint64_t c = *v;
  return c >= 10000 ? fmt::format("{}.{}.{}", c / 10000, c / 100 % 100, c % 100) : fmt::format("{}.{}.{}", c / 1000, c / 100 % 10, c % 100);
}

std::string nccl_version_in(std::string_view s) {
  auto pos = s.find("NCCL version ");
  if (pos == std::string_view::npos) return "";
  auto t = tokenize(s.substr(pos + 13));
  return t.empty() || !std::isdigit(static_cast<unsigned char>(t[0].text.front())) ? "" : std::string(t[0].text);
}

namespace {
// `Rank  0 .. Rank  7 on host  NVIDIA H100 80GB HBM3`: how people condense a node's Rank lines when they
// publish a log (nccl-tests prints one line a rank). Every rank of the range is listed.
bool read_rank_range(std::string_view c, const std::vector<Token>& t, Devices& d) {
  if (t.size() < 7 || t[2].text != ".." || t[3].text != "Rank" || t[5].text != "on") return false;
  auto first = to_uint(t[1].text), last = to_uint(t[4].text);
  if (!first || !last || *first > *last || *last >= 1000000) return false;
  const std::string_view name = trim(c.substr(t[6].col - 1 + t[6].text.size()));
  for (auto r = static_cast<int>(*first); r <= static_cast<int>(*last); ++r) {
    d.ranks.insert(r);
    if (!name.empty()) d.gpu.emplace(r, std::string(name));
  }
  d.max_rank = std::max(d.max_rank, static_cast<int>(*last));
  d.hosts.insert(std::string(t[6].text));
  return true;
}
}  // namespace

void read_rank_line(std::string_view c, Devices& d) {
  auto t = tokenize(c);
  if (t.size() < 2 || read_rank_range(c, t, d)) return;
  auto r = to_uint(t[1].text);
  if (!r || *r >= 1000000) return;  // like nranks_in_comment: no int overflow
  const int rank = static_cast<int>(*r);
  d.max_rank = std::max(d.max_rank, rank);
  d.ranks.insert(rank);
  std::string pid, host, bus;
  for (std::size_t i = 2; i + 1 < t.size(); ++i) {
    if (t[i].text == "Pid") pid = std::string(t[i + 1].text);
    if (t[i].text == "on") host = std::string(t[i + 1].text);
    if (t[i].text.front() == '[' && t[i].text.back() == ']') {  // the bus id; the GPU model follows it
      bus = std::string(t[i].text);
      std::string_view name = trim(c.substr(t[i].col - 1 + t[i].text.size()));
      if (!name.empty() && !d.gpu.count(rank)) d.gpu[rank] = std::string(name);
      break;
    }
  }
  // Two ranks on one host and bus id ran on one GPU (an MPI test of a single card).
  if (!host.empty() && !bus.empty()) {
    const auto [it, first] = d.rank_of_gpu.emplace(std::make_pair(host, bus), rank);
    if (!first && it->second != rank && d.shared_gpu.empty())
      d.shared_gpu = fmt::format("ranks {} and {} (host {}, {})", it->second, rank, host, bus);
  }
  if (!pid.empty()) d.procs.insert({host, pid});
  if (!host.empty()) d.hosts.insert(host);
}

std::string gpu_names(const Devices& d) {
  std::vector<std::string> seen;
  for (const auto& [rank, name] : d.gpu)
    if (std::find(seen.begin(), seen.end(), name) == seen.end()) seen.push_back(name);
  std::string out;
  for (const auto& n : seen) out += (out.empty() ? "" : " + ") + n;
  return out;
}

std::optional<int> nranks_in_comment(std::string_view s) {
  auto pos = s.find("nranks");
  if (pos == std::string_view::npos) return std::nullopt;
  s.remove_prefix(pos + 6);
  while (!s.empty() && (s.front() == ' ' || s.front() == ':' || s.front() == '=')) s.remove_prefix(1);
  return leading_count(s);
}
}  // namespace tpsim::fit::log_text
