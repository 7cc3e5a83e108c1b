// The reader behind parse_topo_matrix, a small line-oriented state machine (header, rows, legend,
// NIC legend): topo_matrix.cpp reads the lines, the header, the legends and checks the matrix is
// whole; topo_rows.cpp reads a row's cells. Internal to sim/topo.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "topo/topo_cells.hpp"
#include "topo/topo_matrix.hpp"
#include "util/error.hpp"

namespace tpsim::topo_reading {

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
  // Every device of the header has its row: what follows is not the matrix's (unless it names a device).
  bool every_row_read() const {
    return std::none_of(row_line_.begin(), row_line_.end(), [](int line) { return line == 0; });
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
  void numa_from_cpu_affinity(int end_line);
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

}  // namespace tpsim::topo_reading
