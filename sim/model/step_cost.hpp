// GPU time of the ops of one step, and the plan the engine executes. A GEMM takes its time from
// a calibrated GEMM table when the calibration has one, else from the default kernel surface
// (kernel_surface.hpp: published per-shape times carried to this GPU by roofline ratio), else
// (hardware.matmul_efficiency set) from the roofline
//   op time = max(flops / (peak · efficiency), bytes / achievable HBM bandwidth).
// Other ops run at the roofline but no faster than a small kernel's floor.
// GEMMs whose memory term wins are weight reads, the others compute; attention is its own
// category; launch overhead is one CUDA graph launch plus a small per-kernel gap per step when
// CUDA graphs are on, a launch per kernel otherwise. Host time per step overlaps the GPU
// (max) or adds to it (sum), as the engine spec says.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "collective_model.hpp"
#include "config/gpu_catalog.hpp"

namespace tpsim {

// collectives: all-reduce, all-gather, reduce-scatter, stage sends; all_to_all: MoE dispatch
// and combine (expert parallelism), apart so a step shows what EP costs.
struct Breakdown {
  double weights = 0, compute = 0, attention = 0, collectives = 0, all_to_all = 0, launch = 0, host = 0;
  double total() const { return weights + compute + attention + collectives + all_to_all + launch + host; }
  Breakdown& operator+=(const Breakdown& o);
  Breakdown scaled(double f) const;
};

// One GPU as the cost model sees it, after calibration and scenario overrides.
struct GpuModel {
  double hbm_Bps = 0;
  double hbm_peak_Bps = 0;         // datasheet, for the kernel surface's roofline ratio
  double small_kernel_s = 0;       // floor of a non-GEMM kernel (kernel_surface.hpp)
  double peak_flops = 0;            // GEMMs': at the weights' compute type (ModelCard::compute_bytes)
  double attention_peak_flops = 0;  // attention's: at the KV cache's element type, whatever the weights'
  double matmul_efficiency = 1;
  double kernel_launch_s = 0, graph_kernel_s = 0, graph_launch_s = 0;
  bool cuda_graphs = true;
  double host_overhead_s = 0;
  double host_per_sequence_s = 0;  // host time per sequence in the step
  int cuda_graph_max_batch = 0;    // steps with more sequences run without graphs (0: no limit)
  bool host_overlap = true;
  // A GEMM's time from a measured table (the calibration's, or the default surface), else nullopt.
  std::function<std::optional<double>(const Op& gemm)> gemm_lookup;
  std::string gemm_source;         // where GEMM times come from, said in the run's notes
};

// `compute_bytes`: the GEMMs' element size (ModelCard::compute_bytes): 1 runs them at the fp8 peak.
// `attention_bytes`: the KV cache's element size: attention over a 16-bit cache runs at the 16-bit peak
// even when the weights are fp8 (W8A8 quantises the GEMMs' inputs, not the attention's).
GpuModel gpu_model(const GpuSpec& spec, const Scenario& scenario, const Calibration* calibration, double compute_bytes,
                   double attention_bytes);

// Time and category of one non-collective op.
double op_time(const Op& op, const GpuModel& gpu, Breakdown* into = nullptr);

// What the engine runs: compute for `compute_s`, then the collective (if any).
struct Segment {
  double compute_s = 0;
  const CollectivePlan* collective = nullptr;
  std::vector<std::pair<const char*, double>> ops;  // (op, time) making up compute_s, when asked for (traces)
};

// The layers of one kind a stage runs: one layer's segments, `times` over.
struct LayerRun {
  std::vector<Segment> segments;
  int times = 0;
};

struct StepPlan {
  std::vector<Segment> prologue, epilogue;     // on the first / last pipeline stage
  // Per stage, per layer kind it runs: its segments (collectives on that stage's GPUs) and count.
  // A stage runs its layers kind by kind (the same time as in model order).
  std::vector<std::vector<LayerRun>> stage_layer;
  std::vector<int> stage_layers;               // layers per stage
  std::vector<Segment> sends;                  // activations from stage s to s + 1
  // The step in execution order: calls `run` on each segment list, `times` times.
  template <class Run> void for_each(Run run) const {
    run(prologue, 1);
    for (std::size_t s = 0; s < stage_layer.size(); ++s) {
      if (s > 0) run(std::vector<Segment>{sends[s - 1]}, 1);
      for (const auto& r : stage_layer[s]) run(r.segments, r.times);
    }
    run(epilogue, 1);
  }
  double host_extra_s = 0;   // host time not hidden behind the GPU, added at the end of the step
  Breakdown breakdown;       // uncontended (collectives as the group alone)
  double closed_form_s() const { return breakdown.total(); }
};

// Stage `stage` of a replica that lists its `pp` stages' GPUs one after the other.
std::vector<int> stage_gpus(const std::vector<int>& replica, int pp, int stage);

// `replica` lists the replica's GPUs, stage by stage. A stage's all-to-alls span all its GPUs;
// its other collectives run on its first ops.tp GPUs (one attention group stands for them all).
// `with_ops`: keep each op's time in its segment (for traces; costs allocations on a hot path).
StepPlan plan_step(const StepOps& ops, const GpuModel& gpu, const CollectiveModel& collectives, const std::vector<int>& replica,
                   bool with_ops = false);

}  // namespace tpsim
