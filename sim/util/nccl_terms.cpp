#include "nccl_terms.hpp"

#include <cctype>
#include <string>
#include <utility>
#include <vector>

namespace tpsim {

const char* collective_op_name(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::all_reduce: return "all_reduce";
    case CollectiveOp::all_gather: return "all_gather";
    case CollectiveOp::reduce_scatter: return "reduce_scatter";
    case CollectiveOp::all_to_all: return "alltoall";
    case CollectiveOp::broadcast: return "broadcast";
    case CollectiveOp::reduce: return "reduce";
    case CollectiveOp::send_recv: return "send_recv";
    case CollectiveOp::gather: return "gather";
    case CollectiveOp::scatter: return "scatter";
  }
  return "?";
}

bool bus_factor_is_constant(CollectiveOp op) {
  return op == CollectiveOp::broadcast || op == CollectiveOp::reduce || op == CollectiveOp::send_recv;
}

double bus_factor(CollectiveOp op, int nranks) {
  const double n = nranks;
  if (bus_factor_is_constant(op)) return 1.0;
  return op == CollectiveOp::all_reduce ? 2.0 * (n - 1) / n : (n - 1) / n;
}

const char* protocol_name(Protocol p) {
  switch (p) {
    case Protocol::LL: return "LL";
    case Protocol::LL128: return "LL128";
    case Protocol::Simple: return "Simple";
  }
  return "?";
}

const char* algorithm_name(Algorithm a) {
  switch (a) {
    case Algorithm::direct: return "direct";
    case Algorithm::ring: return "ring";
    case Algorithm::tree: return "tree";
    case Algorithm::nvls: return "nvls";
    case Algorithm::nvls_tree: return "nvls_tree";
  }
  return "?";
}

namespace {
// The leading digits of s as a number, and s past them; nullopt when s starts with no digit.
std::optional<int> leading_number(std::string_view& s) {
  int v = 0, digits = 0;
  while (!s.empty() && std::isdigit(static_cast<unsigned char>(s.front())) && digits < 4) {
    v = v * 10 + (s.front() - '0');
    s.remove_prefix(1);
    ++digits;
  }
  return digits ? std::optional<int>(v) : std::nullopt;
}
}  // namespace

std::optional<std::array<int, 2>> nccl_release(std::string_view s) {
  const auto major = leading_number(s);
  if (!major || s.empty() || s.front() != '.') return std::nullopt;
  s.remove_prefix(1);
  const auto minor = leading_number(s);
  if (!minor) return std::nullopt;
  if (!s.empty() && s.front() == '.') {
    s.remove_prefix(1);
    if (!leading_number(s)) return std::nullopt;
  }
  if (!s.empty() && s.front() != '+') return std::nullopt;
  return std::array<int, 2>{*major, *minor};
}

bool nccl_before(std::string_view version, int major, int minor) {
  const auto r = nccl_release(version);
  return r && ((*r)[0] < major || ((*r)[0] == major && (*r)[1] < minor));
}

bool nccl_group_launch(std::string_view version) { return nccl_before(version, 2, 9); }

bool nccl_tree_chunks_shrink(std::string_view version) { return nccl_before(version, 2, 20); }

std::array<int, 2> nccl_release_of(Algorithm a) {
  switch (a) {
    case Algorithm::tree: return {2, 4};
    case Algorithm::nvls: return {2, 17};
    case Algorithm::nvls_tree: return {2, 18};
    default: return {2, 0};
  }
}

bool nccl_offers(std::string_view version, std::array<int, 2> release) { return !nccl_before(version, release[0], release[1]); }

bool nccl_newer_than_read(std::string_view version) {
  return nccl_release(version) && !nccl_before(version, NCCL_NEWEST_READ[0], NCCL_NEWEST_READ[1] + 1);
}

namespace {
// nccl-tests' datatype names (its test_typenames, and names older versions printed) and their bytes.
constexpr std::array<std::pair<std::string_view, int>, 17> NCCL_TYPES{{{"int8", 1},    {"uint8", 1},   {"char", 1},     {"f8e4m3", 1},
                                                                      {"f8e5m2", 1},  {"half", 2},    {"float16", 2},  {"bfloat16", 2},
                                                                      {"float", 4},   {"float32", 4}, {"int32", 4},    {"uint32", 4},
                                                                      {"int", 4},     {"double", 8},  {"float64", 8},  {"int64", 8},
                                                                      {"uint64", 8}}};
}  // namespace

std::optional<int> nccl_type_bytes(std::string_view type) {
  for (const auto& [name, bytes] : NCCL_TYPES)
    if (name == type) return bytes;
  return std::nullopt;
}

const std::vector<std::string>& nccl_type_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& t : NCCL_TYPES) out.emplace_back(t.first);
    return out;
  }();
  return names;
}

bool reduced_at_link_pace(std::string_view type) {
  return type == "float" || type == "float32" || type == "half" || type == "float16" || type == "bfloat16";
}

}  // namespace tpsim
