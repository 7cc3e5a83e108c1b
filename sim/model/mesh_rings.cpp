#include "mesh_rings.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>

namespace tpsim {
namespace {

using Residual = std::vector<std::vector<double>>;

// The cycle (positions into gpus, the first fixed) with the largest smallest residual, then the
// largest residual sum; -1 as its minimum when none has `need` left on every edge.
std::pair<std::vector<int>, double> best_cycle(const Residual& r, double need) {
  const int n = int(r.size());
  std::vector<int> order(n), best;
  std::iota(order.begin(), order.end(), 0);
  double best_min = -1, best_sum = -1;
  do {
    double lo = r[order[n - 1]][order[0]], sum = lo;
    for (int i = 0; i + 1 < n && lo >= need; ++i) lo = std::min(lo, r[order[i]][order[i + 1]]), sum += r[order[i]][order[i + 1]];
    if (lo < need) continue;
    if (lo > best_min * (1 + 1e-12) || (lo >= best_min * (1 - 1e-12) && sum > best_sum * (1 + 1e-12)))
      best_min = lo, best_sum = sum, best = order;
  } while (std::next_permutation(order.begin() + 1, order.end()));
  return {best, best_min};
}

}  // namespace

MeshRingSet mesh_rings(const std::vector<int>& gpus, const std::function<double(int, int)>& cap, int max_rings) {
  const int n = int(gpus.size());
  MeshRingSet best;
  if (n < 3 || n > 8) return best;
  Residual full(n, std::vector<double>(n, 0.0));
  std::set<double> capacities;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (i != j && (full[i][j] = cap(gpus[i], gpus[j])) > 0) capacities.insert(full[i][j]);
  std::set<double, std::greater<>> candidates;
  for (double c : capacities)
    for (int k = 1; k <= 4; ++k) candidates.insert(c / k);
  for (double b : candidates) {
    Residual r = full;
    MeshRingSet set{{}, b};
    while (int(set.rings.size()) < max_rings) {
      const auto [cycle, lo] = best_cycle(r, b * (1 - 1e-9));
      if (lo < 0) break;
      std::vector<int> ring;
      for (int i = 0; i < n; ++i) {
        ring.push_back(gpus[cycle[i]]);
        r[cycle[i]][cycle[(i + 1) % n]] -= b;
      }
      set.rings.push_back(std::move(ring));
    }
    if (!set.rings.empty() && set.total_Bps() > best.total_Bps() * (1 + 1e-9)) best = std::move(set);
  }
  return best;
}

}  // namespace tpsim
