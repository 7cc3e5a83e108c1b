// The cells of a `nvidia-smi topo -m` matrix as the reader sees them: tokens with their columns, path
// codes, device labels, CPU lists, and the repairs of cells a copy ran together. Internal to sim/topo.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "topo/topo_matrix.hpp"

namespace tpsim::matrix_cells {

struct Token {
  std::string text;
  int col = 0;  // 1-based
};

bool is_blank_char(char c);  // space, tab, CR, VT, FF
bool is_digit(char c);

// nvidia-smi underlines its header on a terminal (ESC[4m ... ESC[0m); copies from web pages often
// keep the text without the ESC byte ("[4mGPU0"). Both are blanked in place, keeping columns.
void blank_escapes(std::string& line);

std::vector<Token> split_tokens(const std::string& line);

// "..." (or more dots, or the ellipsis character) where an author cut columns.
bool is_ellipsis(const std::string& s);

// Whether s[from..] is one or more digits.
bool all_digits(const std::string& s, std::size_t from);

// A cell that starts a GPU column's name: GPU<n>, or GPU<n> run together with others (glued_labels).
bool names_gpu(const Token& t);

// "GPU12" with prefix "GPU" -> 12.
std::optional<int> numbered(const std::string& s, const std::string& prefix);

// A network device name as Linux prints it (mlx5_0, ibp14s0, rocep3s0f0): letters, digits, _ - . :
// Anything else would reach the platform XML, where control bytes cannot be written.
bool is_device_name(const std::string& s);

// `s` with every byte that is not printable ASCII written as \xNN, for messages.
std::string shown(const std::string& s);

// `s` without its trailing blanks.
std::string trimmed(std::string s);

// A section title above the matrix ("GPU Topology:", "NVIDIA Topology:"): a few words, the last ending
// in ':', none of them a GPU column.
bool is_title(const std::vector<Token>& toks);

// Raw RDMA device names that older drivers print instead of NIC<n> (mlx5_0, bnxt_re1, efa0, ...).
bool is_rdma_name(const std::string& s);

// A label that names a device of a matrix: GPU<n>, NIC<n> or a raw RDMA device name.
bool names_device(const std::string& s);

// X, NV<n>, PIX, PXB, PHB, NODE, SYS (SOC, as drivers before 2017 print it); nullopt for anything else.
std::optional<PathEntry> parse_code(const std::string& t);

// A cell that is two or more path codes run together, as where a copy lost the tab between them
// ("PXBNODE", "SYSSYS"): its codes with their columns; empty for anything else.
std::vector<Token> glued_codes(const Token& t);

// A header cell of device labels run together, as an old driver printed them ("GPU0GPU1...GPU7mlx5_0"):
// the GPU columns numbered on from `next_gpu`, then at most one NIC column; empty for anything else.
std::vector<Token> glued_labels(const Token& t, int next_gpu);

// Why `t` is not a path code, with a hint where it looks like NV without its count or `topo -p2p` output.
std::string unknown_code_message(const std::string& t);

// "0-31,64-95" or "7" or "N/A".
bool is_cpu_list(const std::string& s);

}  // namespace tpsim::matrix_cells
