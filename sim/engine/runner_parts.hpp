// Pieces of the scenario runner (scenario_runner.cpp) that the disaggregated runner
// (pd_runner.cpp) shares. Engine-internal.
#pragma once
#include <vector>

#include "engine.hpp"
#include "model/results.hpp"

namespace tpsim {

// Memory per GPU of configuration `c` (its tp and pp) for the scenario's reference workload.
MemoryFit memory_fit(const ModelCard& m, const ConfigSpec& c, const GpuSpec& gpu, const Scenario& s);
// The scenario's requests for `replicas` replicas that the model's context window admits: drawn lengths
// lose the requests past it (an engine refuses them), counted in r.requests_dropped with a note in
// r.notes; fixed lengths or a trace's row past it throw an InputError at the workload's lengths.
std::vector<Request> served_requests(const Scenario& s, const ModelCard& m, int replicas, ConfigResult& r);
// The first collective of a step's first layer (nullptr when it has none).
// The first collective of the first stage's layers of kind all_to_all, or of any other kind.
const CollectivePlan* first_collective(const StepPlan& p, bool all_to_all = false);
// Serving metrics of a run; moves its records into `r`.
void summarize(ConfigResult& r, RunResult&& run, const Scenario& s);

}  // namespace tpsim
