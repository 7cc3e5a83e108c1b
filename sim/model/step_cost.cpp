#include "step_cost.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <memory>

#include <fmt/format.h>

#include "fit/gemm_table.hpp"
#include "kernel_surface.hpp"
#include "util/error.hpp"

namespace tpsim {

Breakdown& Breakdown::operator+=(const Breakdown& o) {
  weights += o.weights, compute += o.compute, attention += o.attention;
  collectives += o.collectives, all_to_all += o.all_to_all, launch += o.launch, host += o.host;
  return *this;
}

Breakdown Breakdown::scaled(double f) const {
  Breakdown b = *this;
  b.weights *= f, b.compute *= f, b.attention *= f, b.collectives *= f, b.all_to_all *= f, b.launch *= f, b.host *= f;
  return b;
}

namespace {

// Steps repeat the same shapes millions of times: each GEMM shape (m, n, k, bytes, groups) is timed once.
std::function<std::optional<double>(const Op&)> memoised_by_shape(std::function<double(const Op&)> time) {
  auto memo = std::make_shared<std::map<std::tuple<long long, long long, long long, long long, long long>, double>>();
  return [time = std::move(time), memo](const Op& op) -> std::optional<double> {
    const std::tuple key{std::llround(op.m), std::llround(op.n), std::llround(op.k), std::llround(op.bytes), std::llround(op.groups)};
    auto it = memo->find(key);
    if (it == memo->end()) it = memo->emplace(key, time(op)).first;
    return it->second;
  };
}

// The calibration's GEMM table as a lookup, when it measured the weights' type (or its sibling:
// tensor cores run bf16 and fp16 at the same rate); else an empty function. Each shape's
// efficiency is taken on `measured_on`'s rates and applied to `target`'s (the same GPU: the
// measured times come back exactly). A grouped GEMM (MoE experts) is its groups' GEMMs, each of
// n x k weights over its share of the rows: groups x time(ceil(m / groups), n, k), each group reading
// its own weights.
std::function<std::optional<double>(const Op&)> calibrated_gemms(const Calibration& cal, double compute_bytes, const fit::GemmRates& measured_on,
                                                                 const fit::GemmRates& target) {
  std::vector<fit::GemmPoint> points;
  for (const auto& p : cal.gemm) points.push_back({p.op, p.m, p.n, p.k, p.dtype, p.time_s, 0});
  auto table = std::make_shared<const fit::GemmTable>(std::move(points));
  std::string dtype = compute_bytes <= 1 ? "fp8" : "bf16";
  if (!table->has_dtype(dtype) && dtype == "bf16") dtype = "fp16";
  if (!table->has_dtype(dtype)) return {};
  return memoised_by_shape([table, dtype, measured_on, target](const Op& op) {
    const double groups = std::max(1.0, op.groups);
    const auto rows = std::max<long long>(1, std::llround(std::ceil(op.m / groups)));
    return groups * table->predict_time_on(rows, std::llround(op.n), std::llround(op.k), dtype, measured_on, target);
  });
}

double peak_flops_of(const GpuSpec& gpu, double compute_bytes) {
  return compute_bytes <= 1 && gpu.fp8_peak_flops > 0 ? gpu.fp8_peak_flops : gpu.bf16_peak_flops;
}

// The GPU a calibration's GEMM and HBM tables measured, when it is not `spec` (nullptr otherwise,
// or when the file does not say).
const GpuSpec* other_tables_gpu(const Calibration* cal, const GpuSpec& spec) {
  return cal && cal->tables_gpu && cal->tables_gpu->name != spec.name ? cal->tables_gpu : nullptr;
}

// Sets g's GEMM lookup to the calibration's table, when it has one for the weights' type: on the
// GPU it measured as measured; on another (`measured_on`, other_tables_gpu), carried by roofline
// ratio on the datasheet rates, as the kernel surface does (the GPU table's achievable rates come
// from different benchmarks).
bool use_calibrated_gemms(GpuModel& g, const GpuSpec& spec, const Calibration& cal, const GpuSpec* measured_on, double compute_bytes) {
  const fit::GemmRates measured = measured_on ? fit::GemmRates{peak_flops_of(*measured_on, compute_bytes), measured_on->hbm_peak_Bps}
                                              : fit::GemmRates{g.peak_flops, g.hbm_Bps};
  const fit::GemmRates target = measured_on ? fit::GemmRates{g.peak_flops, spec.hbm_peak_Bps} : measured;
  if (cal.gemm.empty() || !(g.gemm_lookup = calibrated_gemms(cal, compute_bytes, measured, target))) return false;
  g.gemm_source = measured_on ? fmt::format("the calibration's GEMM table, measured on {} and carried to {} through each shape's "
                                            "roofline (HBM {:.0f} against {:.0f} GB/s, {:.0f} against {:.0f} TFLOP/s)",
                                            measured_on->name, spec.name, measured.hbm_bw_Bps / 1e9, target.hbm_bw_Bps / 1e9,
                                            measured.peak_flops / 1e12, target.peak_flops / 1e12)
                              : "the calibration's GEMM table";
  return true;
}

}  // namespace

GpuModel gpu_model(const GpuSpec& spec, const Scenario& s, const Calibration* cal, double compute_bytes, double attention_bytes) {
  GpuModel g;
  // A copy rate measured on another GPU carries as its share of that GPU's datasheet rate.
  const GpuSpec* measured_on = other_tables_gpu(cal, spec);
  const double copy_share = measured_on ? spec.hbm_peak_Bps / measured_on->hbm_peak_Bps : 1.0;
  g.hbm_Bps = s.hardware.hbm_bandwidth_Bps.value_or(cal && cal->hbm_copy_Bps ? *cal->hbm_copy_Bps * copy_share : spec.hbm_achievable_Bps);
  g.peak_flops = peak_flops_of(spec, compute_bytes);
  g.attention_peak_flops = peak_flops_of(spec, attention_bytes);
  g.matmul_efficiency = s.hardware.matmul_efficiency.value_or(spec.matmul_efficiency);
  g.kernel_launch_s = s.engine.kernel_launch_s.value_or(cal && cal->kernel_launch_s ? *cal->kernel_launch_s : spec.kernel_launch_s);
  g.graph_kernel_s = s.engine.graph_kernel_s.value_or(spec.graph_kernel_s);
  g.graph_launch_s = s.engine.graph_launch_s.value_or(cal && cal->graph_launch_s ? *cal->graph_launch_s : spec.graph_launch_s);
  g.cuda_graphs = s.engine.cuda_graphs;
  g.host_overhead_s = s.engine.host_overhead_s;
  g.host_per_sequence_s = s.engine.host_per_sequence_s;
  g.cuda_graph_max_batch = s.engine.cuda_graph_max_batch;
  g.host_overlap = s.engine.host_overlap;
  const KernelSurface& surface = kernel_surface_for(spec);
  const bool roofline = s.hardware.matmul_efficiency || s.hardware.hbm_bandwidth_Bps;  // the scenario sets it
  g.small_kernel_s = roofline ? 0 : surface.small_kernel_s;
  g.hbm_peak_Bps = spec.hbm_peak_Bps;
  if (cal && use_calibrated_gemms(g, spec, *cal, measured_on, compute_bytes)) return g;
  if (roofline) {
    g.gemm_source = "roofline (hardware.matmul_efficiency / hbm_bandwidth set in the scenario), no small-kernel floor";
  } else {
    g.gemm_lookup = memoised_by_shape([&surface, peak = g.peak_flops, hbm = g.hbm_peak_Bps](const Op& op) {
      return surface_gemm_time(surface, op.m, op.n, op.k, op.flops, op.bytes, peak, hbm);
    });
    g.gemm_source = surface.source;
  }
  return g;
}

double op_time(const Op& op, const GpuModel& gpu, Breakdown* into) {
  const double memory = op.bytes / gpu.hbm_Bps;
  const double peak = op.kind == OpKind::attention && gpu.attention_peak_flops > 0 ? gpu.attention_peak_flops : gpu.peak_flops;
  const double compute = op.flops / (peak * gpu.matmul_efficiency);
  double t = std::max(memory, compute);
  if (op.kind == OpKind::gemm && gpu.gemm_lookup) {
    if (auto measured = gpu.gemm_lookup(op)) t = *measured;  // a measured GEMM time replaces the roofline
  } else {
    t = std::max(t, gpu.small_kernel_s);
  }
  if (into) {
    if (op.kind == OpKind::attention) into->attention += t;
    else if ((op.kind == OpKind::gemm || op.kind == OpKind::embedding) && memory >= compute) into->weights += t;
    else into->compute += t;
  }
  return t;
}

namespace {

// A stage's GPUs: all of them for an all-to-all, the first tensor-parallel group otherwise.
struct StageGroups {
  std::vector<int> stage, tp;
  const std::vector<int>& of(CollectiveOp op) const { return op == CollectiveOp::all_to_all ? stage : tp; }
};

// What segments() adds to as it goes: the step's breakdown, its kernels, and the widest group a
// collective of the step waits on (whose ranks' arrival a step in a CUDA graph waits for once).
struct StepTally {
  Breakdown b;
  int kernels = 0;
  int widest_group = 1;
  // A layer run `times` over.
  void add(const StepTally& layer, int times) {
    b += layer.b.scaled(times);
    kernels += layer.kernels * times;
    widest_group = std::max(widest_group, layer.widest_group);
  }
};

// Turns ops into segments: compute accumulates until a collective closes the segment.
std::vector<Segment> segments(const std::vector<Op>& ops, const GpuModel& gpu, const CollectiveModel& cm,
                              const StageGroups& groups, StepTally& tally, bool graphed, bool with_ops) {
  std::vector<Segment> out(1);
  for (const Op& op : ops) {
    if (op.kind != OpKind::collective) {
      ++tally.kernels;
      const double t = op_time(op, gpu, &tally.b);
      out.back().compute_s += t;
      if (with_ops) out.back().ops.emplace_back(op.name, t);
      continue;
    }
    const std::vector<int>& group = groups.of(op.collective);
    if (group.size() < 2) continue;  // one GPU: no collective kernel is launched
    ++tally.kernels;
    tally.widest_group = std::max(tally.widest_group, int(group.size()));
    out.back().collective = &cm.plan(op.collective, op.collective_bytes, group, graphed);
    (op.collective == CollectiveOp::all_to_all ? tally.b.all_to_all : tally.b.collectives) += out.back().collective->time_s();
    out.emplace_back();
  }
  if (out.back().compute_s == 0 && out.size() > 1) out.pop_back();
  return out;
}

}  // namespace

std::vector<int> stage_gpus(const std::vector<int>& replica, int pp, int stage) {
  const std::size_t per_stage = replica.size() / std::size_t(pp);
  return {replica.begin() + std::ptrdiff_t(stage * per_stage), replica.begin() + std::ptrdiff_t((stage + 1) * per_stage)};
}

StepPlan plan_step(const StepOps& ops, const GpuModel& gpu, const CollectiveModel& cm, const std::vector<int>& replica,
                   bool with_ops) {
  StepPlan plan;
  const std::size_t pp = ops.stage_layers.size(), per_stage = replica.size() / pp;
  auto stage = [&](std::size_t s) {
    StageGroups g{stage_gpus(replica, int(pp), int(s)), {}};
    g.tp.assign(g.stage.begin(), g.stage.begin() + std::min<std::size_t>(std::size_t(std::max(1, ops.tp)), per_stage));
    return g;
  };
  plan.stage_layers = ops.stage_layers;
  const bool graphed = gpu.cuda_graphs && (gpu.cuda_graph_max_batch == 0 || ops.sequences <= gpu.cuda_graph_max_batch);
  StepTally tally;
  plan.prologue = segments(ops.prologue, gpu, cm, stage(0), tally, graphed, with_ops);
  for (std::size_t s = 0; s < pp; ++s) {
    if (s > 0) {
      // Each TP rank sends the activations to its counterpart in the next stage: one pair stands for them.
      Segment send;
      send.collective = &cm.plan(CollectiveOp::send_recv, ops.stage_send.collective_bytes, {replica[(s - 1) * per_stage], replica[s * per_stage]});
      tally.b.collectives += send.collective->time_s();
      plan.sends.push_back(send);
    }
    plan.stage_layer.emplace_back();
    for (std::size_t k = 0; k < ops.kinds.size(); ++k) {
      const int times = ops.stage_kinds[s][k];
      if (times == 0) continue;
      StepTally layer;
      plan.stage_layer.back().push_back({segments(ops.kinds[k], gpu, cm, stage(s), layer, graphed, with_ops), times});
      tally.add(layer, times);
    }
  }
  plan.epilogue = segments(ops.epilogue, gpu, cm, stage(pp - 1), tally, graphed, with_ops);
  plan.breakdown = tally.b;
  // In a CUDA graph the step's collectives wait for no rank's host; the ranks' graph launches do, once.
  plan.breakdown.launch = graphed ? gpu.graph_launch_s + tally.kernels * gpu.graph_kernel_s + cm.step_straggler_s(tally.widest_group)
                                  : tally.kernels * gpu.kernel_launch_s;
  plan.prologue.front().compute_s += plan.breakdown.launch;
  if (with_ops) plan.prologue.front().ops.emplace(plan.prologue.front().ops.begin(), "launch", plan.breakdown.launch);
  const double gpu_time = plan.breakdown.total();
  const double host = gpu.host_overhead_s + gpu.host_per_sequence_s * ops.sequences;
  plan.host_extra_s = gpu.host_overlap ? std::max(0.0, host - gpu_time) : host;
  plan.breakdown.host = plan.host_extra_s;
  return plan;
}

}  // namespace tpsim
