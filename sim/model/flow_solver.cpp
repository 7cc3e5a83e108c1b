#include "flow_solver.hpp"

#include <algorithm>
#include <limits>

namespace tpsim {

namespace {

// Max-min fair rates of the active flows by progressive filling.
std::vector<double> fair_rates(const std::vector<SolverFlow>& flows, const std::vector<bool>& active,
                               const std::vector<double>& capacity) {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> rate(flows.size(), 0), left = capacity;
  std::vector<bool> frozen(flows.size(), false);
  for (std::size_t i = 0; i < flows.size(); ++i) frozen[i] = !active[i];
  while (true) {
    std::vector<int> users(capacity.size(), 0);
    bool any = false;
    for (std::size_t i = 0; i < flows.size(); ++i)
      if (!frozen[i]) {
        any = true;
        for (int r : flows[i].resources) ++users[r];
      }
    if (!any) break;
    double step = inf;
    for (std::size_t r = 0; r < capacity.size(); ++r)
      if (users[r] > 0) step = std::min(step, left[r] / users[r]);
    if (step == inf) break;  // flows with no resource: unconstrained
    for (std::size_t i = 0; i < flows.size(); ++i)
      if (!frozen[i]) {
        rate[i] += step;
        for (int r : flows[i].resources) left[r] -= step;
      }
    for (std::size_t i = 0; i < flows.size(); ++i)
      if (!frozen[i])
        for (int r : flows[i].resources)
          if (left[r] <= capacity[r] * 1e-12) frozen[i] = true;
  }
  return rate;
}

}  // namespace

double completion_time(const std::vector<SolverFlow>& flows, const std::vector<double>& capacity) {
  std::vector<double> remaining;
  std::vector<bool> active;
  for (const auto& f : flows) {
    remaining.push_back(f.bytes);
    active.push_back(f.bytes > 0 && !f.resources.empty());
  }
  double now = 0;
  while (std::find(active.begin(), active.end(), true) != active.end()) {
    auto rate = fair_rates(flows, active, capacity);
    double dt = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < flows.size(); ++i)
      if (active[i]) dt = std::min(dt, remaining[i] / rate[i]);
    now += dt;
    for (std::size_t i = 0; i < flows.size(); ++i)
      if (active[i]) {
        remaining[i] -= rate[i] * dt;
        if (remaining[i] <= flows[i].bytes * 1e-12) active[i] = false;
      }
  }
  return now;
}

}  // namespace tpsim
