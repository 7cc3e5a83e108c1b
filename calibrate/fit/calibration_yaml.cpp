// Calibration YAML writer: deterministic text, one collective block per fitted log.
#include "calibration_yaml.hpp"

#include <cctype>
#include <cmath>
#include <fmt/format.h>

namespace tpsim::fit {
namespace {

// Plain scalars stay plain; anything YAML could misread is double-quoted.
std::string scalar(const std::string& s) {
  bool plain = !s.empty();
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' || c == '/' || c == '+'))
      plain = false;
  if (plain && (s.front() == '-' || s.front() == '.')) plain = false;
  if (plain) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string us(double seconds) { return format_significant(seconds * 1e6, 4) + "us"; }
std::string gbps(double bps) { return format_significant(bps / 1e9, 4) + "GBps"; }
std::string bytes(double b) { return fmt::format("{:.0f}B", b); }

// The envelope's lines: the model's defaults per protocol.
std::string protocols_block(const CollectiveFit& c) {
  std::string out = "    protocols:\n";
  std::size_t width = 0;
  for (const ProtocolFit& p : c.protocols) width = std::max(width, us(p.latency_s).size());
  for (int i = 0; i < 3; ++i) {
    const ProtocolFit& p = c.protocols[i];
    std::string name = std::string(protocol_name(static_cast<Protocol>(i))) + ":";
    std::string transfer;
    if (p.wire_fraction)
      transfer = fmt::format(", wire_fraction: {}, algorithm: {}", format_significant(*p.wire_fraction, 4), algorithm_name(p.algorithm));
    if (p.model_fraction) transfer += fmt::format(", model_fraction: {}", format_significant(*p.model_fraction, 4));
    if (p.constrained && !p.latency_measured) transfer += ", latency_measured: false";
    if (p.constrained && !p.bandwidth_measured) transfer += ", bandwidth_measured: false";
    out += fmt::format("      {:<7} {{ latency: {:<{}} bus_bandwidth: {}{}, fitted: {} }}", name, us(p.latency_s) + ",",
                       width + 1, gbps(p.bus_bw_Bps), transfer, p.constrained ? "true" : "false");
    if (c.lines_left_to_pieces)
      out += "  # no line follows this log's times (they fall where NCCL changed protocol): the last piece's, fitted: false, so "
             "runs take the defaults for it";
    else if (!p.constrained)
      out += fmt::format("  # {}: copy of {}; fitted: false, so runs take the defaults for it",
                         p.enabled ? "fastest at no measured size" : "left out of the fit (off on this path, or one protocol fitted)",
                         protocol_name(p.copied_from));
    out += "\n";
  }
  return out;
}

// What the log measured: GPU, NCCL version, launch mode, sizes and the rings' wire rate.
std::string envelope_block(const CollectiveFit& c) {
  std::string out;
  if (!c.gpu.empty()) out += fmt::format("    gpu: {}\n", scalar(c.gpu));
  if (!c.nccl_version.empty()) out += fmt::format("    nccl_version: {}\n", scalar(c.nccl_version));
  if (!c.datatype.empty() && c.datatype != "float")
    out += fmt::format("    datatype: {}{}\n", scalar(c.datatype),
                       reduces_below_link_pace(c.op, c.datatype)
                           ? "   # NCCL reduces it slower than float, half and bfloat16: runs carry its pace to every type"
                           : "");
  out += fmt::format("    gpus_per_thread: {}   # {}\n", c.gpus_per_thread,
                     c.gpus_per_thread > 1 ? serial_launch_note(c.gpus_per_thread, c.nccl_version) : "one process (or thread) per GPU");
  double lo = INFINITY, hi = 0;
  for (const FitPoint& p : c.points) lo = std::min(lo, p.size_B), hi = std::max(hi, p.size_B);
  if (hi > 0) out += fmt::format("    sizes: {{ min: {}, max: {} }}\n", bytes(lo), bytes(hi));
  if (!c.pace_note.empty()) out += fmt::format("    # {}\n", c.pace_note);
  if (c.wire_Bps)
    out += fmt::format("    wire_bandwidth: {}   # the rings' wire rate on the fitted platform; wire_fraction = bus_bandwidth / it; "
                       "model_fraction = bus_bandwidth / the default model's line there (what carries to other boxes)\n",
                       gbps(*c.wire_Bps));
  else if (!c.transfer_note.empty())
    out += fmt::format("    # no wire_bandwidth: {}\n", c.transfer_note);
  else
    out += "    # no wire_bandwidth: fitted without --platform, the bandwidths are absolute and carry only to the same links\n";
  if (!c.cpu_vendor.empty()) out += fmt::format("    cpu_vendor: {}   # the fitted platform's hosts\n", c.cpu_vendor);
  if (!c.net_transport.empty())
    out += fmt::format("    net_transport: {}   # between the fitted nodes: the default latency its fit is compared with\n", c.net_transport);
  if (!c.nvlink_fabric.empty())
    out += fmt::format("    nvlink_fabric: {}   # the fitted GPUs' NVLink within a node: {}\n", c.nvlink_fabric,
                       c.nvlink_fabric == "switch" ? "through NVSwitch" : "links from GPU to GPU, no switch");
  const auto forced = [&](const char* key, const char* variable, const char* name) {
    out += fmt::format("    {}: {}   # the log ran under {}={}: its pieces are NCCL's steps within it, used where a run forces it too\n",
                       key, name, variable, name);
  };
  if (c.forced_algorithm) forced("forced_algorithm", "NCCL_ALGO", algorithm_name(*c.forced_algorithm));
  if (c.forced_protocol) forced("forced_protocol", "NCCL_PROTO", protocol_name(*c.forced_protocol));
  if (c.host_copy_Bps)
    out += fmt::format("    host_copy_bandwidth: {}   # host-staged: the pace of copies through host memory within a socket\n",
                       gbps(*c.host_copy_Bps));
  if (c.socket_copy_Bps)
    out += fmt::format("    socket_copy_bandwidth: {}   # host-staged: the pace of copies through the other socket's memory\n",
                       gbps(*c.socket_copy_Bps));
  return out;
}

// The pieces by size, one flow-style map each, columns aligned.
std::string pieces_block(const CollectiveFit& c) {
  std::string out =
      "    # by size: each piece's (algorithm, protocol) runs up to its max_size, the last piece beyond;\n"
      "    # a scenario that forces a protocol or an algorithm uses the protocols above\n"
      "    pieces:\n";
  std::size_t alg_w = 0, proto_w = 0, lat_w = 0, bw_w = 0;
  for (const PieceFit& p : c.pieces) {
    alg_w = std::max(alg_w, std::string(algorithm_name(p.algorithm)).size());
    proto_w = std::max(proto_w, std::string(protocol_name(p.protocol)).size());
    lat_w = std::max(lat_w, us(p.latency_s).size());
    bw_w = std::max(bw_w, gbps(p.bus_bw_Bps).size());
  }
  for (const PieceFit& p : c.pieces) {
    std::string line = fmt::format("      - {{ algorithm: {:<{}} protocol: {:<{}} latency: {:<{}} bus_bandwidth: {}",
                                   std::string(algorithm_name(p.algorithm)) + ",", alg_w + 1,
                                   std::string(protocol_name(p.protocol)) + ",", proto_w + 1, us(p.latency_s) + ",",
                                   lat_w + 1, gbps(p.bus_bw_Bps));
    if (std::isfinite(p.max_size_B))
      line += fmt::format(",{:<{}} max_size: {}", "", bw_w - gbps(p.bus_bw_Bps).size(), bytes(p.max_size_B));
    out += line + " }\n";
  }
  return out;
}

}  // namespace

std::string format_significant(double x, int significant) {
  if (x == 0 || !std::isfinite(x)) return fmt::format("{}", x);
  int magnitude = static_cast<int>(std::floor(std::log10(std::fabs(x))));
  int decimals = std::max(0, significant - 1 - magnitude);
  std::string s = fmt::format("{:.{}f}", x, decimals);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

std::string calibration_yaml(const CalibrationInputs& in) {
  std::string files;
  for (const auto& f : in.files) files += (files.empty() ? "" : " ") + f;
  std::string out = "# written by tpsim fit from: " + files + "\n";
  if (!in.collectives.empty()) out += "collectives:\n";
  for (const CollectiveFit& c : in.collectives) {
    out += fmt::format("  - source: {}\n", scalar(c.source));
    out += fmt::format("    op: {}\n", collective_op_name(c.op));
    out += fmt::format("    nranks: {}\n", c.nranks);
    if (c.nodes > 1) out += fmt::format("    nodes: {}\n", c.nodes);
    if (!c.path_class.empty()) out += fmt::format("    path_class: {}\n", c.path_class);
    out += fmt::format("    # op from {}; nranks from {}; bus factor {}\n", source_name(c.op_source),
                       source_name(c.nranks_source), format_significant(c.bus_factor, 6));
    out += envelope_block(c);
    out += protocols_block(c);
    if (!c.pieces.empty()) out += pieces_block(c);
    out += fmt::format("    # all sizes: median {:.4f}, worst {:.4f} at {}\n", c.all.median, c.all.worst,
                       bytes(c.all.worst_size_B));
    out += fmt::format("    residuals: {{ median: {:.4f}, worst: {:.4f}, worst_size: {}, min_size: {} }}\n",
                       c.large.median, c.large.worst, bytes(c.large.worst_size_B), bytes(c.large.min_size_B));
  }
  if (!in.gpu.empty())
    out += fmt::format("gpu: {}   # the GEMM and HBM tables' GPU: on another GPU their efficiencies carry, through its own rates\n",
                       scalar(in.gpu));
  if (in.gemm) {
    out += "gemm:\n";
    for (const GemmPoint& g : in.gemm->points())
      out += fmt::format("  - {{ op: {}, m: {}, n: {}, k: {}, dtype: {}, time: {} }}\n", scalar(g.op), g.m, g.n, g.k,
                         scalar(g.dtype), format_significant(g.time_s * 1e6, 6) + "us");
  }
  if (in.hbm)
    out += fmt::format("hbm_copy_bandwidth: {}TBps   # read + write (2 x bytes / time), median of the {} largest copies\n",
                       format_significant(in.hbm->bw_Bps / 1e12, 4), in.hbm->points_used);
  return out;
}

}  // namespace tpsim::fit
