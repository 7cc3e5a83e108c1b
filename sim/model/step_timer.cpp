#include "step_timer.hpp"

#include <algorithm>
#include <cmath>

namespace tpsim {

namespace {
constexpr std::size_t MEMO_LIMIT = 1 << 16;  // (tokens, sequences) shapes kept; then the memo starts afresh
}

StepTimer::StepTimer(const ModelCard& model, const Parallelism& parallel, const GpuModel& gpu, const CollectiveModel& collectives,
                     std::vector<int> replica)
    : model_(model), parallel_(parallel), gpu_(gpu), collectives_(collectives), replica_(std::move(replica)), attention_(model, parallel) {}

const Breakdown& StepTimer::fixed(const std::vector<SequenceWork>& batch, long long tokens, int sequences) {
  const std::pair key{tokens, (long long)sequences};
  auto it = memo_.find(key);
  if (it != memo_.end()) return it->second;
  if (memo_.size() >= MEMO_LIMIT) memo_.clear();
  Breakdown b = plan_step(step_ops(model_, parallel_, batch), gpu_, collectives_, replica_).breakdown;
  b.attention = 0, b.host = 0;
  return memo_.emplace(key, b).first->second;
}

double StepTimer::closed_form_s(const std::vector<SequenceWork>& batch) {
  const int sequences = attention_.ops(batch, attention_ops_);
  long long tokens = 0;
  for (const auto& s : batch) tokens += s.new_tokens;
  Breakdown b = fixed(batch, tokens, sequences);
  // As plan_step sums it: each stage's layers kind by kind, each kind's one attention op.
  for (const auto& counts : attention_.stage_kinds())
    for (std::size_t kind = 0; kind < counts.size(); ++kind) b.attention += op_time(attention_ops_[kind], gpu_) * counts[kind];
  const double gpu_time = b.total();
  const double host = gpu_.host_overhead_s + gpu_.host_per_sequence_s * sequences;
  b.host = gpu_.host_overlap ? std::max(0.0, host - gpu_time) : host;
  return b.total();
}

}  // namespace tpsim
