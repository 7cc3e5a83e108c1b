// A row of `nvidia-smi topo -m`: its path cells (codes run together, an author's trailing comment,
// cells cut with `...`) and its affinity cells, for the reader of topo_matrix.cpp.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>

#include "topo/topo_reader.hpp"

namespace tpsim::topo_reading {

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
    if (names_device(label.text)) {
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
  const std::string comment = trimmed(text.substr(static_cast<std::size_t>(first.col - 1)));
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

}  // namespace tpsim::topo_reading
