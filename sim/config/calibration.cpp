#include "calibration.hpp"

#include <cmath>

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

bool CollectiveCalibration::ranged() const {
  for (const auto& p : protocols)
    if (p && p->max_size_B) return true;
  return false;
}

namespace {

// Ranges must grow from LL to LL128 to Simple (no max_size: unbounded), and the last
// protocol listed must be unbounded, so that every size has exactly one protocol.
void check_ranges(const YamlMap& protocols, const CollectiveCalibration& c) {
  if (!c.ranged()) return;
  double previous = 0;
  const char* last = nullptr;
  for (Protocol p : ALL_PROTOCOLS) {
    if (!c.protocols[static_cast<int>(p)]) continue;
    const double bound = c.protocols[static_cast<int>(p)]->max_size_B.value_or(INFINITY);
    if (bound < previous) {
      const YamlMap f = protocols.map(protocol_name(p));
      f.fail(f.node("max_size"), std::string("'max_size' of ") + protocol_name(p) +
                                     " is below the previous protocol's: ranges must grow from LL to LL128 to Simple (a protocol "
                                     "without 'max_size' takes every larger size)");
    }
    previous = bound;
    last = protocol_name(p);
  }
  if (std::isfinite(previous)) {
    const YamlMap f = protocols.map(last);
    f.fail(f.node("max_size"), std::string("the last protocol (") + last +
                                   ") must have no 'max_size': larger sizes would have no protocol");
  }
}

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
    f.check_keys({"latency", "bus_bandwidth", "fitted", "max_size"});
    ProtocolFit fit{f.quantity("latency", Quantity::time), f.quantity("bus_bandwidth", Quantity::bandwidth),
                    f.boolean_or("fitted", true), std::nullopt};
    if (fit.bus_bw_Bps <= 0) f.fail(f.node("bus_bandwidth"), "'bus_bandwidth' must be positive");
    if (f.has("max_size")) fit.max_size_B = f.quantity("max_size", Quantity::size);  // >= 0
    c.protocols[static_cast<int>(p)] = fit;
  }
  check_ranges(protocols, c);
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
