#include "tp_decode_check.hpp"

#include <fmt/format.h>

#include "workloads/step_ops.hpp"

namespace tpsim {

double allreduce_size_B(const ModelCard& model, long tokens) {
  const StepOps ops = step_ops(model, 2, {{0, tokens}});  // kept: layer() refers into it
  for (const auto& op : ops.layer())
    if (op.kind == OpKind::collective) return op.collective_bytes;
  return 0;
}

int allreduces_per_step(const ModelCard& model) {
  int n = 0;
  for (const auto& op : step_ops(model, 2, {{0, 1}}).flatten()) n += op.kind == OpKind::collective && op.collective == CollectiveOp::all_reduce;
  return n;
}

DecodeEstimate estimate_tp2_decode(const CurveReading& r, const ModelCard& model, const GpuChoice& gpu) {
  DecodeEstimate e;
  e.model = model.name;
  e.weight_B = model.weight_bytes();
  e.layers = model.num_layers;
  e.collectives = allreduces_per_step(model);
  e.gpu = gpu;
  e.decode_size_B = allreduce_size_B(model, 1);
  e.alpha_eff_s = r.time_at(e.decode_size_B, &e.alpha_extrapolated);
  e.measured_ranks = r.nranks;
  // Eq. 1.4.7 with n_coll all-reduces: n_coll · alpha* = M_w / (2 B_mem); n_coll = 2L gives M_w / (4 L B_mem).
  e.alpha_star_s = e.weight_B / (2.0 * e.collectives * gpu.hbm_Bps);
  e.margin = e.alpha_star_s / e.alpha_eff_s;
  e.verdict = e.margin > TOO_CLOSE_FACTOR       ? "TP=2 should win on decode"
              : e.margin < 1 / TOO_CLOSE_FACTOR ? "TP=2 should lose on decode"
                                                : "too close to call on decode";
  e.tp1_s = e.weight_B / gpu.hbm_Bps;
  e.tp2_s = e.weight_B / (2 * gpu.hbm_Bps) + e.collectives * e.alpha_eff_s;
  return e;
}

namespace {

SimulatedDecode simulate_one(const ModelCard& model, const GpuModel& gpu, const CollectiveModel& cm, const std::vector<int>& group,
                             int batch, long context) {
  SimulatedDecode s;
  s.tp = int(group.size());
  const StepOps ops = step_ops(model, s.tp, std::vector<SequenceWork>(batch, {context, 1}));
  s.step = plan_step(ops, gpu, cm, group).breakdown;
  for (const auto& op : ops.flatten()) {
    if (op.kind != OpKind::collective || op.collective != CollectiveOp::all_reduce || s.tp < 2) continue;
    ++s.allreduces;
    const CollectivePlan& p = cm.plan(op.collective, op.collective_bytes, group);
    s.per_allreduce_s = p.time_s();
    s.how = fmt::format("{}/{}{}", algorithm_name(p.algorithm), protocol_name(p.protocol), p.calibrated ? ", calibrated" : ", uncalibrated defaults");
  }
  return s;
}

}  // namespace

DecodeSimulation simulate_decode(const ModelCard& model, const GpuModel& gpu, const CollectiveModel& cm, const std::vector<int>& pair,
                                 int batch, long context) {
  DecodeSimulation d;
  d.gpus = pair;
  d.batch = batch;
  d.context = context;
  d.tp1 = simulate_one(model, gpu, cm, {pair.front()}, batch, context);
  d.tp2 = simulate_one(model, gpu, cm, pair, batch, context);
  d.calibration_use = cm.calibration_notes();
  return d;
}

}  // namespace tpsim
