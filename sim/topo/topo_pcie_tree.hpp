// Where each GPU and NIC sits on PCIe, read from the codes of `nvidia-smi topo -m`.
//
// The PCIe codes are distances in a tree
//   device -> leaf PCIe switch -> upstream switch -> host bridge -> NUMA node -> system
// PIX = same leaf switch, PXB = same upstream switch, PHB = same host bridge, NODE = same NUMA
// node, SYS = different NUMA nodes. Distances in a tree obey d(a,b) <= max(d(a,c), d(c,b)), so
// "closer than PIX/PXB/PHB/NODE" are nested equivalence classes, and those classes are the
// switches, host bridges and NUMA nodes. The NUMA Affinity column adds: GPUs on one node are at
// most NODE apart, GPUs on different nodes are SYS apart.
//
// nvidia-smi prints no PCIe distance for an NV# pair (nor for NIC-NIC pairs when there are no NIC
// rows). Such a pair gets the largest distance the other entries allow: the least over all c of
// max(d(a,c), d(c,b)), and at most NODE when both GPUs are on one NUMA node. The tree then joins
// two devices only where the matrix forces it: it never invents a shared switch.
//
// When the NUMA Affinity column is N/A (or absent): with no SYS entry at all there is one NUMA
// node; otherwise the nodes are the classes "closer than SYS"; an NV# pair whose placement that
// leaves open takes it from the CPU Affinity column (same CPU list, same socket), and is an error
// when that column is absent too.
//
// Entries that contradict each other (d(a,b) given larger than a path through c allows, or a code
// that disagrees with the NUMA nodes) are InputErrors located at the entry.
#pragma once
#include <vector>

#include "topo/topo_matrix.hpp"

namespace tpsim {

struct PcieSwitch {
  std::vector<int> devices;  // device ids (TopoMatrix::devices) below it, ascending
  bool upstream = false;     // true: joins several leaf switches (PXB); false: a leaf (PIX)
  int parent = -1;           // leaf: its upstream switch, or -1
  int host_bridge = -1;
};

struct HostBridge {
  std::vector<int> devices;  // device ids below it, ascending
  int numa_node = 0;
};

struct PcieTree {
  // Completed PCIe distance between devices: PIX..SYS, X on the diagonal.
  std::vector<std::vector<PathCode>> level;
  std::vector<PcieSwitch> switches;
  std::vector<HostBridge> host_bridges;
  std::vector<int> numa_nodes;  // NUMA nodes seen, ascending
  bool numa_inferred = false;   // the NUMA Affinity column was N/A, absent or contradicted by the codes
  bool numa_from_cpu_affinity = false;  // inferred nodes needed the CPU Affinity column (NV# pairs)
  std::string numa_note;        // "file:line:col: ..." where the column contradicts the codes; "" otherwise
  // "file:line:col: ..." where, without NUMA nodes, two GPUs with one CPU Affinity list are SYS apart.
  std::string cpu_affinity_note;
  // "file:line:col: ..." where, without affinity columns, the SYS entries' two sets were taken for two sockets.
  std::string two_sockets_note;

  // Per device (-1: none). A NIC that is SYS from every GPU has no known NUMA node; it then has
  // no switch, host bridge or node here.
  std::vector<int> leaf_switch;
  std::vector<int> upstream_switch;
  std::vector<int> host_bridge;
  std::vector<int> numa;  // NUMA node of each device
};

PcieTree infer_pcie_tree(const TopoMatrix& m);

}  // namespace tpsim
