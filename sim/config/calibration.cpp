#include "calibration.hpp"

#include <algorithm>
#include <fstream>

#include <fmt/format.h>

#include "p2p_policy.hpp"
#include "yaml_source.hpp"

namespace tpsim {

const std::vector<std::string>& calibration_path_class_names() {
  static const std::vector<std::string> names{"NVL", "PIX", "PXB", "PHB", "SYS", "SHM", "NET"};
  return names;
}

const CollectivePiece* CollectiveCalibration::piece_at(double size_B) const {
  for (const CollectivePiece& p : pieces)
    if (!p.max_size_B || size_B <= *p.max_size_B) return &p;
  return nullptr;
}

namespace {

// The value of `values` whose name(v) is m[key]; a located error listing the names otherwise.
template <class E, std::size_t N>
E read_name(const YamlMap& m, const std::string& key, const std::array<E, N>& values, const char* (*name)(E)) {
  std::vector<std::string> names;
  for (E v : values) names.push_back(name(v));
  const std::string s = m.one_of(key, names);
  return values[std::find(names.begin(), names.end(), s) - names.begin()];
}

CollectivePiece read_piece(const YamlMap& m) {
  m.check_keys({"algorithm", "protocol", "latency", "bus_bandwidth", "max_size"});
  CollectivePiece p{read_name(m, "algorithm", ALL_ALGORITHMS, algorithm_name),
                    read_name(m, "protocol", ALL_PROTOCOLS, protocol_name), m.quantity("latency", Quantity::time),
                    m.quantity("bus_bandwidth", Quantity::bandwidth), std::nullopt};
  if (p.bus_bw_Bps <= 0) m.fail(m.node("bus_bandwidth"), "'bus_bandwidth' must be positive");
  if (m.has("max_size")) p.max_size_B = m.quantity("max_size", Quantity::size);  // >= 0
  return p;
}

// Pieces follow each other in size: each max_size above the previous one, every piece but the
// last bounded and the last one unbounded, so that every size has exactly one piece. `m` is
// the last piece read, of `count`.
void check_bound(const YamlMap& m, const std::vector<CollectivePiece>& pieces, std::size_t count) {
  const std::size_t i = pieces.size() - 1;
  const CollectivePiece& p = pieces.back();
  if (i + 1 == count) {
    if (p.max_size_B) m.fail(m.node("max_size"), "the last piece must have no 'max_size': larger sizes would have no piece");
    return;
  }
  if (!p.max_size_B)
    m.fail(m.raw(), fmt::format("piece {} of {} has no 'max_size': only the last piece takes every larger size", i + 1, count));
  if (i > 0 && *p.max_size_B <= *pieces[i - 1].max_size_B)
    m.fail(m.node("max_size"), fmt::format("'max_size' {:.0f}B is not above the previous piece's {:.0f}B: pieces go in "
                                           "increasing size order",
                                           *p.max_size_B, *pieces[i - 1].max_size_B));
}

std::vector<CollectivePiece> read_pieces(const YamlMap& m) {
  const YAML::Node list = m.node("pieces");
  if (!list.IsSequence() || list.size() == 0) m.fail(list, "'pieces' must be a non-empty list, in increasing size order");
  std::vector<CollectivePiece> pieces;
  for (const YAML::Node& n : list) {
    const YamlMap piece(m.file(), n, "a piece");
    pieces.push_back(read_piece(piece));
    check_bound(piece, pieces, list.size());
  }
  return pieces;
}

// `v` (read from m[key]) as an int, refused beyond +-max rather than wrapped; the caller checks
// the lower bound that matters to it.
int bounded_int(const YamlMap& m, const std::string& key, long v, long max) {
  if (v > max || v < -max) m.fail(m.node(key), fmt::format("'{}' is {}, out of range (at most {})", key, v, max));
  return static_cast<int>(v);
}

// The envelope keys: what the log measured (GPU, NCCL version, launch mode, sizes, wire rate).
void read_envelope(const YamlMap& m, CollectiveCalibration& c) {
  c.gpu = m.str_or("gpu", "");
  c.gpu_spec = c.gpu.empty() ? nullptr : find_gpu_any_name(c.gpu);
  c.nccl_version = m.str_or("nccl_version", "");
  c.datatype = m.one_of_or("datatype", nccl_type_names(), "float");
  c.gpus_per_thread = bounded_int(m, "gpus_per_thread", m.integer_or("gpus_per_thread", 1), 1024);
  if (c.gpus_per_thread < 1) m.fail(m.node("gpus_per_thread"), "'gpus_per_thread' must be at least 1");
  if (m.has("sizes")) {
    YamlMap sizes = m.map("sizes");
    sizes.check_keys({"min", "max"});
    c.min_size_B = sizes.quantity("min", Quantity::size);
    c.max_size_B = sizes.quantity("max", Quantity::size);
    if (c.max_size_B < c.min_size_B) sizes.fail(sizes.node("max"), "'max' is below 'min'");
  }
  if (m.has("wire_bandwidth")) {
    c.wire_Bps = m.quantity("wire_bandwidth", Quantity::bandwidth);
    if (*c.wire_Bps <= 0) m.fail(m.node("wire_bandwidth"), "'wire_bandwidth' must be positive");
  }
  c.cpu_vendor = m.one_of_or("cpu_vendor", cpu_vendor_names(), "");
  c.net_transport = m.one_of_or("net_transport", net_transport_names(), "");
  c.nvlink_fabric = m.one_of_or("nvlink_fabric", {"switch", "direct"}, "");
  if (m.has("forced_algorithm")) c.forced_algorithm = read_name(m, "forced_algorithm", ALL_ALGORITHMS, algorithm_name);
  if (m.has("forced_protocol")) c.forced_protocol = read_name(m, "forced_protocol", ALL_PROTOCOLS, protocol_name);
  for (auto [key, field] : {std::pair{"host_copy_bandwidth", &c.host_copy_Bps}, std::pair{"socket_copy_bandwidth", &c.socket_copy_Bps}})
    if (m.has(key)) {
      *field = m.quantity(key, Quantity::bandwidth);
      if (**field <= 0) m.fail(m.node(key), fmt::format("'{}' must be positive", key));
    }
}

CollectiveCalibration read_collective(const YamlMap& m) {
  m.check_keys({"source", "op", "nranks", "nodes", "path_class", "gpu", "nccl_version", "datatype", "gpus_per_thread", "sizes", "cpu_vendor",
                "net_transport", "forced_algorithm", "forced_protocol", "nvlink_fabric", "wire_bandwidth", "host_copy_bandwidth",
                "socket_copy_bandwidth", "protocols", "pieces", "residuals"});
  CollectiveCalibration c;
  c.source = m.str_or("source", "");
  c.op = read_name(m, "op", ALL_COLLECTIVE_OPS, collective_op_name);
  c.path_class = m.one_of_or("path_class", calibration_path_class_names(), "");
  c.nranks = bounded_int(m, "nranks", m.integer("nranks"), 1'000'000);
  c.nodes = bounded_int(m, "nodes", m.integer_or("nodes", 1), 1'000'000);
  if (c.nranks < 2) m.fail(m.node("nranks"), "'nranks' must be at least 2");
  read_envelope(m, c);
  YamlMap protocols = m.map("protocols");
  protocols.check_keys({"LL", "LL128", "Simple"});
  for (Protocol p : ALL_PROTOCOLS) {
    if (!protocols.has(protocol_name(p))) continue;
    YamlMap f = protocols.map(protocol_name(p));
    f.check_keys({"latency", "bus_bandwidth", "fitted", "wire_fraction", "model_fraction", "algorithm", "latency_measured",
                  "bandwidth_measured"});
    ProtocolFit fit{f.quantity("latency", Quantity::time), f.quantity("bus_bandwidth", Quantity::bandwidth),
                    f.boolean_or("fitted", true)};
    if (fit.bus_bw_Bps <= 0) f.fail(f.node("bus_bandwidth"), "'bus_bandwidth' must be positive");
    if (f.has("wire_fraction")) {
      fit.wire_fraction = f.number("wire_fraction");
      if (!(*fit.wire_fraction > 0 && *fit.wire_fraction <= MAX_WIRE_FRACTION))
        f.fail(f.node("wire_fraction"), fmt::format("'wire_fraction' must be in (0, {}]: the bus bandwidth over the fitted wire rate", MAX_WIRE_FRACTION));
    }
    if (f.has("model_fraction")) {
      fit.model_fraction = f.number("model_fraction");
      if (!(*fit.model_fraction > 0))
        f.fail(f.node("model_fraction"), "'model_fraction' must be positive: the bus bandwidth over the default model's on the fitted group");
      if (!fit.wire_fraction) f.fail(f.node("model_fraction"), "'model_fraction' needs 'wire_fraction' beside it");
    }
    if (f.has("algorithm")) fit.algorithm = read_name(f, "algorithm", ALL_ALGORITHMS, algorithm_name);
    // A copy the data did not constrain (fitted: false) measured neither term: runs take the defaults.
    fit.latency_measured = f.boolean_or("latency_measured", fit.fitted);
    fit.bandwidth_measured = f.boolean_or("bandwidth_measured", fit.fitted);
    c.protocols[static_cast<int>(p)] = fit;
  }
  if (m.has("pieces")) c.pieces = read_pieces(m);
  if (m.has("residuals")) {
    YamlMap r = m.map("residuals");
    r.check_keys({"median", "worst", "worst_size", "min_size"});
    for (auto [key, out] : {std::pair{"median", &c.residual_median}, std::pair{"worst", &c.residual_worst}}) {
      if (!r.has(key)) continue;
      *out = r.number(key);
      if (!(**out >= 0 && **out < MAX_FIT_RELATIVE_ERROR))
        r.fail(r.node(key), fmt::format("'{}' must be a relative error in [0, {})", key, MAX_FIT_RELATIVE_ERROR));
    }
  }
  return c;
}

GemmPoint read_gemm(const YamlMap& m) {
  m.check_keys({"op", "m", "n", "k", "dtype", "time"});
  constexpr long MAX_DIM = 1L << 30;
  GemmPoint g{m.str_or("op", ""), bounded_int(m, "m", m.integer("m"), MAX_DIM), bounded_int(m, "n", m.integer("n"), MAX_DIM),
              bounded_int(m, "k", m.integer("k"), MAX_DIM), m.str_or("dtype", "bf16"),
              m.quantity("time", Quantity::time)};
  if (g.m < 1 || g.n < 1 || g.k < 1) m.fail(m.raw(), "GEMM dimensions must be positive");
  if (g.time_s <= 0) m.fail(m.node("time"), "GEMM time must be positive");
  return g;
}

// `tpsim fit` heads its files with "# written by tpsim fit from: <inputs>".
std::string written_from_header(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  const std::string mark = "# written by tpsim fit from: ";
  return std::getline(in, line) && line.rfind(mark, 0) == 0 ? line.substr(mark.size()) : "";
}

Calibration read_calibration(const YAML::Node& root, const std::string& path) {
  YamlMap m(path, root, "a calibration file");
  m.check_keys({"collectives", "gpu", "gemm", "hbm_copy_bandwidth", "kernel_launch", "graph_launch", "source", "residuals"});
  Calibration c;
  c.file = path;
  c.written_from = m.str_or("source", written_from_header(path));
  // A list, not a mapping: iterating a mapping yields invalid nodes (yaml-cpp throws; found by fuzz_calibration).
  for (const char* key : {"collectives", "gemm"})
    if (m.has(key) && !m.node(key).IsSequence() && !m.node(key).IsNull()) m.fail(m.node(key), std::string("'") + key + "' must be a list");
  if (m.has("collectives"))
    for (const auto& n : m.node("collectives")) c.collectives.push_back(read_collective(YamlMap(path, n, "a collective fit")));
  if (m.has("gemm"))
    for (const auto& n : m.node("gemm")) c.gemm.push_back(read_gemm(YamlMap(path, n, "a GEMM point")));
  if (m.has("gpu")) {
    c.tables_gpu = find_gpu_any_name(m.str("gpu"));
    if (!c.tables_gpu) m.fail(m.node("gpu"), fmt::format("unknown GPU model '{}'{}", m.str("gpu"), gpu_name_hint(m.str("gpu"))));
  }
  if (m.has("hbm_copy_bandwidth")) c.hbm_copy_Bps = m.quantity("hbm_copy_bandwidth", Quantity::bandwidth);
  if (m.has("kernel_launch")) c.kernel_launch_s = m.quantity("kernel_launch", Quantity::time);
  if (m.has("graph_launch")) c.graph_launch_s = m.quantity("graph_launch", Quantity::time);
  return c;
}

}  // namespace

Calibration load_calibration(const std::string& path) { return read_calibration(load_yaml_file(path), path); }

Calibration parse_calibration(const std::string& yaml, const std::string& name) {
  try {
    return read_calibration(YAML::Load(yaml), name);
  } catch (const YAML::Exception& e) {
    throw InputError({name, e.mark.line + 1, e.mark.column + 1}, e.msg);
  }
}

}  // namespace tpsim
