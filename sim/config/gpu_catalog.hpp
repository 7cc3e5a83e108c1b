// Datasheet defaults per GPU model. Peak rates are dense (no sparsity). Achievable fractions
// come from published measurements where we have them (shared data: mamf-finder matmul peaks,
// p2pBandwidthLatencyTest copy bandwidth), otherwise they are derived from a similar GPU and
// marked `derived`. A calibration file replaces them with the user's own measurements.
#pragma once
#include <string>
#include <vector>

namespace tpsim {

struct GpuSpec {
  std::string name;
  int compute_capability = 0;      // 80 = sm_80 (Ampere), 90 = Hopper, ...: NCCL tunes by it
  double memory_B = 0;             // usable device memory
  double hbm_peak_Bps = 0;         // datasheet memory bandwidth
  double hbm_achievable_Bps = 0;   // measured copy bandwidth (or derived: see `source`)
  double bf16_peak_flops = 0;      // dense tensor-core bf16 (fp16 on GPUs without bf16)
  double fp8_peak_flops = 0;       // dense fp8, 0 when the GPU has none
  double matmul_efficiency = 0;    // achievable / peak for large GEMMs
  double kernel_launch_s = 5e-6;   // per-kernel launch + gap without CUDA graphs
  double graph_kernel_s = 1e-6;    // per-kernel gap inside a CUDA graph
  double graph_launch_s = 8e-6;    // one graph launch
  int nvlink_generation = 0;       // 0: none; NVLink 2-4 run 25 GB/s per link and direction, NVLink 5 50 GB/s
  int nvlinks_per_gpu = 0;         // NV# entries adding up to more mean an NVSwitch
  double nvlink_link_Bps = 0;      // one link, one direction, where it is not the generation's (bridges)
  int pcie_generation = 4;
  bool pcie_p2p = true;            // PCIe peer-to-peer with the stock driver (GeForce boards: no)
  std::string source;              // where the achievable numbers come from
};

// One NVLink of the GPU, one direction: its bridges' rate where the table gives one, else the
// generation's (NVLink 2-4 25 GB/s, NVLink 5 50 GB/s); 0 without NVLink.
double nvlink_link_rate_Bps(const GpuSpec& gpu);

const std::vector<GpuSpec>& gpu_catalog();
std::vector<std::string> gpu_names();
// nullptr when unknown.
const GpuSpec* find_gpu(const std::string& name);

// A GPU by tpsim's name or by the name `nvidia-smi --query-gpu=name` prints ("NVIDIA A100 80GB
// PCIe", "Tesla V100-SXM2-32GB", "NVIDIA GeForce RTX 4090"), case-insensitively; nullptr when
// unknown.
const GpuSpec* find_gpu_any_name(const std::string& name);
// Both kinds of name compared after normalise_gpu_name: lowercase, without "nvidia", "tesla",
// "geforce" and anything but letters and digits ("NVIDIA A100-SXM4-80GB" -> "a100sxm480gb").
std::string normalise_gpu_name(const std::string& name);
// "; did you mean 'A100-PCIe-80GB' (nvidia-smi: NVIDIA A100 80GB PCIe)?" for a near name (on
// the normalised forms), "" when none is near.
std::string gpu_name_hint(const std::string& name);

}  // namespace tpsim
