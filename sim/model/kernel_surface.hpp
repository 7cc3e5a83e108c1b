// Default kernel times where no calibration measured them: the published per-op GPU times of
// Microsoft's Vidur simulator (calibrate/recorded/vidur-kernels/, A100 80GB, H100 and A40 tables
// over many models' layer shapes, TP 1-8, m = 1 to 32,768 tokens), built into the binary.
//
// A GEMM on a GPU of the table's family is priced from the reference time at its shape:
//     t = t0 + (t_ref(m, n, k) - t0) * roof_target / roof_ref,     t0 = min(floor, t_ref / 2)
// where t_ref interpolates the table (fit::GemmTable: nearest (n, k), ln-efficiency linear in ln m),
// roof = max(flops / peak, bytes / HBM peak) on each GPU's datasheet (the target's with its own
// weight bytes, quantised or not), and floor is the table's fixed time per GEMM: the intercept of
// t = floor + bytes / BW fitted over its memory-bound rows (m <= 8). So narrow shards and small m
// keep the efficiency the reference measured, and the fixed part does not shrink with a faster GPU.
// Kernels that are not GEMMs (norms, activations, attention at short context) last at least
// `small_kernel_s`: the median of the table's one-token norm, rope, activation and residual-add times.
#pragma once
#include <string>

#include "config/gpu_catalog.hpp"

namespace tpsim {

namespace fit {
class GemmTable;
}

struct KernelSurface {
  std::string name;              // "a100", "h100", "a40"
  std::string reference_gpu;     // the catalog GPU the table was measured on
  const fit::GemmTable* table = nullptr;
  double peak_flops = 0, hbm_peak_Bps = 0;  // the reference GPU's datasheet peaks
  double gemm_floor_s = 0;       // fixed time of one GEMM (see the preamble)
  double gemm_stream_Bps = 0;    // the slope of the same fit: weight-streaming bandwidth
  double small_kernel_s = 0;     // floor of a small non-GEMM kernel
  std::string source;            // provenance, for the run's notes
};

// The table of the GPU's family: compute capability 90 and up (Hopper, Blackwell) -> h100;
// 70 and 80 (V100, A100, A800, A30: HBM datacenter parts) -> a100; the rest (GDDR parts) -> a40.
const KernelSurface& kernel_surface_for(const GpuSpec& gpu);
const KernelSurface& kernel_surface(const std::string& name);  // throws for an unknown name

// Time of one GEMM of the given shape, flops and HBM bytes on a GPU with these peaks (formula above).
double surface_gemm_time(const KernelSurface& s, double m, double n, double k, double flops, double bytes,
                         double peak_flops, double hbm_peak_Bps);

}  // namespace tpsim
