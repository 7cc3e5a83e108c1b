#include "step_timer.hpp"

#include <algorithm>
#include <cmath>

namespace tpsim {

namespace {
constexpr std::size_t MEMO_LIMIT = 1 << 16;  // (tokens, sequences) shapes kept; then the memo starts afresh
}

StepTimer::StepTimer(const ModelCard& model, int pp, bool sequence_parallel, const GpuModel& gpu, const CollectiveModel& collectives,
                     std::vector<int> replica)
    : model_(model), tp_(int(replica.size()) / pp), pp_(pp), sequence_parallel_(sequence_parallel), gpu_(gpu),
      collectives_(collectives), replica_(std::move(replica)), sharding_(check_tp(model, tp_)), stage_layers_(stage_layers(model, pp)) {}

const StepTimer::Fixed& StepTimer::fixed(const std::vector<SequenceWork>& batch, const StepShape& shape) {
  const std::pair key{std::llround(shape.m), std::llround(shape.sequences)};
  auto it = memo_.find(key);
  if (it != memo_.end()) return it->second;
  if (memo_.size() >= MEMO_LIMIT) memo_.clear();
  const StepPlan plan = plan_step(step_ops(model_, tp_, batch, pp_, sequence_parallel_), gpu_, collectives_, replica_);
  Fixed f{plan.breakdown};
  f.breakdown.attention = 0;
  return memo_.emplace(key, f).first->second;
}

double StepTimer::closed_form_s(const std::vector<SequenceWork>& batch) {
  const StepShape shape = shape_of(batch);
  Breakdown b = fixed(batch, shape).breakdown;
  // As plan_step sums it: the layer's attention times its layers, stage by stage.
  const double layer = op_time(attention_op(model_, sharding_, shape), gpu_);
  for (int layers : stage_layers_) b.attention += layer * layers;
  b.host = 0;
  const double gpu_time = b.total();
  b.host = gpu_.host_overlap ? std::max(0.0, gpu_.host_overhead_s - gpu_time) : gpu_.host_overhead_s;
  return b.total();
}

}  // namespace tpsim
