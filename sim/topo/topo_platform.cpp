// Platform writer: NVLink layout from the NV# entries, PCIe tree from the other codes, then hosts,
// links and routes written as text (SimGrid reads the file; pugixml is not needed to write it).
#include "topo/topo_platform.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <vector>

#include "topo/topo_pcie_tree.hpp"
#include "util/error.hpp"

namespace tpsim {
namespace {

std::string xml_attr(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// XML comments may not contain "--" nor end with '-'.
std::string xml_comment_text(std::string s) {
  for (std::size_t p; (p = s.find("--")) != std::string::npos;) s.replace(p, 2, "- -");
  if (!s.empty() && s.back() == '-') s += ' ';
  return s;
}

std::string gbps(double bps) { return fmt::format("{:g}GBps", bps / 1e9); }
std::string micros(double s) { return fmt::format("{:g}us", s * 1e6); }

[[noreturn]] void fail_at(const TopoMatrix& m, const PathEntry& e, const std::string& msg) {
  throw InputError(Location{m.file, e.line, e.col}, msg);
}

// Links of each GPU's NVSwitch port (0: not on a fabric). See the header for when NV# entries
// describe a fabric; a fabric must be all-to-all with one link count.
std::vector<int> nvswitch_ports(const TopoMatrix& m, const GpuLinkSpec& spec) {
  const int G = m.gpu_count;
  std::vector<int> total(G, 0);
  for (int a = 0; a < G; ++a)
    for (int b = 0; b < G; ++b) {
      const PathEntry& e = m.path(a, b);
      if (e.code != PathCode::NV) continue;
      if (spec.nvlinks_per_gpu == 0)
        fail_at(m, e, fmt::format("the matrix says {} between GPU{} and GPU{}, but {} has no NVLink; is the GPU "
                                  "model right?", e.text(), a, b, spec.gpu_model));
      if (e.nvlinks > spec.nvlinks_per_gpu)
        fail_at(m, e, fmt::format("{} between GPU{} and GPU{} needs {} NVLinks, but {} has {} per GPU; is the GPU "
                                  "model right?", e.text(), a, b, e.nvlinks, spec.gpu_model, spec.nvlinks_per_gpu));
      total[a] += e.nvlinks;
    }
  std::vector<int> port(G, 0);
  for (int g = 0; g < G; ++g) {
    if (total[g] <= spec.nvlinks_per_gpu || port[g] > 0) continue;
    std::vector<int> members{g};  // everything NV-joined to g
    for (std::size_t i = 0; i < members.size(); ++i)
      for (int b = 0; b < G; ++b)
        if (m.path(members[i], b).code == PathCode::NV && std::find(members.begin(), members.end(), b) == members.end())
          members.push_back(b);
    std::sort(members.begin(), members.end());
    int links = m.path(g, members.front() == g ? members[1] : members.front()).nvlinks;
    for (int a : members)
      for (int b : members) {
        const PathEntry& e = m.path(a, b);
        if (a >= b || (e.code == PathCode::NV && e.nvlinks == links)) continue;
        fail_at(m, e, fmt::format("GPU{}'s NV entries add up to {} NVLinks, more than the {} of one {}, so they "
                                  "describe an NVSwitch fabric, on which every pair of its GPUs is NV{}; but "
                                  "GPU{}-GPU{} is {}", g, total[g], spec.nvlinks_per_gpu, spec.gpu_model, links, a, b,
                                  e.text()));
      }
    for (int a : members) port[a] = links;
  }
  return port;
}

enum class Dir { none, up, down };

struct Hop {
  std::string link;
  Dir dir = Dir::none;
};

class PlatformWriter {
public:
  PlatformWriter(const TopoMatrix& m, const GpuLinkSpec& spec, std::string cpu_vendor)
      : m_(m), spec_(spec), cpu_vendor_(std::move(cpu_vendor)), tree_(infer_pcie_tree(m)), port_(nvswitch_ports(m, spec)) {}

  std::string write() {
    out_ = "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n";
    write_comment();
    out_ += "<platform version=\"4.1\">\n  <zone id=\"box\" routing=\"Full\">\n";
    if (!cpu_vendor_.empty()) prop("    ", "cpu_vendor", cpu_vendor_);
    write_hosts();
    write_links();
    write_routes();
    out_ += "  </zone>\n</platform>\n";
    return out_;
  }

private:
  static std::string switch_id(int k) { return fmt::format("pcie_switch{}", k); }
  static std::string crossbar_id(const std::string& switch_link) { return switch_link + "_crossbar"; }
  static std::string bridge_id(int h) { return fmt::format("host_bridge{}", h); }
  static std::string upi_id(int s, int t) { return fmt::format("upi_cpu{}_cpu{}", std::min(s, t), std::max(s, t)); }

  std::string device_host(int d) const {
    return m_.devices[d].is_gpu ? fmt::format("gpu{}", d) : fmt::format("nic{}", d - m_.gpu_count);
  }

  // A device's PCIe links above its own lane, nearest first: leaf switch, upstream switch, host bridge.
  std::vector<std::string> ancestors(int d) const {
    std::vector<std::string> up;
    if (tree_.leaf_switch[d] >= 0) up.push_back(switch_id(tree_.leaf_switch[d]));
    if (tree_.upstream_switch[d] >= 0) up.push_back(switch_id(tree_.upstream_switch[d]));
    if (tree_.host_bridge[d] >= 0) up.push_back(bridge_id(tree_.host_bridge[d]));
    return up;
  }

  void prop(const std::string& indent, const std::string& id, const std::string& value) {
    out_ += fmt::format("{}<prop id=\"{}\" value=\"{}\"/>\n", indent, id, xml_attr(value));
  }

  void write_comment();
  void write_hosts();
  void link(const std::string& id, double bw, double latency, bool split, const std::string& kind,
            const std::vector<std::pair<std::string, std::string>>& props = {});
  void write_links();
  std::vector<Hop> gpu_route(int a, int b) const;
  void route(const std::string& src, const std::string& dst, const std::vector<Hop>& hops);
  void write_routes();

  const TopoMatrix& m_;
  const GpuLinkSpec& spec_;
  std::string cpu_vendor_;
  PcieTree tree_;
  std::vector<int> port_;
  std::string out_;
};

namespace {
// Where the GPUs' NUMA nodes come from, for the platform's header comment ("" from the NUMA
// Affinity column as printed).
std::string numa_source(const PcieTree& t, bool numa_column) {
  if (!t.numa_note.empty()) return " (inferred from the SYS entries, which the NUMA Affinity column contradicts)";
  if (t.numa_from_cpu_affinity) return " (no NUMA Affinity: nodes inferred from the SYS entries and the CPU Affinity column)";
  if (!t.two_sockets_note.empty()) return " (no usable affinity column: the SYS entries' two sets taken for two sockets, assumed)";
  if (!t.cpu_affinity_note.empty()) return " (inferred from the SYS entries, which the CPU Affinity column contradicts)";
  if (!t.numa_inferred) return "";
  return numa_column ? " (NUMA Affinity was N/A: nodes inferred from the SYS entries)"
                     : " (no NUMA Affinity column: nodes inferred from the SYS entries)";
}
}  // namespace

void PlatformWriter::write_comment() {
  bool fabric = std::any_of(port_.begin(), port_.end(), [](int p) { return p > 0; });
  bool direct = false;
  for (int a = 0; a < m_.gpu_count; ++a)
    for (int b = 0; b < m_.gpu_count; ++b) direct = direct || (m_.path(a, b).code == PathCode::NV && port_[a] == 0);
  std::vector<std::string> lines;
  lines.push_back(fmt::format("Imported by `tpsim topo import` from {} (`nvidia-smi topo -m`), GPU model {}.",
                              m_.file, spec_.gpu_model));
  lines.push_back(fmt::format("{} GPUs on NUMA node(s) {}{}{}.", m_.gpu_count, fmt::join(tree_.numa_nodes, ", "),
                              numa_source(tree_, m_.numa_column), m_.nic_count() > 0 ? fmt::format("; {} NICs", m_.nic_count()) : ""));
  lines.push_back("From the matrix:");
  if (direct)
    lines.push_back(fmt::format("  NV# -> one nvlink link per GPU pair, # x {} per direction (NVLink{}).",
                                gbps(spec_.nvlink_bw_Bps), spec_.nvlink_generation));
  if (fabric)
    lines.push_back(fmt::format("  NV# adding up to more links than one {} has ({}) -> an NVSwitch fabric: one "
                                "nvswitch port link per GPU, # x {} per direction.",
                                spec_.gpu_model, spec_.nvlinks_per_gpu, gbps(spec_.nvlink_bw_Bps)));
  lines.push_back("  PIX -> the pair shares a pcie_switch; PXB -> two leaf switches under an upstream pcie_switch;");
  lines.push_back("  PHB -> a shared host_bridge; NODE -> two host bridges of one NUMA node; SYS -> also the upi link.");
  lines.push_back("Assumptions (edit them, or calibrate):");
  lines.push_back(fmt::format("  pcie: each GPU's own x16 link, Gen{} achievable, {} per direction.", spec_.pcie_generation,
                              gbps(spec_.pcie_bw_Bps)));
  lines.push_back(fmt::format("  pcie_switch (its uplink) {}, upi {}: SHARED by both directions (2 x the x16 rate; "
                              "the CPU is not in the matrix).",
                              gbps(spec_.pcie_switch_bw_Bps), gbps(spec_.upi_bw_Bps)));
  lines.push_back(fmt::format("  host_bridge: a root complex carries every port below it at its lane's rate, SHARED: 2 x ports x {}, "
                              "at least {} (NCCL's model of a PHB path: each device's own link binds).",
                              gbps(spec_.pcie_bw_Bps), gbps(spec_.host_bridge_bw_Bps)));
  if (!tree_.switches.empty())
    lines.push_back("  pcie_switch#_crossbar: where peers below one switch meet, every port at its lane's rate (non-blocking).");
  lines.push_back(fmt::format("  Latencies (physical hop): nvlink {}, nvswitch port {}, pcie {}, pcie_switch {}, "
                              "host_bridge {}, upi {}.",
                              micros(spec_.nvlink_latency_s), micros(spec_.nvswitch_latency_s),
                              micros(spec_.pcie_latency_s), micros(spec_.pcie_switch_latency_s),
                              micros(spec_.host_bridge_latency_s), micros(spec_.upi_latency_s)));
  lines.push_back("  nvidia-smi prints no PCIe path for an NV# pair: those GPUs sit as far apart on PCIe as the other");
  lines.push_back("  entries allow (no shared switch is invented).");
  lines.push_back(fmt::format("  p2p={}: {}; `nvidia-smi topo -p2p r` tells.", spec_.p2p ? "yes" : "no",
                              spec_.p2p_given ? "the import's p2p option"
                              : spec_.p2p     ? "assumed supported"
                                              : "the stock driver reports no PCIe P2P on this board"));
  lines.push_back("  Host speed: dense bf16 datasheet peak.");
  lines.push_back(cpu_vendor_.empty()
                      ? "  CPU vendor not given (the import's cpu option): NCCL's default P2P level is taken as PXB, as on Intel."
                      : fmt::format("  cpu_vendor={} (the import's cpu option): NCCL's default P2P level follows it (paths.cc ncclTopoCheckP2p).",
                                    cpu_vendor_));
  if (m_.nic_count() > 0)
    lines.push_back(fmt::format("  NICs: nic links record the device and its PCIe attachment only; NIC speed is not in "
                                "the matrix ({} assumed); no route uses them (no network beyond this box).",
                                gbps(spec_.nic_bw_Bps)));
  out_ += "<!--\n";
  for (const auto& l : lines) out_ += "  " + xml_comment_text(l) + "\n";
  out_ += "-->\n";
}

void PlatformWriter::write_hosts() {
  const std::string in = "      ";
  for (int g = 0; g < m_.gpu_count; ++g) {
    out_ += fmt::format("    <host id=\"gpu{}\" speed=\"{:g}Tf\">\n", g, spec_.peak_bf16_flops / 1e12);
    prop(in, "gpu_model", spec_.gpu_model);
    prop(in, "index", std::to_string(g));
    prop(in, "p2p", spec_.p2p ? "yes" : "no");
    prop(in, "cpu", fmt::format("cpu{}", tree_.numa[g]));
    if (!m_.cpu_affinity[g].empty()) prop(in, "cpu_affinity", m_.cpu_affinity[g]);
    out_ += "    </host>\n";
  }
  for (int s : tree_.numa_nodes) {
    out_ += fmt::format("    <host id=\"cpu{}\" speed=\"1Gf\">\n", s);
    prop(in, "role", "cpu");
    prop(in, "numa_node", std::to_string(s));
    out_ += "    </host>\n";
  }
}

void PlatformWriter::link(const std::string& id, double bw, double latency, bool split, const std::string& kind,
                          const std::vector<std::pair<std::string, std::string>>& props) {
  out_ += fmt::format("    <link id=\"{}\" bandwidth=\"{}\" latency=\"{}\" sharing_policy=\"{}\">\n", id, gbps(bw),
                      micros(latency), split ? "SPLITDUPLEX" : "SHARED");
  prop("      ", "kind", kind);
  for (const auto& [key, value] : props) prop("      ", key, value);
  out_ += "    </link>\n";
}

void PlatformWriter::write_links() {
  const int G = m_.gpu_count;
  for (int a = 0; a < G; ++a)
    for (int b = a + 1; b < G; ++b) {
      const PathEntry& e = m_.path(a, b);
      if (e.code == PathCode::NV && port_[a] == 0)
        link(fmt::format("nvlink_gpu{}_gpu{}", a, b), e.nvlinks * spec_.nvlink_bw_Bps, spec_.nvlink_latency_s, true,
             "nvlink", {{"nvlinks", std::to_string(e.nvlinks)}});
    }
  for (int g = 0; g < G; ++g)
    if (port_[g] > 0)
      link(fmt::format("nvswitch_gpu{}", g), port_[g] * spec_.nvlink_bw_Bps, spec_.nvswitch_latency_s, true,
           "nvswitch", {{"nvlinks", std::to_string(port_[g])}});
  for (int g = 0; g < G; ++g)
    link(fmt::format("pcie_gpu{}", g), spec_.pcie_bw_Bps, spec_.pcie_latency_s, true, "pcie");
  auto members = [&](const std::vector<int>& devices) {
    std::vector<std::string> names;
    for (int d : devices) names.push_back(device_host(d));
    return fmt::format("{}", fmt::join(names, " "));
  };
  for (std::size_t k = 0; k < tree_.switches.size(); ++k) {
    const PcieSwitch& sw = tree_.switches[k];
    link(switch_id(static_cast<int>(k)), spec_.pcie_switch_bw_Bps, spec_.pcie_switch_latency_s, false, "pcie_switch",
         {{"level", sw.upstream ? "upstream" : "leaf"}, {"members", members(sw.devices)}});
    // Peers below one switch meet in its crossbar, which carries every port at its lane's rate (both
    // directions, SHARED): it never binds before their own lanes do; the switch link is its uplink.
    link(crossbar_id(switch_id(static_cast<int>(k))), 2 * double(sw.devices.size()) * spec_.pcie_bw_Bps, spec_.pcie_switch_latency_s,
         false, "pcie_switch", {{"level", "crossbar"}, {"members", members(sw.devices)}});
  }
  for (std::size_t h = 0; h < tree_.host_bridges.size(); ++h) {
    const HostBridge& hb = tree_.host_bridges[h];
    const double ports_Bps = 2 * double(hb.devices.size()) * spec_.pcie_bw_Bps;
    link(bridge_id(static_cast<int>(h)), std::max(spec_.host_bridge_bw_Bps, ports_Bps), spec_.host_bridge_latency_s, false, "host_bridge",
         {{"numa_node", std::to_string(hb.numa_node)}, {"members", members(hb.devices)}});
  }
  for (std::size_t s = 0; s < tree_.numa_nodes.size(); ++s)
    for (std::size_t t = s + 1; t < tree_.numa_nodes.size(); ++t)
      link(upi_id(tree_.numa_nodes[s], tree_.numa_nodes[t]), spec_.upi_bw_Bps, spec_.upi_latency_s, false, "upi");
  for (int d = G; d < static_cast<int>(m_.devices.size()); ++d) {
    const TopoDevice& nic = m_.devices[d];
    link(device_host(d), spec_.nic_bw_Bps, spec_.nic_latency_s, true, "nic",
         {{"device", nic.nic_device.empty() ? "unknown" : nic.nic_device},
          {"label", nic.label},
          {"numa_node", tree_.numa[d] >= 0 ? std::to_string(tree_.numa[d]) : "unknown"},
          {"pcie_path", fmt::format("{}", fmt::join(ancestors(d), " "))}});
  }
}

// GPU a -> GPU b over PCIe: up a's chain to the lowest common switch or bridge, down b's chain;
// without one, across the host bridges (NODE) and the UPI link (SYS).
std::vector<Hop> PlatformWriter::gpu_route(int a, int b) const {
  const PathEntry& e = m_.path(a, b);
  if (e.code == PathCode::NV) {
    if (port_[a] > 0)
      return {{fmt::format("nvswitch_gpu{}", a), Dir::up}, {fmt::format("nvswitch_gpu{}", b), Dir::down}};
    return {{fmt::format("nvlink_gpu{}_gpu{}", std::min(a, b), std::max(a, b)), a < b ? Dir::up : Dir::down}};
  }
  std::vector<std::string> up_a = ancestors(a), up_b = ancestors(b);
  std::vector<Hop> hops{{fmt::format("pcie_gpu{}", a), Dir::up}};
  std::size_t i = 0, j = up_b.size();
  for (; i < up_a.size(); ++i) {
    auto common = std::find(up_b.begin(), up_b.end(), up_a[i]);
    if (common != up_b.end()) {
      j = static_cast<std::size_t>(common - up_b.begin());
      break;
    }
  }
  for (std::size_t k = 0; k < i && k < up_a.size(); ++k) hops.push_back({up_a[k]});
  if (i < up_a.size()) {
    // Below a common switch the pair meets in its crossbar; below a common host bridge, in the bridge.
    const bool bridge = tree_.host_bridge[a] >= 0 && up_a[i] == bridge_id(tree_.host_bridge[a]);
    hops.push_back({bridge ? up_a[i] : crossbar_id(up_a[i])});
  } else if (tree_.numa[a] != tree_.numa[b]) {
    hops.push_back({upi_id(tree_.numa[a], tree_.numa[b])});
  }
  for (std::size_t k = j; k-- > 0;) hops.push_back({up_b[k]});
  hops.push_back({fmt::format("pcie_gpu{}", b), Dir::down});
  return hops;
}

void PlatformWriter::route(const std::string& src, const std::string& dst, const std::vector<Hop>& hops) {
  out_ += fmt::format("    <route src=\"{}\" dst=\"{}\">\n", src, dst);
  for (const Hop& h : hops) {
    if (h.dir == Dir::none) out_ += fmt::format("      <link_ctn id=\"{}\"/>\n", h.link);
    else out_ += fmt::format("      <link_ctn id=\"{}\" direction=\"{}\"/>\n", h.link, h.dir == Dir::up ? "UP" : "DOWN");
  }
  out_ += "    </route>\n";
}

void PlatformWriter::write_routes() {
  const int G = m_.gpu_count;
  for (int a = 0; a < G; ++a)
    for (int b = a + 1; b < G; ++b) route(fmt::format("gpu{}", a), fmt::format("gpu{}", b), gpu_route(a, b));
  // Host-staged copies: GPU -> its host bridge -> (UPI) -> the socket's memory.
  for (int g = 0; g < G; ++g)
    for (int s : tree_.numa_nodes) {
      std::vector<Hop> hops{{fmt::format("pcie_gpu{}", g), Dir::up}};
      for (const auto& id : ancestors(g)) hops.push_back({id});
      if (s != tree_.numa[g]) hops.push_back({upi_id(tree_.numa[g], s)});
      route(fmt::format("gpu{}", g), fmt::format("cpu{}", s), hops);
    }
  for (std::size_t s = 0; s < tree_.numa_nodes.size(); ++s)
    for (std::size_t t = s + 1; t < tree_.numa_nodes.size(); ++t) {
      int a = tree_.numa_nodes[s], b = tree_.numa_nodes[t];
      route(fmt::format("cpu{}", a), fmt::format("cpu{}", b), {{upi_id(a, b)}});
    }
}

}  // namespace

std::string platform_xml(const TopoMatrix& m, const GpuLinkSpec& spec, const std::string& cpu_vendor) {
  return PlatformWriter(m, spec, cpu_vendor).write();
}

}  // namespace tpsim
