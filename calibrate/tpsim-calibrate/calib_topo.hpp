// Which GPU pairs to measure: one representative pair per interconnect class.
//
// The class of a pair is the cell of `nvidia-smi topo -m` (NV18, NV12, PIX, PXB, PHB, NODE,
// SYS). nvidia-smi numbers GPUs in PCI order, CUDA by its own order (and after
// CUDA_VISIBLE_DEVICES), so the two are matched by PCI bus id. Without nvidia-smi the class
// comes from CUDA's P2P attributes ("P2P" with its performance rank, or "no-P2P").
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace tpsim::calib {

struct TopoMatrix {
  std::vector<std::string> gpu_names;            // column order: GPU0, GPU1, ...
  std::vector<std::vector<std::string>> cells;   // cells[i][j]; a row absent from the text is empty
  const std::string* cell(int i, int j) const;   // nullptr when unknown
};

// Parses the GPU-by-GPU block of `nvidia-smi topo -m` (terminal escape codes and the NIC
// columns, CPU/NUMA affinity and the legend are ignored). Throws RunError when no header.
TopoMatrix parse_topo_matrix(const std::string& text);

// "00000000:07:00.0" (nvidia-smi) and "0000:07:00.0" (cudaDeviceGetPCIBusId) -> "0000:07:00.0".
std::string normalize_bus_id(const std::string& bus_id);

// Output of `nvidia-smi --query-gpu=index,pci.bus_id --format=csv,noheader`:
// nvidia-smi index -> normalized bus id.
std::map<int, std::string> parse_bus_id_query(const std::string& text);

struct PairChoice {
  std::string pair_class;
  int a = 0, b = 0;   // CUDA ordinals, a < b: the first pair of this class in (a, b) order
  int pairs = 0;      // how many pairs of the selection have this class
};

// One PairChoice per class, in order of first appearance over (a, b) lexicographic order.
std::vector<PairChoice> representative_pairs(const std::vector<int>& gpus,
                                             const std::function<std::string(int, int)>& pair_class);

// The `nvidia-smi -q` lines worth keeping beside the data: GPU headers, versions, product,
// bus, PCIe link, memory size, clocks, power limits, persistence/MIG/compute modes.
std::string nvidia_smi_q_essentials(const std::string& text);

}  // namespace tpsim::calib
