// The `nvidia-smi topo -m` matrix as data.
//
// nvidia-smi prints one header row of device names (GPU0.., then NIC0.. or raw RDMA names such
// as mlx5_0), then the `CPU Affinity`, `NUMA Affinity` and (newer drivers) `GPU NUMA ID`
// columns; one row per GPU and usually one per NIC; then a `Legend:` block and, when there are
// NICs, a `NIC Legend:` block (`NIC0: mlx5_0`). Each cell is a path code:
//   X     the device itself
//   NV#   a bonded set of # NVLinks (with NVSwitch, every pair reports the GPU's full count)
//   PIX   at most one PCIe bridge (same PCIe switch)
//   PXB   several PCIe bridges, no host bridge (switches under a common upstream switch)
//   PHB   through a PCIe host bridge (the CPU's root complex)
//   NODE  between host bridges of one NUMA node
//   SYS   across the SMP interconnect between NUMA nodes (UPI, xGMI)
//
// Invariants of a parsed TopoMatrix: every GPU has a row; the matrix is symmetric; X is on the
// diagonal and nowhere else; NV# joins GPUs only; NUMA nodes are given for all GPUs or for none;
// the codes agree with each other and with the NUMA nodes (see topo_pcie_tree.hpp). NIC rows are
// optional: their entries to GPUs are also in the GPU rows; NIC-NIC pairs without a NIC row are
// marked not given.
#pragma once
#include <string>
#include <vector>

namespace tpsim {

// Ordered from nearest to farthest; NV is not a PCIe distance and sits apart.
enum class PathCode { X, NV, PIX, PXB, PHB, NODE, SYS };

// "X", "NV", "PIX", ...
const char* path_code_name(PathCode code);

struct PathEntry {
  PathCode code = PathCode::X;
  int nvlinks = 0;     // number of bonded NVLinks when code == NV, else 0
  bool given = false;  // false for a NIC-NIC pair when the file has no NIC rows
  int line = 0;        // where the cell was read (1-based; 0 when not given)
  int col = 0;

  // The code as nvidia-smi prints it: "NV12", "SYS", "X".
  std::string text() const;
};

struct TopoDevice {
  std::string label;       // as the header writes it: "GPU3", "NIC0", "mlx5_0"
  bool is_gpu = false;
  int index = 0;           // GPU: the nvidia-smi index; NIC: position among the NICs (0-based)
  std::string nic_device;  // NIC: RDMA device from the NIC Legend or the header; "" if not said
  int line = 0;            // the header cell
  int col = 0;
};

struct TopoMatrix {
  std::string file;                 // the name errors and the platform comment use
  int gpu_count = 0;
  std::vector<TopoDevice> devices;  // devices[i] is GPUi for i < gpu_count; then NICs in header order
  std::vector<std::vector<PathEntry>> paths;  // paths[a][b] over devices; symmetric

  // Per GPU, from the affinity columns.
  std::vector<std::string> cpu_affinity;  // as printed ("0-31,64-95", "N/A"); "" without the column
  std::vector<int> numa_node;             // -1 when N/A or without the column
  bool numa_column = false;               // the header has a NUMA Affinity column
  std::vector<int> gpu_numa_id;           // the `GPU NUMA ID` column; -1 when N/A or absent

  // Located notes ("file:line:col: note: ...") on what the file left out and what was assumed:
  // columns elided with `...` (NIC paths not read, affinity left to the path codes).
  std::vector<std::string> notes;

  int nic_count() const { return static_cast<int>(devices.size()) - gpu_count; }
  std::vector<std::string> nic_names() const;  // header labels of the NICs, in order
  const PathEntry& path(int a, int b) const { return paths.at(a).at(b); }
};

// Parses the output of `nvidia-smi topo -m` (tabs or spaces, with or without the terminal's
// underline escapes, with or without the legend). Copies that elide columns with `...` are read
// when every GPU-GPU entry is there: the header's columns after `...` are dropped, a row's
// entries before its `...` fill the columns in header order and the entries after it end in the
// affinity values (or give none); `NUMA` alone is read as `NUMA Affinity` (condensed copies). `file` is used in error locations only.
// Anything it does not understand, a matrix with missing GPU rows, and an inconsistent matrix are
// InputErrors located at the offending cell (1-based line and column).
TopoMatrix parse_topo_matrix(const std::string& text, const std::string& file);

}  // namespace tpsim
