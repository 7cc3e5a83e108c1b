// What a run says of its workload where the scenario's lengths are not the whole story: a closed
// batch is per replica, and a trace's reference step takes its mean lengths.
#pragma once
#include <optional>
#include <string>

#include "config/scenario.hpp"

namespace tpsim {

// The grounding line of a closed batch where some configuration has several replicas; nullopt otherwise.
std::optional<std::string> closed_batch_grounding(const Scenario& s);
// A closed batch whose prompts exceed max_batched_tokens: how many prefill steps they take, and the
// budget that prefills them in one pass; nullopt when one step holds them.
std::optional<std::string> prefill_steps_grounding(const Scenario& s);

// For a trace workload: sets the scenario's reference prompt and output to the trace's means and
// returns the grounding line that says so; nullopt (and `s` unchanged) for other workloads.
std::optional<std::string> take_trace_reference(Scenario& s);

}  // namespace tpsim
