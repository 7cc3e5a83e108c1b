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
  int compute_capability;      // 80 = sm_80 (Ampere), 90 = Hopper, ...: NCCL tunes by it
  double memory_B;             // usable device memory
  double hbm_peak_Bps;         // datasheet memory bandwidth
  double hbm_achievable_Bps;   // measured copy bandwidth (or derived: see `source`)
  double bf16_peak_flops;      // dense tensor-core bf16
  double fp8_peak_flops;       // dense fp8, 0 when the GPU has none
  double matmul_efficiency;    // achievable / peak for large GEMMs
  double kernel_launch_s;      // per-kernel launch + gap without CUDA graphs
  double graph_kernel_s;       // per-kernel gap inside a CUDA graph
  double graph_launch_s;       // one graph launch
  std::string source;          // where the achievable numbers come from
};

const std::vector<GpuSpec>& gpu_catalog();
std::vector<std::string> gpu_names();
// nullptr when unknown.
const GpuSpec* find_gpu(const std::string& name);

}  // namespace tpsim
