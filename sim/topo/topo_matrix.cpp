// Reader for `nvidia-smi topo -m` (topo_reader.hpp): the lines, the header, the legends, and whether
// the matrix is whole; a row's cells are read in topo_rows.cpp. Columns are counted in bytes from 1,
// a tab counting as one, so an editor's "go to column" lands on the cell.
#include "topo/topo_matrix.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <utility>

#include "topo/topo_pcie_tree.hpp"
#include "topo/topo_reader.hpp"

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


namespace topo_reading {

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
        } else if (state == State::rows && every_row_read() && !names_device(toks[0].text)) {
          state = trailing(line_no, toks[0], line);  // text right after the last row, no blank line between
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
  // No header read (it sets the GPUs): nothing before the end, or only lines the reader skipped.
  const bool no_matrix = m_.gpu_count == 0;
  if (no_matrix && command_line)
    fail(command_line + 1, 1, fmt::format("no matrix after the command line on line {}; expected the output of `nvidia-smi topo -m`",
                                          command_line));
  if (no_matrix && skipped_)
    fail(skipped_->line, skipped_->first,
         fmt::format("expected the header row of `nvidia-smi topo -m` (GPU0 GPU1 ... CPU Affinity), found '{}'", skipped_->first.text));
  if (no_matrix)
    fail(1, 1, "empty topology file; expected the output of `nvidia-smi topo -m`");
  check_complete(last_row_line + 1);
  infer_pcie_tree(m_);  // the codes must agree with each other and with the NUMA nodes
  return std::move(m_);
}

void Reader::read_header(int line, std::vector<Token> toks) {
  std::vector<TopoDevice> gpus, nics;
  std::vector<std::pair<bool, int>> columns;  // (is_gpu, index within its kind)
  // A corner cell with a label of its own (a Markdown table's `| GPU | GPU0 | ...`): nvidia-smi leaves it blank.
  if (toks.size() > 1 && toks[1].text == "GPU0" && !numbered(toks[0].text, "GPU") && !parse_code(toks[0].text) &&
      !is_ellipsis(toks[0].text)) {
    m_.notes.push_back(format_note(Location{m_.file, line, toks[0].col},
                                   fmt::format("'{}' labels the corner cell, which nvidia-smi leaves blank: read as the header row",
                                               shown(toks[0].text))));
    toks.erase(toks.begin());
  }
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
      m_.numa_column = m_.numa_column || phrases[p].kind == Affinity::numa;
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
  numa_from_cpu_affinity(end_line);
  int known = static_cast<int>(std::count_if(m_.numa_node.begin(), m_.numa_node.end(), [](int n) { return n >= 0; }));
  if (known > 0 && known < m_.gpu_count) {
    for (int g = 0; g < m_.gpu_count; ++g)
      if (m_.numa_node[g] < 0)
        fail(numa_token_line_[g], numa_token_[g],
             fmt::format("NUMA Affinity of GPU{} is {} while other GPUs give a NUMA node; tpsim cannot tell "
                         "which CPU socket GPU{} hangs off", g, affinity_elided_[g] ? "elided with '...'" : "N/A", g));
  }
}

// A GPU whose NUMA Affinity is N/A among GPUs that give one: its CPU Affinity places it. The same
// CPU list as a GPU with a node: that node; a list no GPU with a node has: a node of its own (the
// lowest number not taken), since a NUMA node's GPUs print its CPUs. Said in a note either way.
void Reader::numa_from_cpu_affinity(int end_line) {
  auto known = [&](int g) { return m_.numa_node[g] >= 0; };
  if (std::none_of(m_.numa_node.begin(), m_.numa_node.end(), [](int n) { return n >= 0; })) return;
  for (int g = 0; g < m_.gpu_count; ++g) {
    const std::string& cpus = m_.cpu_affinity[g];
    if (known(g) || affinity_elided_[g] || cpus.empty() || cpus == "N/A") continue;
    int same = -1;
    for (int h = 0; h < m_.gpu_count && same < 0; ++h)
      if (known(h) && m_.cpu_affinity[h] == cpus) same = h;
    std::string why;
    if (same >= 0) {
      m_.numa_node[g] = m_.numa_node[same];
      why = fmt::format("GPU{}'s, whose CPU Affinity ({}) is the same", same, cpus);
    } else {
      int node = 0;
      while (std::find(m_.numa_node.begin(), m_.numa_node.end(), node) != m_.numa_node.end()) ++node;
      m_.numa_node[g] = node;
      why = fmt::format("a node of its own: no GPU with a NUMA node has its CPU Affinity ({})", cpus);
    }
    m_.notes.push_back(format_note(Location{m_.file, numa_token_line_[g] ? numa_token_line_[g] : end_line, numa_token_[g].col},
                                   fmt::format("NUMA Affinity of GPU{} is N/A: placed on NUMA node {}, {}", g, m_.numa_node[g], why)));
  }
}

}  // namespace topo_reading

TopoMatrix parse_topo_matrix(const std::string& text, const std::string& file) {
  return topo_reading::Reader(file).read(text);
}

}  // namespace tpsim
