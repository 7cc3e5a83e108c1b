#include "topo/topo_cells.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstring>

namespace tpsim::matrix_cells {

bool is_blank_char(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// nvidia-smi underlines its header on a terminal (ESC[4m ... ESC[0m); copies from web pages often
// keep the text without the ESC byte ("[4mGPU0"). Both are blanked in place, keeping columns.
void blank_escapes(std::string& line) {
  for (std::size_t i = 0; i < line.size(); ++i) {
    std::size_t j = i + (line[i] == '\x1b' ? 1 : 0);
    if (j >= line.size() || line[j] != '[') continue;
    std::size_t k = j + 1;
    while (k < line.size() && (is_digit(line[k]) || line[k] == ';')) ++k;
    bool has_esc = j > i;
    if (k < line.size() && line[k] == 'm' && (has_esc || k > j + 1)) {
      std::fill(line.begin() + static_cast<long>(i), line.begin() + static_cast<long>(k) + 1, ' ');
      i = k;
    }
  }
}

std::vector<Token> split_tokens(const std::string& line) {
  std::vector<Token> tokens;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_blank_char(line[i])) ++i;
    std::size_t start = i;
    while (i < line.size() && !is_blank_char(line[i])) ++i;
    if (i > start) tokens.push_back({line.substr(start, i - start), static_cast<int>(start) + 1});
  }
  return tokens;
}

// "..." (or more dots, or the ellipsis character) where an author cut columns.
bool is_ellipsis(const std::string& s) {
  return s == "\xE2\x80\xA6" || (s.size() >= 3 && std::all_of(s.begin(), s.end(), [](char c) { return c == '.'; }));
}

bool all_digits(const std::string& s, std::size_t from) {
  return s.size() > from && s.size() - from <= 6 &&
         std::all_of(s.begin() + static_cast<long>(from), s.end(), is_digit);
}

bool names_gpu(const Token& t) { return t.text.size() > 3 && t.text.compare(0, 3, "GPU") == 0 && is_digit(t.text[3]); }

// "GPU12" with prefix "GPU" -> 12.
std::optional<int> numbered(const std::string& s, const std::string& prefix) {
  if (s.rfind(prefix, 0) != 0 || !all_digits(s, prefix.size())) return std::nullopt;
  return std::stoi(s.substr(prefix.size()));
}

// A network device name as Linux prints it (mlx5_0, ibp14s0, rocep3s0f0): letters, digits, _ - . :
// Anything else would reach the platform XML, where control bytes cannot be written.
bool is_device_name(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' || c == ':';
  });
}

// `s` with every byte that is not printable ASCII written as \xNN, for messages.
std::string shown(const std::string& s) {
  std::string out;
  for (unsigned char c : s) out += c >= 0x20 && c < 0x7f ? std::string(1, char(c)) : fmt::format("\\x{:02x}", c);
  return out;
}

// `s` without its trailing blanks.
std::string trimmed(std::string s) {
  s.erase(s.find_last_not_of(" \t\r") + 1);
  return s;
}

// A section title above the matrix ("GPU Topology:", "NVIDIA Topology:"): a few words, the last ending
// in ':', none of them a GPU column.
bool is_title(const std::vector<Token>& toks) {
  return !toks.empty() && toks.size() <= 4 && toks.back().text.back() == ':' &&
         std::none_of(toks.begin(), toks.end(), [](const Token& t) { return numbered(t.text, "GPU").has_value(); });
}

bool is_rdma_name(const std::string& s) {
  if (!is_device_name(s)) return false;
  for (const char* prefix : {"mlx4_", "mlx5_", "bnxt_re", "irdma", "qedr", "efa", "erdma", "ionic_", "hfi1_"})
    if (s.rfind(prefix, 0) == 0 && s.size() > std::string(prefix).size()) return true;
  return false;
}

bool names_device(const std::string& s) { return numbered(s, "GPU") || numbered(s, "NIC") || is_rdma_name(s); }

std::optional<PathEntry> parse_code(const std::string& t) {
  PathEntry e;
  if (t == "X") e.code = PathCode::X;
  else if (t == "PIX") e.code = PathCode::PIX;
  else if (t == "PXB") e.code = PathCode::PXB;
  else if (t == "PHB") e.code = PathCode::PHB;
  else if (t == "NODE") e.code = PathCode::NODE;
  else if (t == "SYS" || t == "SOC") e.code = PathCode::SYS;  // SOC: drivers before 2017
  else if (auto n = numbered(t, "NV"); n && *n > 0) {
    e.code = PathCode::NV;
    e.nvlinks = *n;
  } else {
    return std::nullopt;
  }
  return e;
}

// A cell that is two or more path codes run together, as where a copy lost the tab between them
// ("PXBNODE", "SYSSYS"): its codes with their columns; empty for anything else.
std::vector<Token> glued_codes(const Token& t) {
  static const char* const WORDS[] = {"NODE", "PIX", "PXB", "PHB", "SYS", "SOC", "X"};
  std::vector<Token> codes;
  std::size_t i = 0;
  while (i < t.text.size()) {
    std::size_t len = 0;
    for (const char* w : WORDS)
      if (t.text.compare(i, std::strlen(w), w) == 0) len = std::strlen(w);
    if (len == 0 && t.text.compare(i, 2, "NV") == 0)
      for (len = 2; i + len < t.text.size() && is_digit(t.text[i + len]);) ++len;
    if (len == 0 || !parse_code(t.text.substr(i, len))) return {};
    codes.push_back(Token{t.text.substr(i, len), t.col + int(i)});
    i += len;
  }
  return codes.size() >= 2 ? codes : std::vector<Token>{};
}

// A header cell of device labels run together, as an old driver printed them ("GPU0GPU1...GPU7mlx5_0"):
// the GPU columns numbered on from `next_gpu`, then at most one NIC column; empty for anything else.
std::vector<Token> glued_labels(const Token& t, int next_gpu) {
  std::vector<Token> labels;
  std::size_t i = 0;
  for (std::string gpu = fmt::format("GPU{}", next_gpu); t.text.compare(i, gpu.size(), gpu) == 0;
       gpu = fmt::format("GPU{}", ++next_gpu)) {
    labels.push_back(Token{gpu, t.col + int(i)});
    i += gpu.size();
  }
  if (i < t.text.size()) {
    const std::string rest = t.text.substr(i);
    if (!numbered(rest, "NIC") && !is_rdma_name(rest)) return {};
    labels.push_back(Token{rest, t.col + int(i)});
  }
  return labels.size() >= 2 ? labels : std::vector<Token>{};
}

std::string unknown_code_message(const std::string& t) {
  std::string msg = fmt::format("unknown path code '{}'; expected X, NV<n>, PIX, PXB, PHB, NODE or SYS", t);
  if (t == "NV" || t == "NV0") msg += " (NV needs the number of bonded links, as in NV12)";
  for (const char* p2p : {"OK", "NS", "CNS", "GNS", "TNS"})
    if (t == p2p) msg += " (this looks like `nvidia-smi topo -p2p` output; tpsim reads `nvidia-smi topo -m`)";
  return msg;
}

// "0-31,64-95" or "7" or "N/A".
bool is_cpu_list(const std::string& s) {
  if (s == "N/A") return true;
  std::size_t i = 0;
  auto number = [&] {
    std::size_t start = i;
    while (i < s.size() && is_digit(s[i])) ++i;
    return i > start;
  };
  while (true) {
    if (!number()) return false;
    if (i < s.size() && s[i] == '-') {
      ++i;
      if (!number()) return false;
    }
    if (i == s.size()) return true;
    if (s[i++] != ',') return false;
  }
}

}  // namespace tpsim::matrix_cells
