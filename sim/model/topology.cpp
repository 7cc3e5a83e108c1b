#include "topology.hpp"

#include <algorithm>
#include <limits>

#include "config/p2p_policy.hpp"
#include "util/nccl_terms.hpp"
#include "util/error.hpp"

namespace tpsim {

const char* path_class_name(PathClass c) {
  static const char* names[] = {"NVL", "PIX", "PXB", "PHB", "SYS", "NET"};
  return names[static_cast<int>(c)];
}

PathClass parse_path_class(const std::string& name) {
  for (int i = 0; i <= static_cast<int>(PathClass::NET); ++i)
    if (name == path_class_name(static_cast<PathClass>(i))) return static_cast<PathClass>(i);
  if (name == "NODE") return PathClass::PHB;
  throw ValueError("unknown path class '" + name + "' (NVL, PIX, PXB, PHB, SYS or NET)");
}

bool on_sys_route(LinkKind k) {
  return k == LinkKind::pcie || k == LinkKind::pcie_switch || k == LinkKind::host_bridge || k == LinkKind::upi;
}

Topology::Topology(PlatformDesc platform, const HardwareSpec& overrides, const std::string& p2p_level_override,
                   std::string nccl_version)
    : platform_(std::move(platform)),
      explicit_level_(p2p_level_override.empty() ? platform_.p2p_level : p2p_level_override),
      nccl_version_(std::move(nccl_version)),
      sys_path_scale_(overrides.sys_path_scale) {
  for (auto& l : platform_.links) {
    latency_added_.push_back(0);
    auto it = overrides.links.find(link_kind_name(l.kind));
    if (it != overrides.links.end()) {
      if (it->second.bandwidth_Bps) l.bandwidth_Bps = *it->second.bandwidth_Bps;
      if (it->second.latency_s) latency_added_.back() = *it->second.latency_s - l.latency_s, l.latency_s = *it->second.latency_s;
    }
    if (on_sys_route(l.kind)) l.bandwidth_Bps *= sys_path_scale_;
  }
  if (!explicit_level_.empty() && explicit_level_ != "OFF") parse_path_class(explicit_level_);  // validates
}

std::string Topology::p2p_level(int local_gpus) const {
  return explicit_level_.empty() ? nccl_default_p2p_level(platform_.cpu_vendor, local_gpus, nccl_version_) : explicit_level_;
}

DirectedLink Topology::normalise(DirectedLink l) const {
  if (!platform_.links[l.link].split_duplex) l.reverse = false;
  return l;
}

namespace {

PathClass class_of(const PlatformDesc& p, const std::vector<RouteHop>& hops) {
  int switches = 0;
  bool pcie = false, bridge = false, upi = false, net = false;
  for (const auto& h : hops) {
    switch (p.links[h.link].kind) {
      case LinkKind::nic:
      case LinkKind::fabric: net = true; break;
      case LinkKind::upi: upi = true; break;
      case LinkKind::host_bridge: bridge = true; break;
      case LinkKind::pcie_switch: ++switches; pcie = true; break;
      case LinkKind::pcie: pcie = true; break;
      default: break;
    }
  }
  if (net) return PathClass::NET;
  if (upi) return PathClass::SYS;
  if (bridge) return PathClass::PHB;
  if (switches >= 2) return PathClass::PXB;
  if (pcie) return PathClass::PIX;
  return PathClass::NVL;
}

}  // namespace

std::string Topology::first_pair_note(const std::vector<int>& group, const PairNote& note) const {
  for (std::size_t i = 0; i < group.size(); ++i)
    for (std::size_t j = i + 1; j < group.size(); ++j) {
      const GpuDesc* a = platform_.gpu(group[i]);
      const GpuDesc* b = platform_.gpu(group[j]);
      if (!a || !b || a->node != b->node || !a->p2p || !b->p2p) continue;
      int local = 0;
      for (int g : group) local += platform_.gpu(g) && platform_.gpu(g)->node == a->node;
      const GpuPath& p = path(a->index, b->index, local);
      if (p.path_class == PathClass::NET) continue;
      const std::string pair = "GPU " + std::to_string(a->index) + " - GPU " + std::to_string(b->index) + " (" + path_class_name(p.path_class) + ")";
      if (std::string text = note(p, local, pair); !text.empty()) return text;
    }
  return "";
}

std::string Topology::cpu_vendor_note(const std::vector<int>& group) const {
  return first_pair_note(group, [&](const GpuPath& p, int local, const std::string& pair) -> std::string {
    const std::string assumed = nccl_default_p2p_level("", local, nccl_version_);
    if (p.path_class <= parse_path_class(assumed) || p.path_class > parse_path_class(nccl_default_p2p_level("amd", local, nccl_version_)))
      return "";
    const bool current = !nccl_before(nccl_version_, 2, 23);
    return "the platform does not say its CPU vendor (zone property cpu_vendor): NCCL's P2P level is assumed " + assumed +
           ", as on Intel, so " + pair + " is staged through host memory; on an AMD host NCCL " +
           (current ? std::string("uses P2P across SYS for a communicator of at most 2 GPUs per node")
                    : nccl_version_ + " uses P2P across SYS at any GPU count") +
           " (paths.cc ncclTopoCheckP2p)";
  });
}

std::string Topology::p2p_default_note(const std::vector<int>& group) const {
  return cpu_vendor_assumed() ? cpu_vendor_note(group) : release_note(group);
}

std::string Topology::release_note(const std::vector<int>& group) const {
  if (!nccl_version_.empty() || !explicit_level_.empty()) return "";
  const std::string older = "2.22";  // the last release whose rule starts from SYS (p2p_policy.hpp)
  return first_pair_note(group, [&](const GpuPath& p, int local, const std::string& pair) -> std::string {
    if (!p.staged || p.path_class > parse_path_class(nccl_default_p2p_level(platform_.cpu_vendor, local, older))) return "";
    return pair + " is staged through host memory, as NCCL 2.23 and later do on " + platform_.cpu_vendor + " hosts for a communicator of " +
           std::to_string(local) + " GPUs a node (tpsim simulates a current NCCL); NCCL 2.9-2.22 run it P2P (paths.cc "
           "ncclTopoCheckP2p): give collectives.nccl_version (tpsim collective --nccl-version) for the release the engine ships";
  });
}

GpuPath Topology::build(const GpuDesc& a, const GpuDesc& b, const std::string& level) const {
  const auto direct = platform_.route(a.host, b.host);
  if (!direct)
    throw ValueError("GPU " + std::to_string(a.index) + " and GPU " + std::to_string(b.index) + " are not connected in " +
                     platform_.file + " (no route between " + a.host + " and " + b.host + ")");
  GpuPath path;
  path.path_class = class_of(platform_, *direct);
  const bool p2p_off = level == "OFF";  // NCCL_P2P_DISABLE=1: even NVLink goes through host memory
  const bool p2p_allowed = !p2p_off && a.p2p && b.p2p && path.path_class <= parse_path_class(level);
  auto leg = [&](const std::string& s, const std::string& d, const std::vector<RouteHop>& hops) {
    Leg l{s, d, {}};
    for (const auto& h : hops) l.links.push_back({h.link, h.reverse});
    return l;
  };
  if (p2p_allowed || path.path_class == PathClass::NET || (path.path_class == PathClass::NVL && !p2p_off)) {
    path.legs.push_back(leg(a.host, b.host, *direct));
  } else {
    const auto up = a.cpu.empty() ? std::nullopt : platform_.route(a.host, a.cpu);
    const auto down = a.cpu.empty() ? std::nullopt : platform_.route(a.cpu, b.host);
    if (!up || !down)
      throw ValueError("GPU " + std::to_string(a.index) + " to GPU " + std::to_string(b.index) +
                       " must be staged through host memory, but " + platform_.file + " has no route via a CPU socket");
    path.staged = true;
    path.legs.push_back(leg(a.host, a.cpu, *up));
    path.legs.push_back(leg(a.cpu, b.host, *down));
  }
  path.bottleneck_Bps = std::numeric_limits<double>::infinity();
  for (const auto& l : path.legs)
    for (const auto& dl : l.links) {
      path.latency_s += platform_.links[dl.link].latency_s;
      path.latency_added_s += latency_added_[dl.link];
      path.bottleneck_Bps = std::min(path.bottleneck_Bps, platform_.links[dl.link].bandwidth_Bps);
    }
  return path;
}

const GpuPath& Topology::path(int from_gpu, int to_gpu) const {
  const GpuDesc* a = platform_.gpu(from_gpu);
  int on_node = 0;
  for (const auto& g : platform_.gpus) on_node += a && g.node == a->node;
  return path(from_gpu, to_gpu, on_node);
}

const GpuPath& Topology::path_in(const std::vector<int>& group, int from_gpu, int to_gpu) const {
  const GpuDesc* a = platform_.gpu(from_gpu);
  const auto on_node = std::count_if(group.begin(), group.end(), [&](int g) { return a && platform_.gpu(g)->node == a->node; });
  return path(from_gpu, to_gpu, int(on_node));
}

const GpuPath& Topology::path(int from_gpu, int to_gpu, int local_gpus) const {
  const std::string level = p2p_level(local_gpus);
  auto key = std::tuple{from_gpu, to_gpu, level};
  auto it = paths_.find(key);
  if (it != paths_.end()) return it->second;
  const GpuDesc* a = platform_.gpu(from_gpu);
  const GpuDesc* b = platform_.gpu(to_gpu);
  if (!a || !b) throw ValueError("GPU " + std::to_string(a ? to_gpu : from_gpu) + " is not in " + platform_.file);
  return paths_.emplace(key, build(*a, *b, level)).first->second;
}

}  // namespace tpsim
