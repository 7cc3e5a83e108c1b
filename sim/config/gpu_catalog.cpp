#include "gpu_catalog.hpp"

namespace tpsim {
namespace {
constexpr double GiB = 1024.0 * 1024 * 1024;
constexpr double GB = 1e9, TB = 1e12, TF = 1e12, US = 1e-6;
const char* MAMF = "matmul: mamf-finder (stas00/ml-engineering)";
}  // namespace

const std::vector<GpuSpec>& gpu_catalog() {
  static const std::vector<GpuSpec> table{
      {"A100-SXM4-40GB", 80, 40 * GiB, 1555 * GB, 1366 * GB, 312 * TF, 0, 267.9 / 312, 5 * US, 1.0 * US, 8 * US,
       std::string(MAMF) + "; HBM: mixbench ~1300-1433 GB/s (ekondis/mixbench#18), midpoint"},
      {"A100-SXM4-80GB", 80, 80 * GiB, 2039 * GB, 1584 * GB, 312 * TF, 0, 267.9 / 312, 5 * US, 1.0 * US, 8 * US,
       std::string(MAMF) + "; HBM: p2pBandwidthLatencyTest local copy 1561-1607 GB/s (NVIDIA/nccl-tests#100)"},
      {"H100-SXM5-80GB", 90, 80 * GiB, 3350 * GB, 2495 * GB, 989 * TF, 1979 * TF, 792.1 / 989, 4 * US, 0.8 * US, 6 * US,
       std::string(MAMF) + "; HBM: p2pBandwidthLatencyTest local copy 2475-2515 GB/s (NVIDIA/nccl#1264)"},
      {"H100-NVL-94GB", 90, 94 * GB, 3900 * GB, 3900 * GB * 2495 / 3350, 835 * TF, 1670 * TF, 792.1 / 989, 4 * US,
       0.8 * US, 6 * US, "derived: H100 SXM achievable fractions applied to the H100 NVL datasheet"},
      {"H200-SXM-141GB", 90, 141 * GB, 4800 * GB, 4800 * GB * 2495 / 3350, 989 * TF, 1979 * TF, 794.5 / 989, 4 * US,
       0.8 * US, 6 * US, std::string(MAMF) + " (H100/H200 row); HBM derived from the H100 copy fraction"},
      {"L40S-48GB", 89, 48 * GB, 864 * GB, 864 * GB * 0.8, 362 * TF, 733 * TF, 0.7, 5 * US, 1.0 * US, 8 * US,
       "derived: datasheet with 80% HBM and 70% matmul efficiency (no published measurement in shared data)"},
      {"RTX4090-24GB", 89, 24 * GB, 1008 * GB, 1008 * GB * 0.85, 165 * TF, 330 * TF, 0.7, 5 * US, 1.0 * US, 8 * US,
       "derived: datasheet with 85% HBM (as RTX 2080 Ti copy/spec) and 70% matmul efficiency"},
      {"RTX2080Ti-11GB", 75, 11 * GB, 616 * GB, 538 * GB, 107 * TF, 0, 0.7, 5 * US, 1.0 * US, 8 * US,
       "HBM: p2pBandwidthLatencyTest D2D 533-543 GB/s (Anthony-Hoo post); fp16 tensor peak, no bf16"},
      {"RTX5090-32GB", 120, 32 * GB, 1792 * GB, 1792 * GB * 0.85, 209.5 * TF, 419 * TF, 0.7, 5 * US, 1.0 * US, 8 * US,
       "derived: datasheet with 85% memory and 70% matmul efficiency"},
      {"B200-SXM-180GB", 100, 180 * GB, 8 * TB, 8 * TB * 0.75, 2250 * TF, 4500 * TF, 1745.0 / 2250, 4 * US, 0.8 * US,
       6 * US, std::string(MAMF) + " (later version); HBM derived from the H100 copy fraction"},
  };
  return table;
}

std::vector<std::string> gpu_names() {
  std::vector<std::string> names;
  for (const auto& g : gpu_catalog()) names.push_back(g.name);
  return names;
}

const GpuSpec* find_gpu(const std::string& name) {
  for (const auto& g : gpu_catalog())
    if (g.name == name) return &g;
  return nullptr;
}

}  // namespace tpsim
