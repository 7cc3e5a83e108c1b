// The GPU table for platform import. Peak rates are dense (no sparsity) bf16 tensor-core rates
// from NVIDIA's datasheets, the same values as sim/config/gpu_catalog.cpp (keep them in step).
#include "topo/topo_gpu_links.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>

#include "util/error.hpp"
#include "util/spelling.hpp"

namespace tpsim {
namespace {

struct GpuRow {
  const char* name;
  int nvlink_generation;  // 0: none
  int nvlinks_per_gpu;
  int pcie_generation;
  double peak_bf16_Tflops;
  bool p2p;  // PCIe peer-to-peer with the stock driver
};

// p2p: GeForce boards report no PCIe P2P with the stock driver (`nvidia-smi topo -p2p` says NS or
// GNS: see tests/data/topo/2xrtx2080ti-pix-no-p2p.source.txt and 2xrtx5090-phb-threadripper.source.txt),
// so NCCL stages their transfers through host memory.
constexpr std::array<GpuRow, 10> GPU_TABLE{{
    {"A100-SXM4-40GB", 3, 12, 4, 312, true},
    {"A100-SXM4-80GB", 3, 12, 4, 312, true},
    {"H100-SXM5-80GB", 4, 18, 5, 989, true},
    {"H100-NVL-94GB", 4, 18, 5, 835, true},  // 1,671 TFLOPS with sparsity
    {"H200-SXM-141GB", 4, 18, 5, 989, true},
    {"L40S-48GB", 0, 0, 4, 362, true},
    {"RTX4090-24GB", 0, 0, 4, 165, false},
    {"RTX2080Ti-11GB", 2, 2, 3, 107, false},  // Turing has no bf16: fp16 tensor rate (fp16 accumulate)
    {"RTX5090-32GB", 0, 0, 5, 209.5, false},
    {"B200-SXM-180GB", 5, 18, 5, 2250, true},
}};

double nvlink_rate(int generation) { return generation >= 5 ? 50e9 : generation > 0 ? 25e9 : 0; }

double pcie_rate(int generation) {
  switch (generation) {
    case 3: return 12e9;
    case 4: return 24e9;
    default: return 48e9;
  }
}

}  // namespace

std::vector<std::string> gpu_model_names() {
  std::vector<std::string> names;
  for (const auto& row : GPU_TABLE) names.emplace_back(row.name);
  return names;
}

GpuLinkSpec gpu_link_spec(const std::string& gpu_model) {
  for (const auto& row : GPU_TABLE) {
    if (gpu_model != row.name) continue;
    GpuLinkSpec spec;
    spec.gpu_model = row.name;
    spec.nvlink_generation = row.nvlink_generation;
    spec.nvlinks_per_gpu = row.nvlinks_per_gpu;
    spec.pcie_generation = row.pcie_generation;
    spec.peak_bf16_flops = row.peak_bf16_Tflops * 1e12;
    spec.p2p = row.p2p;
    spec.nvlink_bw_Bps = nvlink_rate(row.nvlink_generation);
    spec.pcie_bw_Bps = pcie_rate(row.pcie_generation);
    spec.pcie_switch_bw_Bps = 2 * spec.pcie_bw_Bps;
    spec.host_bridge_bw_Bps = 2 * spec.pcie_bw_Bps;
    spec.upi_bw_Bps = 2 * spec.pcie_bw_Bps;
    return spec;
  }
  auto names = gpu_model_names();
  std::string hint = did_you_mean(gpu_model, names);
  if (hint.empty()) hint = fmt::format("; known models: {}", fmt::join(names, ", "));
  throw ValueError(fmt::format("unknown GPU model '{}'{}", gpu_model, hint));
}

}  // namespace tpsim
