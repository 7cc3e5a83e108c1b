// Reader for `nvidia-smi topo -m`: a small line-oriented state machine (header, rows, legend,
// NIC legend). Columns are counted in bytes from 1, a tab counting as one, so an editor's
// "go to column" lands on the cell.
#include "topo/topo_matrix.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <utility>

#include "topo/topo_cells.hpp"
#include "topo/topo_pcie_tree.hpp"
#include "util/error.hpp"

namespace tpsim {

const char* path_code_name(PathCode code) {
  switch (code) {
    case PathCode::X: return "X";
    case PathCode::NV: return "NV";
    case PathCode::PIX: return "PIX";
    case PathCode::PXB: return "PXB";
    case PathCode::PHB: return "PHB";
    case PathCode::NODE: return "NODE";
    case PathCode::SYS: return "SYS";
  }
  return "?";
}

std::string PathEntry::text() const {
  return code == PathCode::NV ? fmt::format("NV{}", nvlinks) : path_code_name(code);
}

std::vector<std::string> TopoMatrix::nic_names() const {
  std::vector<std::string> names;
  for (const auto& d : devices)
    if (!d.is_gpu) names.push_back(d.label);
  return names;
}

namespace {

using namespace matrix_cells;

enum class Affinity { cpu, numa, gpu_numa_id };

class Reader {
public:
  Reader(std::string file) { m_.file = std::move(file); }

  TopoMatrix read(const std::string& text);

private:
  enum class State { start, rows, after_matrix, legend, nic_legend, trailing };

  [[noreturn]] void fail(int line, int col, const std::string& msg) const {
    throw InputError(Location{m_.file, line, col}, msg);
  }
  [[noreturn]] void fail(int line, const Token& t, const std::string& msg) const { fail(line, t.col, msg); }
  // Text after the matrix or its Legend that is neither (a shell prompt, the next command's output)
  // ends what nvidia-smi printed: it and what follows are skipped, with a note.
  State trailing(int line, const Token& t, const std::string& text) {
    m_.notes.push_back(format_note(Location{m_.file, line, t.col},
                                   fmt::format("'{}' is not part of the matrix or its Legend: skipped, with the lines after it",
                                               shown(trimmed(text.substr(t.col - 1))))));
    return State::trailing;
  }
  // A matrix pasted as a script's comment, every line behind '#': the '#' is read as a blank (columns
  // stay where they were), with a note. False for a line without it once the matrix came so (the end).
  bool uncomment(std::string& line, int line_no, State state) {
    const std::size_t hash = line.find_first_not_of(" \t");
    if (hash == std::string::npos || line[hash] != '#') return !commented_ || hash == std::string::npos;
    std::string bare = line;
    bare[hash] = ' ';
    if (!commented_) {  // only a header behind '#' starts it
      const auto toks = split_tokens(bare);
      if (state != State::start || toks.empty() || !names_gpu(toks.front())) return true;
      m_.notes.push_back(format_note(Location{m_.file, line_no, int(hash) + 1},
                                     "every line of the matrix behind '#' (a script's comment): read without it"));
      commented_ = true;
    }
    line = bare;
    return true;
  }
  // A Markdown or reStructuredText table made from the matrix: its borders and separator rows are
  // skipped (false), its '|' and the '*' of bold cells read as blanks (columns stay), with a note.
  bool untable(std::string& line, int line_no) {
    const std::size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos || (line[first] != '|' && line[first] != '+')) return true;
    if (line.find_first_not_of("+-=|: \t\r", first) == std::string::npos) return false;  // a border
    if (line[first] != '|') return true;
    if (!table_noted_)
      m_.notes.push_back(format_note(Location{m_.file, line_no, int(first) + 1},
                                     "the matrix is a Markdown or reStructuredText table: its borders skipped, '|' and bold '*' "
                                     "read as blanks"));
    table_noted_ = true;
    std::replace_if(line.begin(), line.end(), [](char c) { return c == '|' || c == '*'; }, ' ');
    return true;
  }
  // Lines above the matrix that name no GPU column, skipped: one note when the header comes; the
  // refusal at the first of them when it never does.
  struct Skipped {
    int line;
    Token first;
    std::string text;  // the first line, from its first cell
    int lines;
  };
  void note_skipped_before_header() {
    if (!skipped_) return;
    m_.notes.push_back(format_note(Location{m_.file, skipped_->line, skipped_->first.col},
                                   fmt::format("'{}'{} before the matrix, skipped", shown(skipped_->text),
                                               skipped_->lines > 1 ? fmt::format(" and {} more lines", skipped_->lines - 1) : "")));
  }
  // A row label of the header whose row has not come yet (blank lines between rows).
  bool row_still_missing(const std::string& label) const {
    const auto found = device_by_label_.find(label);
    return found != device_by_label_.end() && row_line_[found->second] == 0;
  }

  void read_header(int line, std::vector<Token> toks);
  void note_elided_header(int line, const Token& t, bool before_gpus);
  void read_elided_row(int line, const std::vector<Token>& toks, std::size_t cut, int dev);
  void read_affinity_header(int line, const std::vector<Token>& toks, std::size_t i);
  void read_row(int line, std::vector<Token> toks, const std::string& text);
  void unglue(int line, std::vector<Token>& toks);
  void drop_trailing_comment(int line, std::vector<Token>& toks, std::size_t cells, const std::string& text);
  std::vector<std::pair<std::size_t, Token>> empty_affinity_cells(const std::string& text, int gpu) const;
  void store_path(int line, const Token& t, int row, int col_device);
  void read_gpu_affinity(int line, const std::vector<Token>& toks, std::size_t first, int gpu);
  int first_of_node_list(int line, const Token& t, int gpu);
  void read_nic_legend(int line, const std::vector<Token>& toks);
  void check_complete(int end_line);
  std::string column_summary() const;

  TopoMatrix m_;
  std::vector<int> column_device_;       // header column -> device id
  std::vector<Affinity> affinity_;       // the affinity columns, in order
  bool affinity_empty_noted_ = false;
  bool node_list_noted_ = false;
  bool blank_rows_noted_ = false;
  bool commented_ = false;               // the matrix came behind '#' on every line (uncomment)
  bool glued_noted_ = false;
  bool comment_noted_ = false;
  bool table_noted_ = false;
  std::optional<Skipped> skipped_;       // lines above the header that name no GPU
  std::vector<std::string> affinity_names_;
  std::map<std::string, int> device_by_label_;
  std::vector<int> row_line_;            // per device: line of its row, 0 = none yet
  std::vector<Token> numa_token_;        // per GPU: its NUMA Affinity cell
  std::vector<int> numa_token_line_;
  int nic_numbered_ = 0;                 // NIC<n> columns seen
  bool elided_ = false;                  // the header cuts columns with `...`
  std::vector<std::string> dropped_;     // header columns after the `...`
  std::vector<bool> affinity_elided_;    // per GPU: its row cut the affinity values
  std::map<std::string, int> legend_line_;
};

TopoMatrix Reader::read(const std::string& text) {
  State state = State::start;
  int line_no = 0, last_row_line = 0, command_line = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t eol = text.find('\n', pos);
    if (eol == std::string::npos) eol = text.size();
    std::string line = text.substr(pos, eol - pos);
    pos = eol + 1;
    ++line_no;
    if (line_no == 1 && line.rfind("\xEF\xBB\xBF", 0) == 0) line.replace(0, 3, "   ");  // UTF-8 BOM
    blank_escapes(line);
    if (!untable(line, line_no)) continue;
    if (!uncomment(line, line_no, state)) {
      if (state != State::trailing) state = trailing(line_no, split_tokens(line).front(), line);
      continue;
    }
    auto toks = split_tokens(line);
    bool blank = toks.empty();
    bool legend = !blank && toks[0].text == "Legend:" && toks.size() == 1;
    bool nic_legend = toks.size() == 2 && toks[0].text == "NIC" && toks[1].text == "Legend:";

    switch (state) {
      case State::start:
        if (blank) continue;
        if (line.find("nvidia-smi") != std::string::npos) {  // the shell line that printed the matrix
          command_line = line_no;
          m_.notes.push_back(format_note(Location{m_.file, line_no, toks[0].col},
                                         "the command line before the matrix, skipped"));
          continue;
        }
        if (is_title(toks)) {  // "GPU Topology:", as vLLM's and SGLang's environment reports print it
          m_.notes.push_back(format_note(Location{m_.file, line_no, toks[0].col},
                                         fmt::format("the title '{}' before the matrix, skipped", shown(line.substr(toks[0].col - 1)))));
          continue;
        }
        if (std::none_of(toks.begin(), toks.end(), names_gpu)) {  // a line above the matrix: a timestamp, a sentence
          if (!skipped_) skipped_ = Skipped{line_no, toks[0], trimmed(line.substr(toks[0].col - 1)), 0};
          ++skipped_->lines;
          continue;
        }
        note_skipped_before_header();
        read_header(line_no, toks);
        state = State::rows;
        last_row_line = line_no;
        break;
      case State::rows:
      case State::after_matrix:
        if (blank) {
          state = State::after_matrix;
        } else if (legend) {
          state = State::legend;
        } else if (nic_legend) {
          state = State::nic_legend;
        } else if (state == State::rows || row_still_missing(toks[0].text)) {
          if (state == State::after_matrix && !blank_rows_noted_) {
            blank_rows_noted_ = true;
            m_.notes.push_back(format_note(Location{m_.file, line_no, toks[0].col},
                                           "blank lines between the matrix rows, read through"));
          }
          state = State::rows;
          read_row(line_no, std::move(toks), line);
          last_row_line = line_no;
        } else if (device_by_label_.count(toks[0].text)) {
          fail(line_no, toks[0],
               fmt::format("unexpected '{}' after the end of the matrix (line {}); only the Legend may come after "
                           "its rows",
                           toks[0].text, last_row_line));
        } else {
          state = trailing(line_no, toks[0], line);
        }
        break;
      case State::legend:
        if (nic_legend) state = State::nic_legend;
        else if (!blank && !(toks.size() >= 2 && toks[1].text == "=")) state = trailing(line_no, toks[0], line);
        break;
      case State::nic_legend:
        if (blank) break;
        if (toks[0].text.rfind("NIC", 0) == 0) read_nic_legend(line_no, toks);
        else state = trailing(line_no, toks[0], line);
        break;
      case State::trailing:
        break;
    }
  }
  if (state == State::start && command_line)
    fail(command_line + 1, 1, fmt::format("no matrix after the command line on line {}; expected the output of `nvidia-smi topo -m`",
                                          command_line));
  if (state == State::start && skipped_)
    fail(skipped_->line, skipped_->first,
         fmt::format("expected the header row of `nvidia-smi topo -m` (GPU0 GPU1 ... CPU Affinity), found '{}'", skipped_->first.text));
  if (state == State::start)
    fail(1, 1, "empty topology file; expected the output of `nvidia-smi topo -m`");
  check_complete(last_row_line + 1);
  infer_pcie_tree(m_);  // the codes must agree with each other and with the NUMA nodes
  return std::move(m_);
}

void Reader::read_header(int line, std::vector<Token> toks) {
  std::vector<TopoDevice> gpus, nics;
  std::vector<std::pair<bool, int>> columns;  // (is_gpu, index within its kind)
  std::size_t i = 0;
  for (; i < toks.size(); ++i) {
    if (const std::vector<Token> labels = glued_labels(toks[i], int(gpus.size())); !labels.empty()) {
      m_.notes.push_back(format_note(Location{m_.file, line, toks[i].col},
                                     fmt::format("'{}' is {} column names run together, as old drivers printed the header: "
                                                 "read apart", toks[i].text, labels.size())));
      toks.erase(toks.begin() + i);
      toks.insert(toks.begin() + i, labels.begin(), labels.end());
    }
    const Token& t = toks[i];
    if (t.text == "CPU" || t.text == "NUMA" || t.text == "GPU") break;
    if (is_ellipsis(t.text) || elided_) {
      note_elided_header(line, t, gpus.empty());
      continue;
    }
    TopoDevice d{t.text, false, 0, "", line, t.col};
    if (auto g = numbered(t.text, "GPU")) {
      if (*g != static_cast<int>(gpus.size()))
        fail(line, t, fmt::format("expected GPU{} here, found {}: nvidia-smi numbers GPU columns from 0 without gaps",
                                  gpus.size(), t.text));
      d.is_gpu = true;
      d.index = *g;
      gpus.push_back(d);
      columns.push_back({true, d.index});
      continue;
    }
    if (auto n = numbered(t.text, "NIC")) {
      if (*n != nic_numbered_)
        fail(line, t, fmt::format("expected NIC{} here, found {}: nvidia-smi numbers NIC columns from 0 without gaps",
                                  nic_numbered_, t.text));
      ++nic_numbered_;
    } else if (is_rdma_name(t.text)) {
      d.nic_device = t.text;
    } else if (parse_code(t.text)) {
      fail(line, t, fmt::format("found the path code '{}' where the header row should be; the matrix starts with "
                                "the line that names the columns (GPU0 GPU1 ... CPU Affinity)", t.text));
    } else if (i == 0) {
      fail(line, t, fmt::format("expected the header row of `nvidia-smi topo -m` (GPU0 GPU1 ... CPU Affinity), "
                                "found '{}'", t.text));
    } else {
      fail(line, t, fmt::format("unknown column '{}' in the header; expected GPU<n>, NIC<n> or an RDMA device "
                                "such as mlx5_0, then 'CPU Affinity'", shown(t.text)));
    }
    for (const auto& other : nics)
      if (other.label == d.label) fail(line, t, fmt::format("column {} appears twice in the header", d.label));
    d.index = static_cast<int>(nics.size());
    nics.push_back(d);
    columns.push_back({false, d.index});
  }
  if (gpus.empty())
    fail(line, toks[0], "the header names no GPU; expected GPU0, GPU1, ... as in `nvidia-smi topo -m`");
  read_affinity_header(line, toks, i);

  m_.gpu_count = static_cast<int>(gpus.size());
  m_.devices = gpus;
  m_.devices.insert(m_.devices.end(), nics.begin(), nics.end());
  for (auto [is_gpu, index] : columns) column_device_.push_back(is_gpu ? index : m_.gpu_count + index);
  for (std::size_t d = 0; d < m_.devices.size(); ++d) device_by_label_[m_.devices[d].label] = static_cast<int>(d);
  m_.paths.assign(m_.devices.size(), std::vector<PathEntry>(m_.devices.size()));
  row_line_.assign(m_.devices.size(), 0);
  m_.cpu_affinity.assign(gpus.size(), "");
  m_.numa_node.assign(gpus.size(), -1);
  m_.gpu_numa_id.assign(gpus.size(), -1);
  numa_token_.assign(gpus.size(), Token{});
  numa_token_line_.assign(gpus.size(), 0);
  affinity_elided_.assign(gpus.size(), false);
}

// After the devices: `CPU Affinity`, `NUMA Affinity`, `GPU NUMA ID`, each optional, in this order.
void Reader::read_affinity_header(int line, const std::vector<Token>& toks, std::size_t i) {
  struct Phrase {
    std::vector<std::string> words;
    Affinity kind;
  };
  static const std::vector<Phrase> phrases = {{{"CPU", "Affinity"}, Affinity::cpu},
                                              {{"NUMA", "Affinity"}, Affinity::numa},
                                              {{"NUMA"}, Affinity::numa},  // condensed copies
                                              {{"GPU", "NUMA", "ID"}, Affinity::gpu_numa_id}};
  std::size_t next = 0;
  while (i < toks.size()) {
    bool matched = false;
    for (std::size_t p = next; p < phrases.size() && !matched; ++p) {
      const auto& words = phrases[p].words;
      if (i + words.size() > toks.size()) continue;
      bool all = true;
      for (std::size_t w = 0; w < words.size(); ++w) all = all && toks[i + w].text == words[w];
      if (!all) continue;
      affinity_.push_back(phrases[p].kind);
      affinity_names_.push_back(fmt::format("{}", fmt::join(words, " ")));
      i += words.size();
      next = phrases[p].kind == Affinity::numa ? 3 : p + 1;
      matched = true;
    }
    if (!matched)
      fail(line, toks[i], fmt::format("unexpected '{}' in the header; after the device columns come "
                                      "'CPU Affinity', 'NUMA Affinity' and 'GPU NUMA ID'", toks[i].text));
  }
}

std::string Reader::column_summary() const {
  std::string s = fmt::format("{} device{}", column_device_.size(), column_device_.size() == 1 ? "" : "s");
  for (const auto& name : affinity_names_) s += ", " + name;
  return s;
}

// nvidia-smi leaves a GPU's CPU Affinity cell empty where it knows no CPUs near it (GPUs 1-3 of
// tests/data/topo/4xh100-nv18-empty-cpu-affinity.txt: "GPU1\tNV18\t X \tNV18\tNV18\t\t1\t\tN/A"). With its tabs kept, the cell
// after the device columns is empty: an N/A token at its column, or nullopt where it is not.
// A tab-separated GPU row's affinity cells that hold nothing (nvidia-smi knows no CPUs or NUMA node
// near the GPU, as in a container): per empty cell, its index among the affinity columns and an
// N/A token at its column. nvidia-smi puts two tabs before the GPU NUMA ID cell, and some copies
// end rows with tabs: those empty cells are padding, not values.
std::vector<std::pair<std::size_t, Token>> Reader::empty_affinity_cells(const std::string& text, int gpu) const {
  if (!m_.devices[gpu].is_gpu) return {};
  std::size_t start = 0;
  for (std::size_t cell = 0; cell <= column_device_.size(); ++cell) {  // skip the label and the device cells
    start = text.find('\t', start);
    if (start == std::string::npos) return {};
    ++start;
  }
  std::vector<std::pair<std::size_t, std::size_t>> cells;  // [begin, end) of each tab-separated cell
  for (std::size_t end; start <= text.size(); start = end + 1) {
    end = std::min(text.find('\t', start), text.size());
    cells.push_back({start, end});
  }
  auto blank = [&](std::pair<std::size_t, std::size_t> c) { return std::all_of(text.begin() + c.first, text.begin() + c.second, is_blank_char); };
  while (cells.size() > affinity_.size() && blank(cells.back())) cells.pop_back();
  if (!affinity_.empty() && affinity_.back() == Affinity::gpu_numa_id)
    while (cells.size() > affinity_.size() && cells.size() >= 2 && blank(cells[cells.size() - 2])) cells.erase(cells.end() - 2);
  if (cells.size() != affinity_.size()) return {};
  std::vector<std::pair<std::size_t, Token>> empty;
  for (std::size_t a = 0; a < cells.size(); ++a)
    if (blank(cells[a])) empty.push_back({a, Token{"N/A", static_cast<int>(cells[a].first) + 1}});
  return empty;
}

void Reader::read_row(int line, std::vector<Token> toks, const std::string& text) {
  const int line_length = static_cast<int>(text.size());
  const Token label = toks[0];  // a copy: toks may grow below
  if (is_ellipsis(label.text)) return;  // elided rows: the GPU rows must all be there (check_complete)
  auto found = device_by_label_.find(label.text);
  if (found == device_by_label_.end() && elided_ &&
      std::find(dropped_.begin(), dropped_.end(), label.text) != dropped_.end())
    return;  // a row of a column the header cut
  if (found == device_by_label_.end()) {
    if (numbered(label.text, "GPU") || numbered(label.text, "NIC") || is_rdma_name(label.text)) {
      std::vector<std::string> names;
      for (const auto& d : m_.devices) names.push_back(d.label);
      fail(line, label, fmt::format("row {} has no column in the header (the header names {})", label.text,
                                    fmt::join(names, ", ")));
    }
    fail(line, label, fmt::format("expected a row of the matrix (a device named in the header), found '{}'",
                                  label.text));
  }
  int dev = found->second;
  if (row_line_[dev] != 0)
    fail(line, label, fmt::format("second row for {} (the first is on line {})", label.text, row_line_[dev]));
  row_line_[dev] = line;

  auto cut = std::find_if(toks.begin() + 1, toks.end(), [](const Token& t) { return is_ellipsis(t.text); });
  if (cut != toks.end()) return read_elided_row(line, toks, static_cast<std::size_t>(cut - toks.begin()), dev);
  bool gpu = m_.devices[dev].is_gpu;
  std::size_t want = 1 + column_device_.size() + (gpu ? affinity_.size() : 0);
  if (toks.size() < want) unglue(line, toks);
  if (toks.size() < want) {
    const auto empty = empty_affinity_cells(text, dev);
    if (!empty.empty() && toks.size() + empty.size() == want) {
      std::vector<std::string> names;
      for (const auto& [a, t] : empty) {
        toks.insert(toks.begin() + 1 + column_device_.size() + a, t);
        names.push_back(affinity_names_[a]);
      }
      if (!affinity_empty_noted_)
        m_.notes.push_back(format_note(Location{m_.file, line, empty.front().second.col},
                                       fmt::format("{}'s {} cell{} empty (nvidia-smi knows nothing near it): read as N/A, and so "
                                                   "for any other such row",
                                                   label.text, fmt::join(names, " and "), names.size() > 1 ? "s are" : " is")));
      affinity_empty_noted_ = true;
    }
  }
  if (toks.size() > want) drop_trailing_comment(line, toks, want, text);
  if (toks.size() != want) {
    std::string what = gpu ? column_summary()
                           : fmt::format("{} devices; NIC rows have no affinity columns", column_device_.size());
    std::string msg = fmt::format("row {} has {} entries but the header has {} columns ({})", label.text,
                                  toks.size() - 1, want - 1, what);
    if (toks.size() < want) fail(line, line_length + 1, msg);
    fail(line, toks[want], msg);
  }
  for (std::size_t c = 0; c < column_device_.size(); ++c) store_path(line, toks[1 + c], dev, column_device_[c]);
  if (gpu) read_gpu_affinity(line, toks, 1 + column_device_.size(), dev);
}

// Text after a row's cells that no cell can start with (a cell is a path code, a number, a CPU or
// NUMA list, or N/A: it begins with a letter or a digit), such as "<-- GPU 2 talks to 3", is the
// author's comment on the row: dropped, with a note for the file's first.
void Reader::drop_trailing_comment(int line, std::vector<Token>& toks, std::size_t cells, const std::string& text) {
  const Token& first = toks[cells];
  if (std::isalnum(static_cast<unsigned char>(first.text[0]))) return;
  std::string comment = text.substr(static_cast<std::size_t>(first.col - 1));
  while (!comment.empty() && is_blank_char(comment.back())) comment.pop_back();
  if (!comment_noted_)
    m_.notes.push_back(format_note(Location{m_.file, line, first.col},
                                   fmt::format("row {} ends in '{}', which no cell starts with: read as a comment on the row, "
                                               "and so for any other such row",
                                               toks[0].text, shown(comment))));
  comment_noted_ = true;
  toks.resize(cells);
}

// A short row's path cells that are codes run together (glued_codes) are read as their codes, with a
// note for the file's first.
void Reader::unglue(int line, std::vector<Token>& toks) {
  for (std::size_t c = 1; c < toks.size() && c <= column_device_.size(); ++c) {
    if (parse_code(toks[c].text)) continue;
    const std::vector<Token> codes = glued_codes(toks[c]);
    if (codes.empty()) continue;
    if (!glued_noted_) {
      std::vector<std::string> texts;
      for (const Token& t : codes) texts.push_back(t.text);
      m_.notes.push_back(format_note(Location{m_.file, line, toks[c].col},
                                     fmt::format("'{}' is {} path codes run together (a tab lost in the copy): read as {}, and so "
                                                 "for any other such cell",
                                                 toks[c].text, codes.size(), fmt::join(texts, " and "))));
    }
    glued_noted_ = true;
    toks.erase(toks.begin() + c);
    toks.insert(toks.begin() + c, codes.begin(), codes.end());
    c += codes.size() - 1;
  }
}

// The header's first `...`: everything after it up to the affinity columns is dropped.
void Reader::note_elided_header(int line, const Token& t, bool before_gpus) {
  if (before_gpus) fail(line, t, "the header elides columns before any GPU column; tpsim needs every GPU column");
  if (numbered(t.text, "GPU"))
    fail(line, t, fmt::format("the header elides GPU columns with '...' ({} appears after it); tpsim needs the path of "
                              "every GPU pair: paste the whole `nvidia-smi topo -m` output", t.text));
  if (!elided_)
    m_.notes.push_back(format_note(Location{m_.file, line, t.col},
                                   "the header elides columns with '...': the GPU x GPU block is complete; the NIC columns "
                                   "after it are not read, and a GPU row that elides its affinity values gets its NUMA "
                                   "node from the path codes"));
  elided_ = true;
  if (is_ellipsis(t.text)) return;
  if (!numbered(t.text, "NIC") && !is_rdma_name(t.text))
    fail(line, t, fmt::format("unknown column '{}' after '...' in the header; expected NIC<n> or an RDMA device such as "
                              "mlx5_0, then 'CPU Affinity'", shown(t.text)));
  dropped_.push_back(t.text);
}

// A row with `...` at toks[cut]: the entries before it are the first columns in header order
// (all GPU columns at least); the entries after it end in the affinity values, or give none.
void Reader::read_elided_row(int line, const std::vector<Token>& toks, std::size_t cut, int dev) {
  const std::string& label = toks[0].text;
  const std::size_t before = cut - 1, after = toks.size() - cut - 1;
  if (before < static_cast<std::size_t>(m_.gpu_count) || before > column_device_.size())
    fail(line, toks[cut], fmt::format("row {} gives {} entries before '...'; tpsim needs its {} GPU entries (and at most "
                                      "the {} columns of the header) before the cut", label, before, m_.gpu_count,
                                      column_device_.size()));
  if (!elided_) {
    m_.notes.push_back(format_note(Location{m_.file, line, toks[cut].col},
                                   "rows elide columns with '...': the GPU x GPU block is complete; the entries cut are "
                                   "not read"));
    elided_ = true;
  }
  for (std::size_t c = 0; c < before; ++c) store_path(line, toks[1 + c], dev, column_device_[c]);
  if (!m_.devices[dev].is_gpu) return;
  if (after == 0 || affinity_.empty()) {
    affinity_elided_[dev] = true;
    numa_token_[dev] = toks[cut];
    numa_token_line_[dev] = line;
    return;
  }
  if (after < affinity_.size())
    fail(line, toks[cut], fmt::format("row {} gives {} entries after '...', fewer than the {} affinity columns of the "
                                      "header", label, after, affinity_.size()));
  read_gpu_affinity(line, toks, toks.size() - affinity_.size(), dev);
}

void Reader::store_path(int line, const Token& t, int row, int col_device) {
  auto entry = parse_code(t.text);
  if (!entry) fail(line, t, unknown_code_message(t.text));
  const std::string& a = m_.devices[row].label;
  const std::string& b = m_.devices[col_device].label;
  if (row == col_device && entry->code != PathCode::X)
    fail(line, t, fmt::format("{}'s own column must be X, found {}", a, t.text));
  if (row != col_device && entry->code == PathCode::X)
    fail(line, t, fmt::format("X (the device itself) between {} and {}; X belongs on the diagonal only", a, b));
  if (entry->code == PathCode::NV && !(m_.devices[row].is_gpu && m_.devices[col_device].is_gpu))
    fail(line, t, fmt::format("{} between {} and {}; NVLink joins GPUs only", t.text, a, b));
  entry->given = true;
  entry->line = line;
  entry->col = t.col;

  const PathEntry& mirror = m_.paths[col_device][row];
  if (mirror.given && (mirror.code != entry->code || mirror.nvlinks != entry->nvlinks))
    fail(line, t, fmt::format("{} says {} to {}, but {} says {} to {} (line {}); the matrix must be symmetric", a,
                              t.text, b, b, mirror.text(), a, mirror.line));
  m_.paths[row][col_device] = *entry;
  if (!mirror.given) m_.paths[col_device][row] = *entry;
}

// A NUMA Affinity that lists nodes (hosts whose GPU memory shows as NUMA nodes, Grace or POWER9, list
// the CPU's node, then those of the GPUs' memory): the first is the node the GPU hangs off.
int Reader::first_of_node_list(int line, const Token& t, int gpu) {
  const std::string first = t.text.substr(0, t.text.find_first_of(",-"));
  if (!all_digits(first, 0)) fail(line, t, fmt::format("NUMA Affinity of GPU{} is '{}'; expected a NUMA node number or N/A", gpu, t.text));
  const int node = std::stoi(first);
  if (!node_list_noted_)
    m_.notes.push_back(format_note(Location{m_.file, line, t.col},
                                   fmt::format("GPU{}'s NUMA Affinity lists several nodes ({}): the first, {}, is taken as its node "
                                               "(hosts whose GPU memory shows as NUMA nodes, Grace or POWER9, list the CPU's node first), and so "
                                               "for any other such row",
                                               gpu, t.text, node)));
  node_list_noted_ = true;
  return node;
}

void Reader::read_gpu_affinity(int line, const std::vector<Token>& toks, std::size_t first, int gpu) {
  auto number_or_na = [&](const Token& t, const char* what) {
    if (t.text == "N/A") return -1;
    if (!all_digits(t.text, 0))
      fail(line, t, fmt::format("{} of GPU{} is '{}'; expected a NUMA node number or N/A", what, gpu, t.text));
    return std::stoi(t.text);
  };
  for (std::size_t k = 0; k < affinity_.size(); ++k) {
    const Token& t = toks[first + k];
    switch (affinity_[k]) {
      case Affinity::cpu:
        if (!is_cpu_list(t.text))
          fail(line, t, fmt::format("CPU Affinity of GPU{} is '{}'; expected a CPU list such as 0-31,64-95 or N/A",
                                    gpu, t.text));
        m_.cpu_affinity[gpu] = t.text;
        break;
      case Affinity::numa:
        m_.numa_node[gpu] = t.text != "N/A" && !all_digits(t.text, 0) && is_cpu_list(t.text) ? first_of_node_list(line, t, gpu)
                                                                                              : number_or_na(t, "NUMA Affinity");
        numa_token_[gpu] = t;
        numa_token_line_[gpu] = line;
        break;
      case Affinity::gpu_numa_id: m_.gpu_numa_id[gpu] = number_or_na(t, "GPU NUMA ID"); break;
    }
  }
}

void Reader::read_nic_legend(int line, const std::vector<Token>& toks) {
  const Token& t = toks[0];
  bool shaped = toks.size() == 2 && t.text.size() > 1 && t.text.back() == ':' &&
                numbered(t.text.substr(0, t.text.size() - 1), "NIC");
  if (!shaped) fail(line, t, fmt::format("unexpected '{}' in the NIC Legend; expected lines such as 'NIC0: mlx5_0'", t.text));
  std::string label = t.text.substr(0, t.text.size() - 1);
  auto found = device_by_label_.find(label);
  if (found == device_by_label_.end())
    fail(line, t, fmt::format("the NIC Legend names {}, which is not a column of the matrix", label));
  if (auto seen = legend_line_.find(label); seen != legend_line_.end())
    fail(line, t, fmt::format("the NIC Legend names {} twice (first on line {})", label, seen->second));
  if (!is_device_name(toks[1].text))
    fail(line, toks[1], fmt::format("{}'s device name '{}' is not a network device name (letters, digits, _ - . :)",
                                    label, shown(toks[1].text)));
  legend_line_[label] = line;
  m_.devices[found->second].nic_device = toks[1].text;
}

// A missing GPU row is an error, not something to fill in: from the rows that are there tpsim
// cannot read the paths between the missing GPUs, nor their NUMA nodes. Even a row of NV18 to
// every peer (which implies an NVSwitch fabric, so all GPU pairs are NV18) leaves the PCIe and
// socket placement of the other GPUs unknown, and guessing it would decide which transfers share a
// switch or cross UPI. NIC rows may be missing: what they add (NIC-NIC paths) tpsim does not use.
void Reader::check_complete(int end_line) {
  std::vector<std::string> missing;
  for (int g = 0; g < m_.gpu_count; ++g)
    if (row_line_[g] == 0) missing.push_back(m_.devices[g].label);
  if (!missing.empty()) {
    std::vector<std::string> have;
    for (int g = 0; g < m_.gpu_count; ++g)
      if (row_line_[g] != 0) have.push_back(m_.devices[g].label);
    fail(end_line, 1,
         fmt::format("the matrix has no row for {} (the header names {} GPUs; rows are given for {}); tpsim does "
                     "not guess the missing paths and NUMA nodes: paste the whole `nvidia-smi topo -m` output",
                     fmt::join(missing, ", "), m_.gpu_count, have.empty() ? "none" : fmt::format("{}", fmt::join(have, ", "))));
  }
  // NIC rows cut short (a copy that ends after some of them): the GPU rows give every GPU-NIC path.
  std::vector<std::string> nics_without_row;
  for (std::size_t d = m_.gpu_count; d < m_.devices.size(); ++d)
    if (row_line_[d] == 0) nics_without_row.push_back(m_.devices[d].label);
  if (!nics_without_row.empty())
    m_.notes.push_back(format_note(Location{m_.file, end_line, 1},
                                   fmt::format("the matrix has no row for {}: their paths to the devices with rows (every GPU) "
                                               "are read from those rows, the paths among them are not given, and the PCIe tree "
                                               "is inferred without them",
                                               fmt::join(nics_without_row, ", "))));
  // NUMA nodes: for all GPUs or for none.
  int known = static_cast<int>(std::count_if(m_.numa_node.begin(), m_.numa_node.end(), [](int n) { return n >= 0; }));
  if (known > 0 && known < m_.gpu_count) {
    for (int g = 0; g < m_.gpu_count; ++g)
      if (m_.numa_node[g] < 0)
        fail(numa_token_line_[g], numa_token_[g],
             fmt::format("NUMA Affinity of GPU{} is {} while other GPUs give a NUMA node; tpsim cannot tell "
                         "which CPU socket GPU{} hangs off", g, affinity_elided_[g] ? "elided with '...'" : "N/A", g));
  }
}

}  // namespace

TopoMatrix parse_topo_matrix(const std::string& text, const std::string& file) {
  return Reader(file).read(text);
}

}  // namespace tpsim
