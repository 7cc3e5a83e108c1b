// What an actor needs to execute a step of a run in progress (engine.cpp's replicas and
// disaggregated.cpp's instances share it): the run's spec, its start on the engine clock and the
// result it adds to. Engine-internal: included by the engine's .cpp files only.
#pragma once
#include <vector>

#include "engine.hpp"

namespace tpsim {

struct StepEnv {
  const RunSpec* spec = nullptr;  // model, collectives, trace
  double start = 0;               // the run's start on the engine clock
  RunResult result;
};

// Executes one step of the GPUs `gpus` on the calling actor: the closed form (one sleep), or,
// with `flows` or a trace, segment by segment with every collective's bandwidth part as flows.
void execute_step(const StepPlan& plan, StepEnv& env, const std::vector<int>& gpus, bool flows);

}  // namespace tpsim
