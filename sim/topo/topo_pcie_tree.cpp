// PCIe placement from path codes: a bottleneck (minimax) closure over the given distances, a
// consistency check of every given entry against the closure, then the nested classes.
#include "topo/topo_pcie_tree.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "util/error.hpp"

namespace tpsim {
namespace {

constexpr int UNKNOWN = 100;  // no bound yet
constexpr int PIX = 1, PXB = 2, PHB = 3, NODE = 4, SYS = 5;

// PCIe distance of a code, or UNKNOWN for NV (nvidia-smi does not say where an NVLink pair is on PCIe).
int distance_of(PathCode c) {
  switch (c) {
    case PathCode::X: return 0;
    case PathCode::PIX: return PIX;
    case PathCode::PXB: return PXB;
    case PathCode::PHB: return PHB;
    case PathCode::NODE: return NODE;
    case PathCode::SYS: return SYS;
    case PathCode::NV: return UNKNOWN;
  }
  return UNKNOWN;
}

PathCode code_of(int d) {
  static const PathCode codes[] = {PathCode::X,   PathCode::PIX,  PathCode::PXB,
                                   PathCode::PHB, PathCode::NODE, PathCode::SYS};
  return codes[std::min(d, SYS)];
}

using Matrix = std::vector<std::vector<int>>;

void close_minimax(Matrix& d) {
  const std::size_t n = d.size();
  for (std::size_t k = 0; k < n; ++k)
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) d[i][j] = std::min(d[i][j], std::max(d[i][k], d[k][j]));
}

bool pcie_given(const PathEntry& e) { return e.given && e.code != PathCode::NV && e.code != PathCode::X; }

[[noreturn]] void fail_at(const TopoMatrix& m, const PathEntry& e, const std::string& msg) {
  throw InputError(Location{m.file, e.line, e.col}, msg);
}

// Devices-only closure of the given PCIe entries.
Matrix device_distances(const TopoMatrix& m) {
  const int n = static_cast<int>(m.devices.size());
  Matrix d(n, std::vector<int>(n, UNKNOWN));
  for (int a = 0; a < n; ++a) {
    d[a][a] = 0;
    for (int b = 0; b < n; ++b)
      if (pcie_given(m.path(a, b))) d[a][b] = distance_of(m.path(a, b).code);
  }
  return d;
}

// The first GPU-GPU code that contradicts the NUMA Affinity column, as a note (location and text);
// "" when they agree. Only SYS crosses NUMA nodes.
std::string numa_contradiction(const TopoMatrix& m, const std::vector<int>& numa) {
  for (int a = 0; a < m.gpu_count; ++a)
    for (int b = a + 1; b < m.gpu_count; ++b) {
      const PathEntry& e = m.path(a, b);
      if (!pcie_given(e) || (numa[a] == numa[b]) == (e.code != PathCode::SYS)) continue;
      const std::string what =
          numa[a] == numa[b]
              ? fmt::format("GPU{} and GPU{} are both on NUMA node {} by the NUMA Affinity column, but SYS apart", a, b, numa[a])
              : fmt::format("GPU{} is on NUMA node {} and GPU{} on NUMA node {} by the NUMA Affinity column, but {} apart",
                            a, numa[a], b, numa[b], e.text());
      return format_note(Location{m.file, e.line, e.col}, what + "; tpsim follows the path codes (only SYS crosses NUMA nodes)");
    }
  return "";
}

// A CPU Affinity cell that names CPUs (not empty, not N/A).
bool usable_affinity(const TopoMatrix& m, int gpu) {
  return !m.cpu_affinity[gpu].empty() && m.cpu_affinity[gpu] != "N/A";
}

// Without NUMA nodes, the first GPU pair SYS apart whose CPU Affinity lists are the same, as a note;
// "" when there is none. The codes win (infer_numa), as they do over the NUMA Affinity column.
std::string cpu_affinity_contradiction(const TopoMatrix& m) {
  for (int a = 0; a < m.gpu_count; ++a)
    for (int b = a + 1; b < m.gpu_count; ++b) {
      const PathEntry& e = m.path(a, b);
      if (!pcie_given(e) || e.code != PathCode::SYS || !usable_affinity(m, a) || m.cpu_affinity[a] != m.cpu_affinity[b]) continue;
      return format_note(Location{m.file, e.line, e.col},
                         fmt::format("GPU{} and GPU{} have the same CPU Affinity ({}) but are {} apart; tpsim follows the path "
                                     "codes (only SYS crosses sockets) and puts them on two sockets",
                                     a, b, m.cpu_affinity[a], e.text()));
    }
  return "";
}

// Union-find over group ids, for joining groups the CPU Affinity column puts on one socket.
int root(std::vector<int>& parent, int g) {
  while (parent[g] != g) g = parent[g] = parent[parent[g]];
  return g;
}

// NUMA nodes from the path codes (the NUMA Affinity column is N/A, absent, or contradicts them):
// devices joined by paths below SYS share a node; two such groups are on different nodes when a
// given entry between them says SYS. When none does (NV# pairs, whose PCIe path nvidia-smi does
// not print), the CPU Affinity column decides: GPUs with the same CPU list hang off one socket,
// GPUs with different lists off different ones (a DGX-1: 0-19,40-59 against 20-39,60-79). The
// codes win where both speak (published matrices give every GPU the same list across SYS).
// Without usable affinity columns: when the SYS entries split the groups in two, every group SYS apart from
// a group of the other set and from none of its own (a connected two-colourable graph of SYS
// entries), the two sets are taken for the two sockets of a two-socket server; `parent` joins each
// set. False, and nothing joined, when they do not.
bool join_two_sockets(int groups, const std::set<std::pair<int, int>>& apart, std::vector<int>& parent) {
  std::vector<int> colour(groups, -1);
  std::vector<int> queue{0};
  colour[0] = 0;
  for (std::size_t q = 0; q < queue.size(); ++q)
    for (const auto& [x, y] : apart) {
      if (x != queue[q]) continue;
      if (colour[y] == colour[x]) return false;
      if (colour[y] < 0) colour[y] = 1 - colour[x], queue.push_back(y);
    }
  if (std::find(colour.begin(), colour.end(), -1) != colour.end()) return false;
  const int first[2] = {int(std::find(colour.begin(), colour.end(), 0) - colour.begin()),
                        int(std::find(colour.begin(), colour.end(), 1) - colour.begin())};
  for (int g = 0; g < groups; ++g) parent[root(parent, g)] = root(parent, first[colour[g]]);
  return true;
}

std::vector<int> infer_numa(const TopoMatrix& m, bool& used_cpu_affinity, std::string& two_sockets_note) {
  bool any_sys = false;
  for (const auto& row : m.paths)
    for (const auto& e : row) any_sys = any_sys || (e.given && e.code == PathCode::SYS);
  std::vector<int> numa(m.gpu_count, 0);
  if (!any_sys) return numa;
  Matrix d = device_distances(m);
  close_minimax(d);  // an ultrametric: "below SYS" is an equivalence
  const int n = static_cast<int>(m.devices.size());
  std::vector<int> group(n, -1);
  int groups = 0;
  for (int a = 0; a < n; ++a) {
    if (group[a] >= 0) continue;
    for (int b = a; b < n; ++b)
      if (d[a][b] < SYS) group[b] = groups;
    ++groups;
  }
  std::set<std::pair<int, int>> apart;
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b)
      if (m.path(a, b).given && m.path(a, b).code == PathCode::SYS) apart.insert({group[a], group[b]});
  std::vector<int> parent(groups);
  for (int g = 0; g < groups; ++g) parent[g] = g;
  auto is_apart = [&](int ga, int gb) {
    for (const auto& [x, y] : apart)
      if (root(parent, x) == root(parent, ga) && root(parent, y) == root(parent, gb)) return true;
    return false;
  };
  for (int a = 0; a < m.gpu_count; ++a)
    for (int b = a + 1; b < m.gpu_count; ++b) {
      if (root(parent, group[a]) == root(parent, group[b]) || is_apart(group[a], group[b])) continue;
      if ((!usable_affinity(m, a) || !usable_affinity(m, b)) && two_sockets_note.empty() && join_two_sockets(groups, apart, parent)) {
        two_sockets_note = format_note(Location{m.file, m.path(a, b).line, m.path(a, b).col},
                                       fmt::format("nvidia-smi prints {} for GPU{} and GPU{}, not a PCIe path, and the NUMA and CPU Affinity "
                                                   "columns are N/A or absent: the SYS entries split the GPUs in two, taken for the two "
                                                   "sockets of a two-socket server (assumed)",
                                                   m.path(a, b).text(), a, b));
        if (root(parent, group[a]) == root(parent, group[b]) || is_apart(group[a], group[b])) continue;
      }
      if (!usable_affinity(m, a) || !usable_affinity(m, b))
        fail_at(m, m.path(a, b),
                fmt::format("cannot tell whether GPU{} and GPU{} share a NUMA node: nvidia-smi prints {} for them, "
                            "not a PCIe path, the other entries leave it open, and the NUMA and CPU Affinity columns "
                            "are N/A or absent",
                            a, b, m.path(a, b).text()));
      used_cpu_affinity = true;
      if (m.cpu_affinity[a] == m.cpu_affinity[b]) parent[root(parent, group[a])] = root(parent, group[b]);
      else apart.insert({group[a], group[b]});
    }
  std::map<int, int> node_of_group;
  for (int g = 0; g < m.gpu_count; ++g)
    numa[g] = node_of_group.try_emplace(root(parent, group[g]), int(node_of_group.size())).first->second;
  return numa;
}

std::string node_name(const TopoMatrix& m, const std::vector<int>& nodes, int k) {
  int n = static_cast<int>(m.devices.size());
  return k < n ? m.devices[k].label : fmt::format("NUMA node {}", nodes[k - n]);
}

// Every given entry must equal the closure: a smaller closure means another path contradicts it.
void check_consistency(const TopoMatrix& m, const Matrix& d, const std::vector<int>& nodes) {
  const int n = static_cast<int>(m.devices.size());
  const int total = static_cast<int>(d.size());
  auto witness = [&](int a, int b, int bound) {
    for (int k = 0; k < total; ++k)  // devices first: they read better than NUMA nodes
      if (k != a && k != b && std::max(d[a][k], d[k][b]) < bound) return k;
    return -1;
  };
  for (int a = 0; a < n; ++a)
    for (int b = a + 1; b < n; ++b) {
      const PathEntry& e = m.path(a, b);
      if (!pcie_given(e) || d[a][b] >= distance_of(e.code)) continue;
      int k = witness(a, b, distance_of(e.code));
      if (k < 0) throw std::logic_error("infer_pcie_tree: a smaller closure without an intermediate");
      // A leg as the closure has it, and the matrix's own code where that differs (an NV# pair, whose
      // PCIe path comes from the NUMA columns; a code the closure shortened).
      auto leg = [&](int x, int y) {
        std::string text = fmt::format("{}-{} {}", node_name(m, nodes, x), node_name(m, nodes, y), path_code_name(code_of(d[x][y])));
        if (x < n && y < n && m.path(x, y).given && m.path(x, y).code != code_of(d[x][y]))
          text += fmt::format(" (the matrix says {})", m.path(x, y).text());
        return text;
      };
      fail_at(m, e,
              fmt::format("{} between {} and {} contradicts the rest of the matrix: through {} they are at most {} "
                          "apart ({}, {})",
                          e.text(), m.devices[a].label, m.devices[b].label, node_name(m, nodes, k),
                          path_code_name(code_of(d[a][b])), leg(a, k), leg(k, b)));
    }
  for (std::size_t s = 0; s < nodes.size(); ++s)
    for (std::size_t t = s + 1; t < nodes.size(); ++t) {
      int a = n + static_cast<int>(s), b = n + static_cast<int>(t);
      if (d[a][b] >= SYS) continue;
      // GPU-GPU codes were checked against the NUMA nodes already: the culprit is a NIC.
      int k = -1;
      for (int c = m.gpu_count; c < n && k < 0; ++c)
        if (std::max(d[a][c], d[c][b]) < SYS) k = c;
      if (k < 0 || k >= n) throw std::logic_error("infer_pcie_tree: NUMA nodes joined without a device");
      const TopoDevice& dev = m.devices[k];
      throw InputError(Location{m.file, dev.line, dev.col},
                       fmt::format("{} is at most {} from NUMA node {} and at most {} from NUMA node {}, but NUMA "
                                   "nodes are SYS apart",
                                   dev.label, path_code_name(code_of(d[k][a])), nodes[s],
                                   path_code_name(code_of(d[k][b])), nodes[t]));
    }
}

// Class id of each device under "distance <= limit", numbered by first device; -1 for skipped.
std::vector<int> classes(const Matrix& d, int n, int limit, const std::vector<int>& numa) {
  std::vector<int> id(n, -1);
  int next = 0;
  for (int a = 0; a < n; ++a) {
    if (id[a] >= 0 || numa[a] < 0) continue;
    for (int b = a; b < n; ++b)
      if (numa[b] >= 0 && d[a][b] <= limit) id[b] = next;
    ++next;
  }
  return id;
}

// The closure of the given PCIe entries with one extra node per NUMA node (a GPU -> its node at
// NODE, node -> node at SYS), the entries checked against it.
Matrix closed_distances(const TopoMatrix& m, const std::vector<int>& gpu_numa, const std::vector<int>& numa_nodes) {
  const int n = static_cast<int>(m.devices.size());
  std::map<int, int> node_slot;
  for (std::size_t s = 0; s < numa_nodes.size(); ++s) node_slot[numa_nodes[s]] = n + static_cast<int>(s);
  const int total = n + static_cast<int>(numa_nodes.size());
  Matrix d = device_distances(m);
  for (auto& row : d) row.resize(total, UNKNOWN);
  d.resize(total, std::vector<int>(total, UNKNOWN));
  for (int a = n; a < total; ++a)
    for (int b = n; b < total; ++b) d[a][b] = a == b ? 0 : SYS;
  for (int g = 0; g < m.gpu_count; ++g) d[g][node_slot[gpu_numa[g]]] = d[node_slot[gpu_numa[g]]][g] = NODE;
  close_minimax(d);
  check_consistency(m, d, numa_nodes);
  return d;
}

std::vector<int> distinct(const std::vector<int>& v) {
  std::set<int> seen(v.begin(), v.end());
  return {seen.begin(), seen.end()};
}

}  // namespace

PcieTree infer_pcie_tree(const TopoMatrix& m) {
  const int n = static_cast<int>(m.devices.size());
  PcieTree tree;
  std::vector<int> gpu_numa = m.numa_node;
  bool known = !gpu_numa.empty() && std::all_of(gpu_numa.begin(), gpu_numa.end(), [](int x) { return x >= 0; });
  if (known) tree.numa_note = numa_contradiction(m, gpu_numa);
  auto infer = [&] {
    gpu_numa = infer_numa(m, tree.numa_from_cpu_affinity, tree.two_sockets_note);
    tree.numa_inferred = true;
  };
  if (!known) tree.cpu_affinity_note = cpu_affinity_contradiction(m);
  if (!known || !tree.numa_note.empty()) infer();
  tree.numa_nodes = distinct(gpu_numa);
  Matrix d;
  try {
    d = closed_distances(m, gpu_numa, tree.numa_nodes);
  } catch (const InputError& e) {
    // A NIC's codes can contradict the column where every GPU pair is NV# (a published 8x A100: NIC2
    // PXB from GPU2 and SYS from GPU0, both on NUMA node 0 by the column): the codes then decide the
    // nodes, as they do for a GPU pair's contradiction; when they cannot, the first error stands.
    if (tree.numa_inferred) throw;
    tree.numa_note = format_note(e.where(), e.message() + ", with the NUMA Affinity column's nodes; tpsim takes the nodes from "
                                                          "the path codes instead");
    infer();
    tree.numa_nodes = distinct(gpu_numa);
    try {
      d = closed_distances(m, gpu_numa, tree.numa_nodes);
    } catch (const InputError&) {
      throw e;
    }
  }

  tree.numa.assign(n, -1);
  for (int a = 0; a < n; ++a)
    for (std::size_t s = 0; s < tree.numa_nodes.size(); ++s)
      if (d[a][n + static_cast<int>(s)] <= NODE) tree.numa[a] = tree.numa_nodes[s];
  tree.level.assign(n, std::vector<PathCode>(n, PathCode::SYS));
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) tree.level[a][b] = code_of(d[a][b]);

  std::vector<int> pix = classes(d, n, PIX, tree.numa), pxb = classes(d, n, PXB, tree.numa),
                   phb = classes(d, n, PHB, tree.numa);
  // How many devices per PIX class, and how many PIX classes per PXB class.
  std::map<int, int> pix_size;
  std::map<int, std::set<int>> pix_in_pxb;
  for (int a = 0; a < n; ++a)
    if (tree.numa[a] >= 0) {
      ++pix_size[pix[a]];
      pix_in_pxb[pxb[a]].insert(pix[a]);
    }

  tree.leaf_switch.assign(n, -1);
  tree.upstream_switch.assign(n, -1);
  tree.host_bridge.assign(n, -1);
  std::map<int, int> bridge_of_phb, upstream_of_pxb, leaf_of_pix;
  for (int a = 0; a < n; ++a) {
    if (tree.numa[a] < 0) continue;
    if (!bridge_of_phb.count(phb[a])) {
      bridge_of_phb[phb[a]] = static_cast<int>(tree.host_bridges.size());
      tree.host_bridges.push_back({{}, tree.numa[a]});
    }
    int hb = bridge_of_phb[phb[a]];
    tree.host_bridge[a] = hb;
    tree.host_bridges[hb].devices.push_back(a);

    bool has_upstream = pix_in_pxb[pxb[a]].size() >= 2;
    if (has_upstream) {
      if (!upstream_of_pxb.count(pxb[a])) {
        upstream_of_pxb[pxb[a]] = static_cast<int>(tree.switches.size());
        tree.switches.push_back({{}, true, -1, hb});
      }
      tree.upstream_switch[a] = upstream_of_pxb[pxb[a]];
      tree.switches[tree.upstream_switch[a]].devices.push_back(a);
    }
    // A PXB pair crosses several bridges, so every member of a PXB group gets a leaf switch.
    if (pix_size[pix[a]] >= 2 || has_upstream) {
      if (!leaf_of_pix.count(pix[a])) {
        leaf_of_pix[pix[a]] = static_cast<int>(tree.switches.size());
        tree.switches.push_back({{}, false, tree.upstream_switch[a], hb});
      }
      tree.leaf_switch[a] = leaf_of_pix[pix[a]];
      tree.switches[tree.leaf_switch[a]].devices.push_back(a);
    }
  }
  return tree;
}

}  // namespace tpsim
