// Runs a scenario: validates everything first (so bad input never leaves partial output),
// then simulates each configuration — and each sweep point — and decides the winner by the
// scenario's objective, with the numbers that decide it.
#pragma once
#include <functional>
#include <string>

#include "model/results.hpp"
#include "model/trace.hpp"

namespace tpsim {

struct RunOptions {
  bool force_flows = false;                                   // flows even where closed form applies
  bool fast_forward = true;                                   // false: one SimGrid event per step (engine.hpp)
  TraceLog* trace = nullptr;                                  // timeline of the base run (not sweep points)
  std::function<void(const std::string&)> progress;           // called between runs (may be empty)
};

ScenarioResult run_scenario(const Scenario& scenario, const RunOptions& options);

}  // namespace tpsim
