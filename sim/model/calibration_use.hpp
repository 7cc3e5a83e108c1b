// How a calibration entry (one fitted nccl-tests curve) applies to a group of GPUs, and what the
// run says about it. What carries to another box is the ratio to tpsim's default model, not the
// absolute numbers: a line's latency, less the log's serial launches, over the default latency of
// the algorithm it ran at the fitted rank count, times the default latency of the algorithm the
// target runs at its rank count; its bus bandwidth as a fraction of the default model's line on
// the fitted group (model_fraction), times the target's default line (in a file fitted before that
// was recorded: as a fraction of the fitted rings' wire rate, times the target's). A term the curve
// did not measure (a line that wins only where latency dominates says nothing of its bandwidth)
// keeps the default; a line NVLS ran does not stand for a ring, nor a ring for NVLS. A calibration fitted without its platform has no
// wire rate: its bandwidths are absolute, and applied elsewhere they are flagged as such.
#pragma once
#include <optional>
#include <string>

#include "collective_defaults.hpp"
#include "config/calibration.hpp"

namespace tpsim {

struct LineCosts {
  double latency_s = 0;
  double bus_bw_Bps = 0;
  bool calibrated = false;
  double tree_correction = 1.0;  // NCCL's medium-size factor already in bus_bw_Bps (tree_correction())
  double tree_fill_s = 0;        // of latency_s: a Simple tree's chunks stored and forwarded (tree_fill_s())
  double ll_sync_s = 0;          // of latency_s: LL's step synchronisation beyond its data time (ll_sync_s())
  double nvls_pipeline_s = 0;    // of latency_s: NVLS's chunk pipeline (nvls_pipeline_s(); NVLS-tree's: nvls_tree_pipeline_s())
};

struct LineUse {
  LineCosts costs;
  std::string status;  // applied | extrapolated | default
  std::string how;     // one line for the run's report
};

// The entry's line for protocol `p` moved to `target` running algorithm `a` of `op`; `fallback`
// holds the default costs (without serial launches), returned for terms the line cannot give.
// `nodes_scale`: the default bus bandwidth on the target's nodes over that on the fitted number of
// the same nodes (a network line's share of its wire is carried through it; 1 on as many nodes).
// `gpus_per_thread`: the run's launch mode; within the envelope and in the launch mode the log ran,
// the line is the box's own and replays whole, its unmeasured terms as fitted. `algorithm_forced`: the
// run forces `a` (then across nodes a tree line does not stand for a ring, nor a ring line for a tree).
LineUse use_line(const CollectiveCalibration& e, Protocol p, Algorithm a, CollectiveOp op, const GroupSummary& target,
                 const LineCosts& fallback, double nodes_scale, int gpus_per_thread, bool algorithm_forced);

// Below the smallest size the entry measured, its lines and pieces say nothing unless its fitted
// curve is already flat there: the bandwidth term under FLAT_FLOOR_SHARE of the fitted time at
// that size, so that the floor holds (within that share) for every smaller size. A log that starts
// at 1 MiB (`-b 1M`) fits intercepts to sizes where NCCL runs other protocols and channel counts
// than at 8 B (8x A100, -g 8: fitted from 1 MiB up, 54 us at 8 B against the 35 us measured).
// The reason the entry does not apply at `size_B`, or nullopt when it does.
constexpr double FLAT_FLOOR_SHARE = 0.05;
std::optional<std::string> below_measured_sizes(const CollectiveCalibration& e, double size_B);

// Above the largest size the entry measured, its line says nothing of the extra bytes, and a ring's
// bus bandwidth goes on rising past where a log stops: the A100 logs that go on reach 180-204 GB/s
// at 128 MiB and 228-235 at 1 GiB and beyond, whatever their 128 MiB figure (calibrate/recorded,
// tests/data/measured), so a line fitted up to 128 MiB under-reads the ring's rate. From the
// line's time at the largest measured size, the extra bytes go at the faster of the line's bus
// bandwidth and `default_bus_Bps` (the default line's on the group's links): with bus bytes
// B(S) = S x bus_factor and B_max = B(max_size),
//   t(S) = latency + B_max / line_bw + (B(S) - B_max) / default_bw.
// Within one node only: across nodes the recorded 2x HGX H100 log's large sizes stay on one line
// up to 16 GiB (215 us + S / 251.5 GB/s within 0.3%), so a network line holds as fitted.
// Moves c's latency and bandwidth to that line and says how; nullopt (c untouched) within the
// measured sizes, for an entry across nodes, or where the line's own rate is the faster.
std::optional<std::string> above_measured_sizes(const CollectiveCalibration& e, Protocol p, double size_B, double bus_factor,
                                                double default_bus_Bps, LineCosts& c);

// Whether the group is what the entry measured: rank count, nodes, GPU model, wire rate and, across
// nodes, the network transport.
// Only then do the fitted size pieces (NCCL's choices on that box) apply.
bool within_envelope(const CollectiveCalibration& e, const GroupSummary& target);

// Whether two GPU names are one GPU: the same row of the GPU table when both are in it (either kind
// of name: "NVIDIA A100-SXM4-80GB" is A100-SXM4-80GB), else the same normalised name; an empty
// name is unknown and matches. `*_spec` are the names already looked up (find_gpu_any_name).
bool same_gpu(const std::string& a, const GpuSpec* a_spec, const std::string& b, const GpuSpec* b_spec);
bool same_gpu(const std::string& a, const std::string& b);

}  // namespace tpsim
