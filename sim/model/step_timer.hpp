// The closed-form time of a replica's steps, fast: a step's ops depend on the batch only through
// its tokens and sequences, but for the attention ops (query-key pairs, KV tokens read, windows).
// So the plan of every other op — its collectives above all — is made once per (tokens,
// sequences) and per step only the attention ops are re-timed; the parts are summed as plan_step
// sums them, so the time is plan_step's closed_form_s() (tests/unit/step_timer_test.cpp).
#pragma once
#include <map>
#include <utility>
#include <vector>

#include "step_cost.hpp"

namespace tpsim {

class StepTimer {
public:
  StepTimer(const ModelCard& model, const Parallelism& parallel, const GpuModel& gpu, const CollectiveModel& collectives,
            std::vector<int> replica);
  double closed_form_s(const std::vector<SequenceWork>& batch);

private:
  const Breakdown& fixed(const std::vector<SequenceWork>& batch, long long tokens, int sequences);

  const ModelCard& model_;
  Parallelism parallel_;
  GpuModel gpu_;
  const CollectiveModel& collectives_;
  std::vector<int> replica_;
  std::map<std::pair<long long, long long>, Breakdown> memo_;  // by (tokens, sequences): attention and host left out
  StepAttention attention_;        // each layer kind's attention op, re-timed per step
  std::vector<Op> attention_ops_;  // its ops for the step being timed
};

}  // namespace tpsim
