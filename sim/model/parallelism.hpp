// A configuration's split as the step generator and the scheduler see it: tensor, pipeline and
// expert parallelism (with attention data parallelism), the MoE load imbalance, the KV blocks'
// shape with sliding-window layers, and the lines a run says about them.
#pragma once
#include <string>
#include <vector>

#include "config/scenario.hpp"
#include "scheduler.hpp"
#include "workloads/step_ops.hpp"

namespace tpsim {

Parallelism parallelism_of(const ConfigSpec& c, const Scenario& s);
// The sliding-window layers' share of a token's KV bytes on one rank, and their window.
KvBlockShape kv_block_shape(const ModelCard& model, int tp, int pp);
// What a run assumes about experts, MLA and sliding windows, one line each ("" entries omitted).
std::vector<std::string> architecture_notes(const ModelCard& model, const Parallelism& par, bool imbalance_given);

}  // namespace tpsim
