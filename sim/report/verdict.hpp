// The verdict: which configuration wins by the scenario's objective, and why, in numbers —
// including what the losers pay (prefill all-reduce over a slow path, weights each GPU reads).
#pragma once
#include "model/results.hpp"

namespace tpsim {

// Fills result.reason and result.derivation from the metric records.
void explain(ScenarioResult& result);

// One line describing a collective plan: "ring/Simple over SYS (host-staged): 25 us + 75.5 MB / 8.1 GB/s bus".
std::string describe_collective(const CollectivePlan& c);

}  // namespace tpsim
