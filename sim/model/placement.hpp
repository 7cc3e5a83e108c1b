// `layout: auto`: place k tensor-parallel groups of n GPUs on a platform so that their
// collectives are cheapest and they share the fewest links. Cost of a layout = for each group,
// the time of its prefill all-reduce and of its decode all-reduce (the collective model, the
// group alone), plus, for every link two groups both use, the time the shared link's bytes
// take on it. Exact (branch and bound over every set of groups) when the search is small — boxes
// up to 16 GPUs with groups of up to 4; otherwise a stated greedy heuristic: each group grows
// from the lowest free GPU by adding the GPU whose path to the group is fastest.
#pragma once
#include <string>
#include <vector>

#include "collective_model.hpp"

namespace tpsim {

struct Placement {
  std::vector<std::vector<int>> layout;
  double cost_s = 0;
  bool exact = true;
  std::string reason;  // why this layout: path classes used, and the best layout that differs
};

// Throws ValueError when the platform has fewer than replicas x tp GPUs.
// `replicas` 0 = as many groups as fit.
Placement place_groups(const CollectiveModel& cm, int tp, int replicas, double prefill_bytes, double decode_bytes);
// Groups of different sizes (a mixed split: one TP=2 and two TP=1); the layout lists the groups
// by their first GPU.
Placement place_groups(const CollectiveModel& cm, std::vector<int> sizes, double prefill_bytes, double decode_bytes);

}  // namespace tpsim
