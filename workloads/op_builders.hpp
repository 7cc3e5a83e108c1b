// The op builders the step generator shares (internal to workloads/): GEMMs, elementwise ops and
// collectives as ops, the step's shape, attention (attention_ops.cpp) and MoE (moe_ops.cpp).
#pragma once
#include <vector>

#include "step_ops.hpp"

namespace tpsim::op_builders {

// `weight_bytes`: the weight shard as stored (quantised or not) and its bias, read once per step.
Op gemm(const char* name, double m, double n, double k, double weight_bytes);
Op elementwise(const char* name, double elements, double flops_per_element);
Op collective(const char* name, CollectiveOp kind, double bytes);

// The step's shape: tokens, query-key pairs (causal) and KV tokens read, every sequence's keys
// bounded by `window` when it is > 0 (sliding-window attention).
struct StepShape {
  double m = 0, pairs = 0, kv_tokens = 0, sequences = 0;
};
StepShape shape_of(const std::vector<SequenceWork>& batch, long window = 0);

// QKV (or MLA's projections), attention over the KV cache and the output projection of one
// layer on one TP rank; `window` > 0: a sliding-window layer.
void attention_ops(std::vector<Op>& L, const ModelCard& model, const Sharding& sh, const std::vector<SequenceWork>& batch, long window);
// The attention op alone of attention_ops (no projections).
Op attention_op(const ModelCard& model, const Sharding& sh, const std::vector<SequenceWork>& batch, long window);

// One MoE layer's MLP on one GPU: router, routed experts (sharded over TP, or spread over EP
// with the dispatch and combine all-to-alls), shared experts. `m_rank`: the tokens of this
// GPU's attention group; `m_group`: the tokens of all the EP group's attention groups.
void moe_ops(std::vector<Op>& L, const ModelCard& model, const Parallelism& par, double m_rank, double m_group);

}  // namespace tpsim::op_builders
