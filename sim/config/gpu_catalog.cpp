#include "gpu_catalog.hpp"

#include <cctype>
#include <utility>

#include "util/spelling.hpp"

namespace tpsim {
namespace {
constexpr double GiB = 1024.0 * 1024 * 1024;
constexpr double GB = 1e9, TB = 1e12, TF = 1e12, US = 1e-6;
const char* MAMF = "matmul: mamf-finder (stas00/ml-engineering)";
}  // namespace

const std::vector<GpuSpec>& gpu_catalog() {
  const std::string mamf = MAMF;
  static const std::vector<GpuSpec> table{
      {.name = "A100-SXM4-40GB", .compute_capability = 80, .memory_B = 40 * GiB, .hbm_peak_Bps = 1555 * GB,
       .hbm_achievable_Bps = 1366 * GB, .bf16_peak_flops = 312 * TF, .matmul_efficiency = 267.9 / 312,
       .nvlink_generation = 3, .nvlinks_per_gpu = 12, .pcie_generation = 4,
       .source = mamf + "; HBM: mixbench ~1300-1433 GB/s (ekondis/mixbench#18), midpoint"},
      {.name = "A100-SXM4-80GB", .compute_capability = 80, .memory_B = 80 * GiB, .hbm_peak_Bps = 2039 * GB,
       .hbm_achievable_Bps = 1584 * GB, .bf16_peak_flops = 312 * TF, .matmul_efficiency = 267.9 / 312,
       .nvlink_generation = 3, .nvlinks_per_gpu = 12, .pcie_generation = 4,
       .source = mamf + "; HBM: p2pBandwidthLatencyTest local copy 1561-1607 GB/s (NVIDIA/nccl-tests#100)"},
      {.name = "A100-PCIe-80GB", .compute_capability = 80, .memory_B = 80 * GiB, .hbm_peak_Bps = 1935 * GB,
       .hbm_achievable_Bps = 1727 * GB, .bf16_peak_flops = 312 * TF, .matmul_efficiency = 256.4 / 312,
       .nvlink_generation = 3, .nvlinks_per_gpu = 12, .pcie_generation = 4,
       .source = mamf + " (A100 PCIe row); HBM: A800 80GB PCIe, same memory, 1727 GB/s (mli/transformers-benchmarks#4); "
                        "NVLink: the bridge's 600 GB/s both ways"},
      {.name = "H100-SXM5-80GB", .compute_capability = 90, .memory_B = 80 * GiB, .hbm_peak_Bps = 3350 * GB,
       .hbm_achievable_Bps = 2495 * GB, .bf16_peak_flops = 989 * TF, .fp8_peak_flops = 1979 * TF,
       .matmul_efficiency = 792.1 / 989, .kernel_launch_s = 4 * US, .graph_kernel_s = 0.8 * US, .graph_launch_s = 6 * US,
       .nvlink_generation = 4, .nvlinks_per_gpu = 18, .pcie_generation = 5,
       .source = mamf + "; HBM: p2pBandwidthLatencyTest local copy 2475-2515 GB/s (NVIDIA/nccl#1264)"},
      {.name = "H100-PCIe-80GB", .compute_capability = 90, .memory_B = 80 * GiB, .hbm_peak_Bps = 2000 * GB,
       .hbm_achievable_Bps = 2000 * GB * 2495 / 3350, .bf16_peak_flops = 756 * TF, .fp8_peak_flops = 1513 * TF,
       .matmul_efficiency = 792.1 / 989, .kernel_launch_s = 4 * US, .graph_kernel_s = 0.8 * US, .graph_launch_s = 6 * US,
       .nvlink_generation = 4, .nvlinks_per_gpu = 12, .pcie_generation = 5,
       .source = "derived: H100 SXM achievable fractions applied to the H100 PCIe datasheet; NVLink: the bridge's 600 GB/s both ways"},
      {.name = "H100-NVL-94GB", .compute_capability = 90, .memory_B = 94 * GB, .hbm_peak_Bps = 3900 * GB,
       .hbm_achievable_Bps = 3900 * GB * 2495 / 3350, .bf16_peak_flops = 835 * TF, .fp8_peak_flops = 1670 * TF,
       .matmul_efficiency = 792.1 / 989, .kernel_launch_s = 4 * US, .graph_kernel_s = 0.8 * US, .graph_launch_s = 6 * US,
       .nvlink_generation = 4, .nvlinks_per_gpu = 12, .pcie_generation = 5,
       .source = "derived: H100 SXM achievable fractions applied to the H100 NVL datasheet; NVLink: the bridge's 600 GB/s both ways"},
      {.name = "H200-SXM-141GB", .compute_capability = 90, .memory_B = 141 * GB, .hbm_peak_Bps = 4800 * GB,
       .hbm_achievable_Bps = 4800 * GB * 2495 / 3350, .bf16_peak_flops = 989 * TF, .fp8_peak_flops = 1979 * TF,
       .matmul_efficiency = 794.5 / 989, .kernel_launch_s = 4 * US, .graph_kernel_s = 0.8 * US, .graph_launch_s = 6 * US,
       .nvlink_generation = 4, .nvlinks_per_gpu = 18, .pcie_generation = 5,
       .source = mamf + " (H100/H200 row); HBM derived from the H100 copy fraction"},
      {.name = "B200-SXM-180GB", .compute_capability = 100, .memory_B = 180 * GB, .hbm_peak_Bps = 8 * TB,
       .hbm_achievable_Bps = 8 * TB * 0.75, .bf16_peak_flops = 2250 * TF, .fp8_peak_flops = 4500 * TF,
       .matmul_efficiency = 1745.0 / 2250, .kernel_launch_s = 4 * US, .graph_kernel_s = 0.8 * US, .graph_launch_s = 6 * US,
       .nvlink_generation = 5, .nvlinks_per_gpu = 18, .pcie_generation = 5,
       .source = mamf + " (later version); HBM derived from the H100 copy fraction"},
      {.name = "H20-96GB", .compute_capability = 90, .memory_B = 96 * GB, .hbm_peak_Bps = 4000 * GB,
       .hbm_achievable_Bps = 4000 * GB * 2495 / 3350, .bf16_peak_flops = 148 * TF, .fp8_peak_flops = 296 * TF,
       .matmul_efficiency = 792.1 / 989, .kernel_launch_s = 4 * US, .graph_kernel_s = 0.8 * US, .graph_launch_s = 6 * US,
       .nvlink_generation = 4, .nvlinks_per_gpu = 18, .pcie_generation = 5,
       .source = "derived: H100 SXM achievable fractions applied to the H20 datasheet"},
      {.name = "GH200-96GB", .compute_capability = 90, .memory_B = 96 * GB, .hbm_peak_Bps = 4000 * GB,
       .hbm_achievable_Bps = 4000 * GB * 2495 / 3350, .bf16_peak_flops = 989 * TF, .fp8_peak_flops = 1979 * TF,
       .matmul_efficiency = 821.0 / 989, .kernel_launch_s = 4 * US, .graph_kernel_s = 0.8 * US, .graph_launch_s = 6 * US,
       .nvlink_generation = 4, .nvlinks_per_gpu = 18, .pcie_generation = 5,
       .source = mamf + " (GH200 row); HBM derived from the H100 copy fraction; the CPU's NVLink-C2C is not modelled"},
      {.name = "V100-SXM2-32GB", .compute_capability = 70, .memory_B = 32 * GiB, .hbm_peak_Bps = 900 * GB,
       .hbm_achievable_Bps = 900 * GB * 0.85, .bf16_peak_flops = 125 * TF, .matmul_efficiency = 0.7,
       .nvlink_generation = 2, .nvlinks_per_gpu = 6, .pcie_generation = 3,
       .source = "derived: datasheet (fp16 tensor peak, no bf16) with 85% HBM and 70% matmul efficiency"},
      {.name = "L40S-48GB", .compute_capability = 89, .memory_B = 48 * GB, .hbm_peak_Bps = 864 * GB,
       .hbm_achievable_Bps = 864 * GB * 0.8, .bf16_peak_flops = 362 * TF, .fp8_peak_flops = 733 * TF,
       .matmul_efficiency = 0.7, .pcie_generation = 4,
       .source = "derived: datasheet with 80% HBM and 70% matmul efficiency (no published measurement in shared data)"},
      // NVIDIA L40 datasheet (as reproduced by resellers, e.g. mullet.se product 355414, L40/L40S
      // table): 48 GB GDDR6, 864 GB/s, BF16 tensor 181.05 TFLOPS dense (362.1 with sparsity), FP8 362,
      // PCIe Gen4 x16, no NVLink.
      {.name = "L40-48GB", .compute_capability = 89, .memory_B = 48 * GB, .hbm_peak_Bps = 864 * GB,
       .hbm_achievable_Bps = 864 * GB * 0.8, .bf16_peak_flops = 181.05 * TF, .fp8_peak_flops = 362 * TF,
       .matmul_efficiency = 0.7, .pcie_generation = 4,
       .source = "derived: datasheet with 80% memory and 70% matmul efficiency (as the L40S row)"},
      // NVIDIA A40 datasheet (reproduced at ecer.com and relationship-nepal.org 900-2G133): 48 GB GDDR6,
      // 696 GB/s, peak BF16 tensor 149.7 TFLOPS dense (299.4 sparse), NVLink bridge 112.5 GB/s
      // bidirectional (two cards), PCIe Gen4.
      {.name = "A40-48GB", .compute_capability = 86, .memory_B = 48 * GB, .hbm_peak_Bps = 696 * GB,
       .hbm_achievable_Bps = 696 * GB * 0.85, .bf16_peak_flops = 149.7 * TF, .matmul_efficiency = 0.7,
       .nvlink_generation = 3, .nvlinks_per_gpu = 4, .nvlink_link_Bps = 112.5 * GB / 8, .pcie_generation = 4,
       .source = "derived: datasheet with 85% memory and 70% matmul efficiency (as the RTX A6000 row, same GA102); "
                 "NVLink bridge 112.5 GB/s both ways over 4 links"},
      // Not in the table: L20, A10G, A30, A800 (SXM, PCIe), H800, RTX 3090, RTX 6000 Ada, RTX PRO 6000
      // Blackwell (server, workstation), V100 SXM2 16 GB, V100 SXM3 32 GB, B300. Their datasheet figures
      // were not found through the project's search tool in the session that added A40 and L40 (the
      // A30 and A800 searches returned no vendor table); a row is added when its datasheet is cited.
      {.name = "L4-24GB", .compute_capability = 89, .memory_B = 24 * GB, .hbm_peak_Bps = 300 * GB,
       .hbm_achievable_Bps = 300 * GB * 0.85, .bf16_peak_flops = 121 * TF, .fp8_peak_flops = 242 * TF,
       .matmul_efficiency = 0.7, .pcie_generation = 4,
       .source = "derived: datasheet with 85% memory and 70% matmul efficiency"},
      {.name = "A10-24GB", .compute_capability = 86, .memory_B = 24 * GB, .hbm_peak_Bps = 600 * GB,
       .hbm_achievable_Bps = 600 * GB * 0.85, .bf16_peak_flops = 125 * TF, .matmul_efficiency = 0.7, .pcie_generation = 4,
       .source = "derived: datasheet with 85% memory and 70% matmul efficiency"},
      {.name = "T4-16GB", .compute_capability = 75, .memory_B = 16 * GB, .hbm_peak_Bps = 320 * GB,
       .hbm_achievable_Bps = 320 * GB * 0.85, .bf16_peak_flops = 65 * TF, .matmul_efficiency = 0.7, .pcie_generation = 3,
       .source = "derived: datasheet (fp16 tensor peak, no bf16) with 85% memory and 70% matmul efficiency"},
      {.name = "RTXA6000-48GB", .compute_capability = 86, .memory_B = 48 * GB, .hbm_peak_Bps = 768 * GB,
       .hbm_achievable_Bps = 768 * GB * 0.85, .bf16_peak_flops = 154.8 * TF, .matmul_efficiency = 0.7,
       .nvlink_generation = 3, .nvlinks_per_gpu = 4, .nvlink_link_Bps = 112.5 * GB / 8, .pcie_generation = 4,
       .source = "derived: datasheet with 85% memory and 70% matmul efficiency; NVLink bridge 112.5 GB/s both ways over 4 links"},
      {.name = "RTXA5000-24GB", .compute_capability = 86, .memory_B = 24 * GB, .hbm_peak_Bps = 768 * GB,
       .hbm_achievable_Bps = 768 * GB * 0.85, .bf16_peak_flops = 111.1 * TF, .matmul_efficiency = 0.7,
       .nvlink_generation = 3, .nvlinks_per_gpu = 4, .nvlink_link_Bps = 112.5 * GB / 8, .pcie_generation = 4,
       .source = "derived: datasheet with 85% memory and 70% matmul efficiency; NVLink bridge 112.5 GB/s both ways over 4 links"},
      {.name = "RTX4090-24GB", .compute_capability = 89, .memory_B = 24 * GB, .hbm_peak_Bps = 1008 * GB,
       .hbm_achievable_Bps = 1008 * GB * 0.85, .bf16_peak_flops = 165 * TF, .fp8_peak_flops = 330 * TF,
       .matmul_efficiency = 0.7, .pcie_generation = 4, .pcie_p2p = false,
       .source = "derived: datasheet with 85% HBM (as RTX 2080 Ti copy/spec) and 70% matmul efficiency"},
      {.name = "RTX2080Ti-11GB", .compute_capability = 75, .memory_B = 11 * GB, .hbm_peak_Bps = 616 * GB,
       .hbm_achievable_Bps = 538 * GB, .bf16_peak_flops = 107 * TF, .matmul_efficiency = 0.7, .nvlink_generation = 2,
       .nvlinks_per_gpu = 2, .pcie_generation = 3, .pcie_p2p = false,
       .source = "HBM: p2pBandwidthLatencyTest D2D 533-543 GB/s (Anthony-Hoo post); fp16 tensor peak, no bf16"},
      {.name = "RTX5090-32GB", .compute_capability = 120, .memory_B = 32 * GB, .hbm_peak_Bps = 1792 * GB,
       .hbm_achievable_Bps = 1792 * GB * 0.85, .bf16_peak_flops = 209.5 * TF, .fp8_peak_flops = 419 * TF,
       .matmul_efficiency = 0.7, .pcie_generation = 5, .pcie_p2p = false,
       .source = "derived: datasheet with 85% memory and 70% matmul efficiency"},
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

namespace {

// tpsim name -> what `nvidia-smi --query-gpu=name` prints for it (drivers of 2020 on; older
// drivers print GeForce cards without the "NVIDIA " prefix, which normalising drops anyway).
const std::vector<std::pair<std::string, std::string>>& smi_names() {
  static const std::vector<std::pair<std::string, std::string>> names{
      {"A100-SXM4-40GB", "NVIDIA A100-SXM4-40GB"},   {"A100-SXM4-80GB", "NVIDIA A100-SXM4-80GB"},
      {"A100-PCIe-80GB", "NVIDIA A100 80GB PCIe"},   {"H100-SXM5-80GB", "NVIDIA H100 80GB HBM3"},
      {"H100-PCIe-80GB", "NVIDIA H100 PCIe"},        {"H100-NVL-94GB", "NVIDIA H100 NVL"},
      {"H200-SXM-141GB", "NVIDIA H200"},             {"B200-SXM-180GB", "NVIDIA B200"},
      {"H20-96GB", "NVIDIA H20"},                    {"GH200-96GB", "NVIDIA GH200 480GB"},
      {"V100-SXM2-32GB", "Tesla V100-SXM2-32GB"},
      {"L40S-48GB", "NVIDIA L40S"},                  {"L40-48GB", "NVIDIA L40"},
      {"L4-24GB", "NVIDIA L4"},                      {"A10-24GB", "NVIDIA A10"},
      {"A40-48GB", "NVIDIA A40"},                    {"T4-16GB", "Tesla T4"},
      {"RTXA6000-48GB", "NVIDIA RTX A6000"},         {"RTXA5000-24GB", "NVIDIA RTX A5000"},
      {"RTX4090-24GB", "NVIDIA GeForce RTX 4090"},   {"RTX2080Ti-11GB", "NVIDIA GeForce RTX 2080 Ti"},
      {"RTX5090-32GB", "NVIDIA GeForce RTX 5090"},
  };
  return names;
}

}  // namespace

std::string normalise_gpu_name(const std::string& name) {
  std::string out;
  for (unsigned char c : name)
    if (std::isalnum(c)) out += char(std::tolower(c));
  for (const char* word : {"nvidia", "tesla", "geforce"})
    for (std::size_t p; (p = out.find(word)) != std::string::npos;) out.erase(p, std::string(word).size());
  return out;
}

const GpuSpec* find_gpu_any_name(const std::string& name) {
  if (const GpuSpec* g = find_gpu(name)) return g;
  const std::string key = normalise_gpu_name(name);
  if (key.empty()) return nullptr;
  for (const auto& g : gpu_catalog())
    if (normalise_gpu_name(g.name) == key) return &g;
  for (const auto& [tpsim, smi] : smi_names())
    if (normalise_gpu_name(smi) == key) return find_gpu(tpsim);
  return nullptr;
}

std::string gpu_name_hint(const std::string& name) {
  std::vector<std::string> keys, shown;
  for (const auto& g : gpu_catalog()) {
    keys.push_back(normalise_gpu_name(g.name));
    shown.push_back("'" + g.name + "'");
  }
  for (const auto& [tpsim, smi] : smi_names())
    if (find_gpu(tpsim)) {
      keys.push_back(normalise_gpu_name(smi));
      shown.push_back("'" + tpsim + "' (nvidia-smi: " + smi + ")");
    }
  const auto near = closest_match(normalise_gpu_name(name), keys);
  if (!near) return "";
  for (std::size_t i = 0; i < keys.size(); ++i)
    if (keys[i] == *near) return "; did you mean " + shown[i] + "?";
  return "";
}

}  // namespace tpsim
