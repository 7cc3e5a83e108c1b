// The closed-form time of a replica's steps, fast: a step's ops depend on the batch only through
// its tokens, its sequences and (attention alone) its query-key pairs and KV tokens. So the
// plan of every other op is made once per (tokens, sequences) and only the attention op is
// re-timed per step; the sum is taken in plan_step's order, so the time is plan_step's
// closed_form_s() to the last bit (tests/unit/step_timer_test.cpp).
#pragma once
#include <map>
#include <utility>
#include <vector>

#include "step_cost.hpp"

namespace tpsim {

class StepTimer {
public:
  StepTimer(const ModelCard& model, int pp, bool sequence_parallel, const GpuModel& gpu, const CollectiveModel& collectives,
            std::vector<int> replica);
  double closed_form_s(const std::vector<SequenceWork>& batch);

private:
  struct Fixed {
    Breakdown breakdown;  // the step's, attention left out
  };
  const Fixed& fixed(const std::vector<SequenceWork>& batch, const StepShape& shape);

  const ModelCard& model_;
  int tp_, pp_;
  bool sequence_parallel_;
  GpuModel gpu_;
  const CollectiveModel& collectives_;
  std::vector<int> replica_;
  Sharding sharding_;
  std::vector<int> stage_layers_;
  std::map<std::pair<long long, long long>, Fixed> memo_;  // by (tokens, sequences)
};

}  // namespace tpsim
