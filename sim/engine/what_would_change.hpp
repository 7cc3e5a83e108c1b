// What would change the answer: for each input that decides the verdict, the value at which
// the winner changes and to what, found by scan and bisection (model/threshold_search.hpp) on
// the sweep machinery (apply_sweep_value). By default it probes the model's size (layers scaled,
// model.weight_bytes), the prompt and output lengths (when fixed), the arrival rate (open
// arrivals), the bandwidth and latency of the link kinds that carry the configurations'
// collectives, the whole SYS route's bandwidth where a collective crosses it, P2P off and at
// every level, and the other objectives (re-scored, no new run). A scenario's
// `what_would_change:` list replaces the defaults; a range that does not hold the scenario's own
// value is an input error, located at its entry.
//
// Cost: every evaluation re-plans each configuration's reference steps (cheap) and simulates
// only the configurations that can still win: one whose uncontended reference steps already
// lose to a simulated one is not run (closed batches of fixed lengths, latency objectives).
#pragma once
#include <vector>

#include "scenario_eval.hpp"

namespace tpsim {

// Checks the scenario's own `what_would_change:` list against its inputs (a parameter without a
// value to start from, a range that does not hold that value); throws located InputErrors.
// Called before anything is simulated.
void check_what_would_change(const Scenario& s, const Inputs& in);
// `base` holds the base run's configurations and winner. Throws InputError for a bad range.
// `scope` is set when the probes re-run only some configurations of a search (contenders in the .cpp).
std::vector<Change> what_would_change(const Scenario& s, const Inputs& in, const ScenarioResult& base, const RunOptions& opt,
                                      std::string& scope);

// The winner at a probe by the rule the base run chose by: a search for the fewest GPUs takes, among
// the configurations that fit and meet the SLOs, the fewest GPUs (the objective's best among them);
// otherwise the objective's best (winner_of), the incumbent (the base run's winner) where it ties it.
std::string probe_winner(const Scenario& s, const std::vector<ConfigResult>& at, const std::string& incumbent = "");

}  // namespace tpsim
