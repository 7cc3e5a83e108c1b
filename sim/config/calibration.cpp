#include "calibration.hpp"

#include "yaml_source.hpp"

namespace tpsim {

const char* protocol_name(Protocol p) {
  switch (p) {
    case Protocol::LL: return "LL";
    case Protocol::LL128: return "LL128";
    case Protocol::Simple: return "Simple";
  }
  return "?";
}

namespace {

CollectiveCalibration read_collective(const YamlMap& m) {
  m.check_keys({"source", "op", "nranks", "nodes", "path_class", "protocols", "residuals"});
  CollectiveCalibration c;
  c.source = m.str_or("source", "");
  c.op = m.str("op");
  c.path_class = m.str_or("path_class", "");
  c.nranks = static_cast<int>(m.integer("nranks"));
  c.nodes = static_cast<int>(m.integer_or("nodes", 1));
  if (c.nranks < 2) m.fail(m.node("nranks"), "'nranks' must be at least 2");
  YamlMap protocols = m.map("protocols");
  protocols.check_keys({"LL", "LL128", "Simple"});
  for (Protocol p : ALL_PROTOCOLS) {
    if (!protocols.has(protocol_name(p))) continue;
    YamlMap f = protocols.map(protocol_name(p));
    f.check_keys({"latency", "bus_bandwidth", "fitted"});
    ProtocolFit fit{f.quantity("latency", Quantity::time), f.quantity("bus_bandwidth", Quantity::bandwidth),
                    f.boolean_or("fitted", true)};
    if (fit.bus_bw_Bps <= 0) f.fail(f.node("bus_bandwidth"), "'bus_bandwidth' must be positive");
    c.protocols[static_cast<int>(p)] = fit;
  }
  return c;
}

GemmPoint read_gemm(const YamlMap& m) {
  m.check_keys({"op", "m", "n", "k", "dtype", "time"});
  GemmPoint g{m.str_or("op", ""), int(m.integer("m")), int(m.integer("n")), int(m.integer("k")), m.str_or("dtype", "bf16"),
              m.quantity("time", Quantity::time)};
  if (g.m < 1 || g.n < 1 || g.k < 1) m.fail(m.raw(), "GEMM dimensions must be positive");
  if (g.time_s <= 0) m.fail(m.node("time"), "GEMM time must be positive");
  return g;
}

}  // namespace

Calibration load_calibration(const std::string& path) {
  YamlMap m(path, load_yaml_file(path), "a calibration file");
  m.check_keys({"collectives", "gemm", "hbm_copy_bandwidth", "kernel_launch", "graph_launch", "source", "residuals"});
  Calibration c;
  c.file = path;
  if (m.has("collectives"))
    for (const auto& n : m.node("collectives")) c.collectives.push_back(read_collective(YamlMap(path, n, "a collective fit")));
  if (m.has("gemm"))
    for (const auto& n : m.node("gemm")) c.gemm.push_back(read_gemm(YamlMap(path, n, "a GEMM point")));
  if (m.has("hbm_copy_bandwidth")) c.hbm_copy_Bps = m.quantity("hbm_copy_bandwidth", Quantity::bandwidth);
  if (m.has("kernel_launch")) c.kernel_launch_s = m.quantity("kernel_launch", Quantity::time);
  if (m.has("graph_launch")) c.graph_launch_s = m.quantity("graph_launch", Quantity::time);
  return c;
}

}  // namespace tpsim
