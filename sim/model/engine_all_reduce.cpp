#include "engine_all_reduce.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>

#include "flow_solver.hpp"

namespace tpsim {

double expected_max_of_normals(int n) {
  if (n < 2) return 0;
  static std::map<int, double> memo;
  if (auto it = memo.find(n); it != memo.end()) return it->second;
  // E[max] = integral of x * n phi(x) Phi(x)^(n-1) dx, midpoint rule on [-10, 10].
  const int steps = 8000;
  const double lo = -10, h = 20.0 / steps;
  double sum = 0;
  for (int i = 0; i < steps; ++i) {
    const double x = lo + (i + 0.5) * h;
    const double phi = std::exp(-x * x / 2) / std::sqrt(2 * M_PI), Phi = 0.5 * std::erfc(-x / std::sqrt(2.0));
    sum += x * n * phi * std::pow(Phi, n - 1) * h;
  }
  return memo[n] = sum;
}

CustomAllReduceFit custom_all_reduce_fit(const CustomAllReduce& c, const GroupSummary& g, double size_B) {
  CustomAllReduceFit f;
  const int n = g.nranks;
  if (std::find(c.world_sizes.begin(), c.world_sizes.end(), n) == c.world_sizes.end())
    f.why_not = fmt::format("{} ranks (the kernel runs on {})", n, fmt::join(c.world_sizes, ", "));
  else if (g.nodes > 1)
    f.why_not = "the group spans nodes";
  else if (g.staged || !(g.all_nvl || (n == 2 && c.pcie_two_gpus)))
    f.why_not = n == 2 ? "no NVLink or PCIe P2P between the two GPUs" : "not every pair of GPUs is on NVLink";
  else if (size_B > c.max_bytes)
    f.why_not = fmt::format("{:.0f} B exceeds its {:.0f} B buffer", size_B, c.max_bytes);
  f.one_shot = n == 2 || size_B < (n <= 4 ? c.one_shot_max_4_B : c.one_shot_max_8_B);
  if (f.why_not.empty() && !f.one_shot && !c.two_shot)
    f.why_not = fmt::format("{:.0f} B is above its one-shot limit and it runs no two-shot", size_B);
  f.applies = f.why_not.empty();
  return f;
}

namespace {

// The profile's latency at 2, 4 and 8 ranks, linear in between.
double latency_at(const CustomAllReduce& c, int n) {
  const double r[] = {2, 4, 8};
  if (n <= 2) return c.latency_s[0];
  for (int i = 1; i < 3; ++i)
    if (n <= r[i]) return c.latency_s[i - 1] + (c.latency_s[i] - c.latency_s[i - 1]) * (n - r[i - 1]) / (r[i] - r[i - 1]);
  return c.latency_s[2];
}

}  // namespace

CollectivePlan custom_all_reduce_plan(const CollectiveModel& cm, const CustomAllReduce& c, const CustomAllReduceFit& fit,
                                      double size_B, const std::vector<int>& gpus) {
  CollectivePlan plan;
  plan.op = CollectiveOp::all_reduce;
  plan.nranks = int(gpus.size());
  plan.size_B = size_B;
  plan.engine_kernel = fit.one_shot ? "one-shot" : "two-shot";
  plan.algorithm = Algorithm::direct;
  plan.worst_class = PathClass::NVL;
  plan.latency_s = latency_at(c, plan.nranks) * (fit.one_shot ? 1 : TWO_SHOT_LATENCY_FACTOR);
  const double per_peer = fit.one_shot ? size_B : 2 * size_B / plan.nranks;
  plan.bus_bytes = per_peer * (plan.nranks - 1);
  std::vector<SolverFlow> solver;
  for (int dst : gpus)
    for (int src : gpus) {
      if (src == dst) continue;
      for (const auto& leg : cm.topology().path(src, dst).legs) {
        solver.push_back(cm.leg_flow(leg, per_peer / CUSTOM_AR_WIRE_EFF));
        plan.flows.push_back(Flow{leg, per_peer / CUSTOM_AR_WIRE_EFF});
      }
    }
  plan.bandwidth_s = completion_time(solver, cm.resource_capacities());
  plan.bus_bw_Bps = plan.bandwidth_s > 0 ? plan.bus_bytes / plan.bandwidth_s : 0;
  return plan;
}

}  // namespace tpsim
