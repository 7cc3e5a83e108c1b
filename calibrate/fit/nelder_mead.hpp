// Nelder-Mead simplex minimisation (deterministic: fixed start simplex, restarts from the
// best vertex until a restart no longer improves). Internal to the fitter.
#pragma once
#include <functional>
#include <vector>

namespace tpsim::fit {

// Minimises `f` from `x0`; the start simplex steps `step` along each coordinate.
std::vector<double> nelder_mead(const std::function<double(const std::vector<double>&)>& f, std::vector<double> x0,
                                double step, int max_evaluations = 20000);

}  // namespace tpsim::fit
