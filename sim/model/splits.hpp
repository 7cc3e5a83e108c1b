// `configs: auto`: every split of a box's GPUs into serving replicas. A split is a list of
// replica shapes (TP x PP GPUs each): uniform splits (k replicas of one shape, PP included) and
// mixed splits of tensor-parallel replicas of different degrees (one TP=2 and two TP=1 on a
// 4-GPU box). Degrees the model cannot shard to (heads, KV heads, layers) are left out and said
// why; memory fit is the scenario runner's (a split that does not fit is listed as such).
// Optionally crossed with engine knobs (max_num_seqs, chunked prefill). Pure combinatorics: the
// placement of each split on the topology is place_groups' (placement.hpp).
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "config/scenario.hpp"

namespace tpsim {

struct ReplicaShape {
  int tp = 1, pp = 1;
  int gpus() const { return tp * pp; }
  bool operator==(const ReplicaShape& o) const { return tp == o.tp && pp == o.pp; }
};

struct Split {
  std::vector<ReplicaShape> replicas;  // largest first
  int gpus() const;
  std::string name() const;            // "4xTP=2", "TP=8", "2xTP=2xPP=2", "TP=4 + 2xTP=2"
};

struct SplitList {
  std::vector<Split> splits;
  std::vector<std::string> left_out;   // degrees the model cannot run, and why
};

// `refuse_tp(t)` / `refuse_pp(p)`: why a degree is impossible ("" = possible).
// `all_gpus`: only splits that use every GPU; otherwise every split of 1..gpus GPUs.
SplitList enumerate_splits(int gpus, bool all_gpus, const std::function<std::string(int)>& refuse_tp,
                           const std::function<std::string(int)>& refuse_pp);

// Prefill/decode disaggregated splits (xPyD): x prefill instances of TP=p and y decode instances of
// TP=d, x, y >= 1, over the given GPUs in their order (every GPU when `all_gpus`, else at most all).
// `refuse_tp(t)` as above. Named as the listed ones are ("2P6D", "1P3D TP=2").
std::vector<ConfigSpec> xpyd_splits(const std::vector<int>& gpus, bool all_gpus, const std::function<std::string(int)>& refuse_tp);

// The configurations a `configs: auto` scenario compares: each split, placed by `layout: auto`
// (ConfigSpec::auto_replicas, replica_tp), crossed with the scenario's engine knobs.
std::vector<ConfigSpec> search_configs(const SearchSpec& search, const std::vector<Split>& splits);

}  // namespace tpsim
