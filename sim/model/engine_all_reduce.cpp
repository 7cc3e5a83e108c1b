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

MultimemCost multimem_cost(int compute_capability) {
  return compute_capability >= 100 ? MultimemCost{11.82e-6, 0.284} : MultimemCost{8.33e-6, 0.477};
}

namespace {

// The compute capability the symmetric-memory tier's tables list for this group (90, 100, 103), or 0 where
// it does not run: no tier, no NVSwitch multicast, across nodes, or a GPU or rank count its tables do not list.
int symm_mem_generation(const CustomAllReduce& c, const GroupSummary& g) {
  if (!c.symm_mem || g.nvlink_fabric != "switch" || g.nodes > 1) return 0;
  const auto it = c.symm_mem->max_B.find(g.compute_capability);
  return it != c.symm_mem->max_B.end() && it->second.count(g.nranks) ? g.compute_capability : 0;
}

bool listed(const std::vector<int>& ranks, int n) { return std::find(ranks.begin(), ranks.end(), n) != ranks.end(); }

}  // namespace

CustomAllReduceFit custom_all_reduce_fit(const CustomAllReduce& c, const GroupSummary& g, double size_B) {
  CustomAllReduceFit f;
  const int n = g.nranks;
  const int gen = symm_mem_generation(c, g);
  const double custom_max = gen ? std::min(c.max_bytes, c.symm_mem->custom_max_B.at(gen).at(n)) : c.max_bytes;
  const bool one_shot = n == 2 || size_B < (n <= 4 ? c.one_shot_max_4_B : c.one_shot_max_8_B);
  f.kernel = one_shot ? "one-shot" : "two-shot";
  if (!listed(c.world_sizes, n))
    f.why_not = fmt::format("{} ranks (the kernel runs on {})", n, fmt::join(c.world_sizes, ", "));
  else if (g.nodes > 1)
    f.why_not = "the group spans nodes";
  else if (g.staged)
    f.why_not = "P2P is off between its GPUs (host-staged), and the kernel reads its peers' buffers";
  else if (!(g.all_nvl || (n == 2 && c.pcie_two_gpus)))
    f.why_not = n == 2 ? "no NVLink or PCIe P2P between the two GPUs" : "not every pair of GPUs is on NVLink";
  else if (gen && size_B >= custom_max) {
    const double symm_max = c.symm_mem->max_B.at(gen).at(n);
    f.kernel = listed(c.symm_mem->multimem_ranks.at(gen), n) ? "multimem" : "symmetric-memory two-shot";
    if (size_B >= symm_max) f.why_not = fmt::format("{:.0f} B reaches its symmetric-memory limit, {:.0f} B", size_B, symm_max);
  } else if (size_B > c.max_bytes)
    f.why_not = fmt::format("{:.0f} B exceeds its {:.0f} B buffer", size_B, c.max_bytes);
  else if (!one_shot && !c.two_shot)
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
                                      const GroupSummary& g, double size_B, const std::vector<int>& gpus) {
  CollectivePlan plan;
  plan.op = CollectiveOp::all_reduce;
  plan.nranks = int(gpus.size());
  plan.size_B = size_B;
  plan.engine_kernel = fit.kernel;
  plan.algorithm = Algorithm::direct;
  plan.worst_class = g.worst_class;  // NVLink, or PCIe for two GPUs with P2P (c.pcie_two_gpus)
  const int n = plan.nranks;
  const bool multimem = fit.kernel == "multimem", one_shot = fit.kernel == "one-shot";
  // Multimem: S into the switch and back on each GPU's port, as pair flows of S / (N - 1) through it.
  const MultimemCost mm = multimem_cost(g.compute_capability);
  plan.latency_s = multimem ? mm.latency_s : latency_at(c, n) * (one_shot ? 1 : TWO_SHOT_LATENCY_FACTOR);
  const double per_peer = multimem ? size_B / (n - 1) : one_shot ? size_B : 2 * size_B / n;
  const double eff = multimem ? mm.port_eff : CUSTOM_AR_WIRE_EFF;
  plan.bus_bytes = per_peer * (n - 1);
  std::vector<SolverFlow> solver;
  for (int dst : gpus)
    for (int src : gpus) {
      if (src == dst) continue;
      for (const auto& leg : cm.topology().path(src, dst).legs) {
        solver.push_back(cm.leg_flow(leg, per_peer / eff));
        plan.flows.push_back(Flow{leg, per_peer / eff});
      }
    }
  plan.bandwidth_s = completion_time(solver, cm.resource_capacities());
  plan.bus_bw_Bps = plan.bandwidth_s > 0 ? plan.bus_bytes / plan.bandwidth_s : 0;
  return plan;
}

}  // namespace tpsim
