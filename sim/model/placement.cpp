#include "placement.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <limits>
#include <functional>
#include <map>

#include "util/error.hpp"
#include "util/units.hpp"

namespace tpsim {
namespace {

// The most layouts the exact search enumerates, and the most distinct groups it costs (a collective plan
// each, about 2 ms across nodes); beyond, the greedy one places the groups.
constexpr double MAX_EXACT_LAYOUTS = 20000, MAX_EXACT_GROUPS = 2000;

class Search {
public:
  // `sizes`: GPUs of each group, largest first.
  Search(const CollectiveModel& cm, std::vector<int> sizes, double prefill, double decode)
      : cm_(cm), sizes_(std::move(sizes)), k_(int(sizes_.size())), prefill_(prefill), decode_(decode),
        capacity_(cm.resource_capacities()) {
    for (const auto& g : cm.topology().platform().gpus) gpus_.push_back(g.index);
    for (int n : sizes_) ++left_[n], needed_ += n;
  }

  double group_cost(const std::vector<int>& g) {
    auto it = group_cost_.find(g);
    if (it != group_cost_.end()) return it->second;
    double c = 0;
    if (g.size() > 1) {
      try {
        c = cm_.plan(CollectiveOp::all_reduce, prefill_, g).time_s() + cm_.plan(CollectiveOp::all_reduce, decode_, g).time_s();
      } catch (const ValueError&) {
        c = std::numeric_limits<double>::infinity();  // some pair of the group is not connected
      }
    }
    return group_cost_[g] = c;
  }

  // The link resources a group's all-reduce uses, computed once a group (routes are the search's cost).
  const std::vector<int>& resources(const std::vector<int>& g) {
    auto it = resources_.find(g);
    if (it != resources_.end()) return it->second;
    std::vector<int> r;
    for (const auto& l : cm_.links_used(g)) r.push_back(cm_.resource_of(l));
    return resources_[g] = std::move(r);
  }

  // Extra time when a group's links are already used by placed groups: their bus bytes on the shared link.
  double sharing_cost(const std::vector<int>& g) {
    if (g.size() < 2) return 0;
    double c = 0;
    const double bytes = prefill_ * bus_factor(CollectiveOp::all_reduce, int(g.size()));
    for (int r : resources(g)) {
      auto u = use_.find(r);
      if (u != use_.end() && u->second > 0) c += bytes / capacity_[r];
    }
    return c;
  }

  void use(const std::vector<int>& g, int delta) {
    if (g.size() < 2) return;
    for (int r : resources(g)) use_[r] += delta;
  }

  // Branch and bound keeping the best two layouts.
  void exact(std::size_t from, std::vector<bool>& taken, std::vector<std::vector<int>>& groups, double cost) {
    if (cost >= second_.cost_s) return;
    if (int(groups.size()) == k_) {
      if (cost < best_.cost_s) second_ = best_, best_ = {groups, cost, true, ""};
      else second_ = {groups, cost, true, ""};
      return;
    }
    for (std::size_t f = from; f < gpus_.size(); ++f) {
      if (taken[f]) continue;
      if (int(gpus_.size() - f) < needed_) break;
      taken[f] = true;
      for (auto& [size, left] : left_) {  // a group of each size still to place starts at gpus_[f]
        if (left == 0) continue;
        std::vector<int> g{gpus_[f]};
        --left, needed_ -= size;
        choose(f + 1, f, size, g, taken, groups, cost);
        ++left, needed_ += size;
      }
      taken[f] = false;
    }
  }

  // Completes the group started at gpus_[first]; groups are enumerated by increasing first GPU.
  void choose(std::size_t next, std::size_t first, int size, std::vector<int>& g, std::vector<bool>& taken,
              std::vector<std::vector<int>>& groups, double cost) {
    if (int(g.size()) == size) {
      const double add = group_cost(g) + sharing_cost(g);
      groups.push_back(g);
      use(g, +1);
      exact(first + 1, taken, groups, cost + add);
      use(g, -1);
      groups.pop_back();
      return;
    }
    for (std::size_t i = next; i < gpus_.size(); ++i) {
      if (taken[i]) continue;
      taken[i] = true;
      g.push_back(gpus_[i]);
      choose(i + 1, first, size, g, taken, groups, cost);
      g.pop_back();
      taken[i] = false;
    }
  }

  Placement greedy() {
    std::vector<bool> taken(gpus_.size(), false);
    Placement p{{}, 0, false, ""};
    for (int r = 0; r < k_; ++r) {
      const int tp = sizes_[r];
      std::size_t f = 0;
      while (taken[f]) ++f;
      std::vector<int> g{gpus_[f]};
      taken[f] = true;
      while (int(g.size()) < tp) {
        std::size_t best = gpus_.size();
        double best_t = std::numeric_limits<double>::infinity();
        for (std::size_t i = 0; i < gpus_.size(); ++i) {
          if (taken[i]) continue;
          double t = 0;
          for (int m : g) {
            const GpuPath& path = cm_.topology().path(m, gpus_[i], tp);
            t = std::max(t, path.latency_s + prefill_ / path.bottleneck_Bps);
          }
          if (t < best_t) best_t = t, best = i;
        }
        g.push_back(gpus_[best]);
        taken[best] = true;
      }
      std::sort(g.begin(), g.end());
      p.cost_s += group_cost(g) + sharing_cost(g);
      use(g, +1);
      p.layout.push_back(g);
    }
    return p;
  }

  // The layouts the exact search may visit: which `needed_` of the n GPUs, then their partition into
  // the groups, n! / ((n - needed)! prod size! prod multiplicity!).
  double layouts() const {
    const int n = int(gpus_.size());
    double log_count = std::lgamma(n + 1.0) - std::lgamma(n - needed_ + 1.0);
    for (int size : sizes_) log_count -= std::lgamma(size + 1.0);
    for (const auto& [size, count] : left_) log_count -= std::lgamma(count + 1.0);
    return std::exp(log_count);
  }

  // The distinct groups it may cost (each a collective plan): C(n, size) for each size.
  double groups() const {
    const int n = int(gpus_.size());
    double count = 0;
    for (const auto& [size, left] : left_)
      count += std::exp(std::lgamma(n + 1.0) - std::lgamma(size + 1.0) - std::lgamma(n - size + 1.0));
    return count;
  }

  Placement run() {
    const int n = int(gpus_.size());
    if (needed_ > n)
      throw ValueError(fmt::format("layout: auto needs {} GPUs; {} has {}", needed_, cm_.topology().platform().file, n));
    // Exact while the layouts and the groups to cost are few (2 nodes' 16 GPUs into groups of 4: 2.6 million layouts, and
    // into two of 8, 12,870 groups: each ran for minutes; 8 GPUs into pairs: 105 layouts of 28 groups); or one group
    // takes every GPU: a single layout.
    if ((layouts() <= MAX_EXACT_LAYOUTS && groups() <= MAX_EXACT_GROUPS) || sizes_.front() == n) {
      std::vector<bool> taken(gpus_.size(), false);
      std::vector<std::vector<int>> groups;
      best_.cost_s = second_.cost_s = std::numeric_limits<double>::infinity();
      exact(0, taken, groups, 0);
      return best_;
    }
    return greedy();
  }

  const Placement& runner_up() const { return second_; }

private:
  const CollectiveModel& cm_;
  std::vector<int> sizes_;
  int k_;
  std::map<int, int, std::greater<int>> left_;  // groups of each size still to place, largest first
  int needed_ = 0;                               // their GPUs
  double prefill_, decode_;
  std::vector<double> capacity_;
  std::vector<int> gpus_;
  std::map<std::vector<int>, double> group_cost_;
  std::map<std::vector<int>, std::vector<int>> resources_;
  std::map<int, int> use_;
  Placement best_, second_;
};

std::string describe(const CollectiveModel& cm, const std::vector<std::vector<int>>& layout) {
  std::vector<std::string> parts;
  for (const auto& g : layout) {
    PathClass worst = PathClass::NVL;
    for (std::size_t i = 0; i + 1 < g.size() + (g.size() > 2); ++i)
      worst = std::max(worst, cm.topology().path(g[i], g[(i + 1) % g.size()]).path_class);
    parts.push_back(fmt::format("({}) {}", fmt::join(g, ","), g.size() > 1 ? path_class_name(worst) : "single GPU"));
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace

Placement place_groups(const CollectiveModel& cm, int tp, int replicas, double prefill_bytes, double decode_bytes) {
  const int k = replicas > 0 ? replicas : int(cm.topology().platform().gpus.size()) / tp;
  return place_groups(cm, std::vector<int>(std::max(1, k), tp), prefill_bytes, decode_bytes);
}

Placement place_groups(const CollectiveModel& cm, std::vector<int> sizes, double prefill_bytes, double decode_bytes) {
  std::sort(sizes.begin(), sizes.end(), std::greater<int>());
  Search search(cm, sizes, prefill_bytes, decode_bytes);
  Placement p = search.run();
  p.reason = fmt::format("{} search placed {}: one {} prefill and one {} decode all-reduce in every group take {} in all",
                         p.exact ? "exact"
                                 : fmt::format("greedy (heuristic: more than {:.0f} layouts or {:.0f} groups to try)", MAX_EXACT_LAYOUTS,
                                               MAX_EXACT_GROUPS),
                         describe(cm, p.layout),
                         format_size(prefill_bytes), format_size(decode_bytes), format_time(p.cost_s));
  const Placement& alt = search.runner_up();
  if (p.exact && !alt.layout.empty() && std::isfinite(alt.cost_s))
    p.reason += fmt::format(" (with the time shared links add); the best other layout, {}, would take {}", describe(cm, alt.layout),
                            format_time(alt.cost_s));
  return p;
}

}  // namespace tpsim
