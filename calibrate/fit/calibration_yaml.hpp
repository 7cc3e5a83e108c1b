// The calibration file `tpsim fit` writes, as YAML text (built with plain formatting; the
// reader lives with the simulator's config code). Quantities carry tpsim's units:
// times in `us`, bandwidths in `GBps` (1e9 B/s) or `TBps`, sizes in `B`.
//
//   # written by tpsim fit from: <files>
//   collectives:
//     - source: dgx-h100-8gpu-nvswitch.log
//       op: all_reduce
//       nranks: 8
//       protocols:
//         LL:     { latency: 15.41us, bus_bandwidth: 1.594GBps, fitted: true }
//         LL128:  { latency: 18.56us, bus_bandwidth: 214.9GBps, fitted: true }
//         Simple: { latency: 66.72us, bus_bandwidth: 467.6GBps, fitted: true }
//       residuals: { median: 0.0293, worst: 0.2121, worst_size: 4096B, min_size: 1024B }
//   gpu: H100-SXM5-80GB        # with a GEMM or HBM csv that says its GPU (or tpsim fit --gpu)
//   gemm:                      # only with a GEMM csv
//     - { op: qkv, m: 1, n: 6144, k: 4096, dtype: bf16, time: 12.5us }
//   hbm_copy_bandwidth: 4.1TBps   # only with an HBM csv; read + write counted
//
// When the measured curve follows NCCL's choice by size rather than the fastest protocol
// (see collective_fit.hpp), a `pieces` list follows the protocols, in size order; every piece
// but the last carries `max_size: <bytes>B`, and a size runs on the first piece whose
// max_size it does not exceed, e.g.
//       pieces:
//         - { algorithm: tree, protocol: LL,     latency: 37.96us, bus_bandwidth: 1.136GBps, max_size: 4096B }
//         ...
//         - { algorithm: ring, protocol: Simple, latency: 428.1us, bus_bandwidth: 71.59GBps }
// The protocols block is then still the fastest-protocol fit: the model's defaults when a
// scenario forces a protocol or an algorithm.
// A protocol with `fitted: false` repeats the values of the fitted protocol named in its
// comment (it is the fastest at no measured size); a run reads it as measuring neither term
// and takes the defaults for that protocol (sim/config/calibration.cpp).
// The residuals line covers sizes >= 1 KiB; a comment above it gives them over all sizes.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "collective_fit.hpp"
#include "gemm_table.hpp"

namespace tpsim::fit {

struct CalibrationInputs {
  std::vector<std::string> files;  // as the user named them, then the options that shaped the fit: the first comment line
  std::vector<CollectiveFit> collectives;
  std::optional<GemmTable> gemm;
  std::optional<HbmFit> hbm;
  std::string gpu{};  // the GPU the GEMM and HBM tables were measured on (tpsim's name; "" when not known)
};

std::string calibration_yaml(const CalibrationInputs& in);

// `x` with `significant` significant digits, fixed notation, trailing zeros dropped:
// 15.405 -> "15.41", 480.0 -> "480", 0.0015936 -> "0.001594".
std::string format_significant(double x, int significant);

}  // namespace tpsim::fit
