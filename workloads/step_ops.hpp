// The ops of one forward step of a tensor-parallel group, per rank (Megatron sharding):
// per layer: norm, column-parallel QKV GEMM, attention over the KV cache, row-parallel output
// projection, all-reduce of m·d·s bytes, norm, column-parallel gate/up (or up) GEMM, activation,
// row-parallel down GEMM, all-reduce of m·d·s bytes — 2L all-reduces per step. Parallel blocks
// (GPT-J, GPT-NeoX, Falcon) run attention and MLP on the same normed input and sum both outputs
// in one all-reduce: L per step. Weights are read as stored (quantised: model_card.hpp), biases
// with their GEMM (a fused epilogue).
// Around the layers: the embedding lookup (the m rows it needs, not the table, plus m rows of a
// learned position table; the tables are replicated on every rank so no collective is needed),
// the final norm, the vocab-parallel LM head on the last token of each sequence, and an
// all-gather of the logits.
// m is the number of tokens in the step: B for decode, the prompt tokens for prefill.
// Layers differ where the model says so (dense or MoE MLP, full or sliding-window attention):
// each distinct layer is one op list, and each stage runs a count of each.
// Expert parallelism (ep > 1, moe_ops.cpp): the routed experts are spread over the stage's ep
// GPUs; with ep > tp the attention runs data-parallel over ep/tp groups of tp GPUs (DeepSeek's,
// SGLang's and vLLM's large-scale serving), each MoE layer dispatching tokens to their experts
// and combining them back with two all-to-alls over the ep GPUs. Attention variants (MLA,
// sliding windows) are in attention_ops.cpp.
// No SimGrid here: ops in, times are the cost model's business.
#pragma once
#include <string>
#include <vector>

#include "config/model_card.hpp"
#include "util/nccl_terms.hpp"

namespace tpsim {

enum class OpKind { gemm, attention, elementwise, embedding, collective };

struct Op {
  OpKind kind = OpKind::elementwise;
  const char* name = "";
  double m = 0, n = 0, k = 0;     // GEMM shape (tokens x out x in)
  double groups = 1;              // a grouped GEMM (MoE experts): `groups` weight matrices of n x k, m rows over them
  double flops = 0;               // per rank
  double bytes = 0;               // HBM bytes per rank (weights + activations or KV)
  double weight_bytes = 0;        // of which weights
  CollectiveOp collective = CollectiveOp::all_reduce;
  double collective_bytes = 0;    // S, the tensor size as nccl-tests counts it
};

// One sequence in a step: `context` tokens already in the KV cache, `new_tokens` processed now.
struct SequenceWork {
  long context = 0;
  long new_tokens = 1;
};

struct StepOps {
  std::vector<Op> prologue;  // embedding (first pipeline stage)
  std::vector<std::vector<Op>> kinds;          // the distinct layers, in the order they first appear
  std::vector<std::vector<int>> stage_kinds;   // per stage: how many layers of each kind it runs
  std::vector<int> stage_layers;  // layers of each pipeline stage (one entry without PP)
  int tp = 1;                // GPUs of a tensor-parallel group; an all-to-all spans the whole stage
  int attention_dp = 1;      // attention data-parallel groups per stage (ep / tp with EP, else 1)
  Op stage_send;             // activations sent from one stage to the next (send/recv of m·d·s bytes)
  std::vector<Op> epilogue;  // final norm, LM head, logits all-gather (last stage)
  int sequences = 0;         // sequences in the step (host work per sequence, CUDA graph batch limits)
  // Ops in execution order (prologue, each stage's layers kind by kind, epilogue), for counting and tracing.
  std::vector<Op> flatten() const;
  const std::vector<Op>& layer(std::size_t kind = 0) const { return kinds.at(kind); }
};

// The busiest EP rank's routed tokens over the mean when a scenario gives none: 1.30, the low
// end of the inter-rank imbalance measured without load balancing, 1.30-4.01 across MoE models of
// 106B-671B (UltraEP, arXiv 2606.04101v1, abstract; tests/data/measured/SOURCES.md). EPLB-style
// balancing brings it to 1.01-1.04 (same source): set moe_imbalance for a balanced deployment.
constexpr double DEFAULT_MOE_IMBALANCE = 1.30;

// How a replica is split. ep = 1: experts sharded over tp like every MLP.
struct Parallelism {
  int tp = 1;
  int pp = 1;
  int ep = 1;                     // GPUs the routed experts are spread over (a multiple of tp, the stage)
  bool sequence_parallel = false;
  // The busiest EP rank's routed tokens over the mean (>= 1): it sets the MoE layer's pace.
  double moe_imbalance = DEFAULT_MOE_IMBALANCE;
  int attention_dp() const { return ep > tp ? ep / tp : 1; }
};
// Throws ValueError when ep does not fit the model and the split.
void check_ep(const ModelCard& model, const Parallelism& par);

// How a model shards over `tp` ranks; check_tp explains why a degree is impossible.
struct Sharding {
  int tp = 1;
  int heads_per_rank = 0;
  int kv_heads_per_rank = 0;
  bool kv_replicated = false;  // tp > KV heads: each KV head is copied to tp/kv ranks (vLLM)
};
// Throws ValueError when tp does not divide the attention heads, or cannot share KV heads.
Sharding check_tp(const ModelCard& model, int tp);

// `pp` pipeline stages split the layers as evenly as possible (earlier stages take the extra ones).
// `sequence_parallel` (Megatron-style): each layer all-reduce becomes a reduce-scatter, the norm on
// 1/tp of the tokens, and an all-gather — the same bytes on the wire, a tp-th of the norm work.
StepOps step_ops(const ModelCard& model, int tp, const std::vector<SequenceWork>& batch, int pp = 1, bool sequence_parallel = false);
// With attention data parallelism `batch` is the whole EP group's: sequence i runs on attention
// group i mod (ep / tp), and the step's attention is the busiest group's.
StepOps step_ops(const ModelCard& model, const Parallelism& par, const std::vector<SequenceWork>& batch);

// What StepTimer re-times per step: each layer kind's attention op, the kinds and stage_kinds
// numbered as step_ops numbers them, worked out once per model and parallelism.
class StepAttention {
public:
  StepAttention(const ModelCard& model, const Parallelism& par);  // throws as step_ops does
  // Each kind's attention op for `batch` (the busiest attention group's with attention DP) into
  // `out`; returns that group's sequences.
  int ops(const std::vector<SequenceWork>& batch, std::vector<Op>& out) const;
  const std::vector<std::vector<int>>& stage_kinds() const { return stage_kinds_; }

private:
  const ModelCard& model_;
  Parallelism par_;
  Sharding sh_;
  std::vector<long> windows_;  // per kind: its sliding window (0: none)
  std::vector<std::vector<int>> stage_kinds_;
};

// Layers of each of `pp` stages; throws ValueError when pp exceeds the layers.
std::vector<int> stage_layers(const ModelCard& model, int pp);
// Weight bytes held by one rank of the heaviest stage (layers and LM head sharded over TP,
// embedding replicated; the embedding on the first stage, the LM head on the last).
double weight_bytes_per_rank(const ModelCard& model, int tp, int pp = 1, int ep = 1);

// KV-cache bytes of one rank (the layers of the largest stage) for one sequence: full-attention
// layers hold every token, sliding-window layers at most `window` of them (plus the block being
// filled, as vLLM's hybrid allocator frees blocks that fall out of the window).
struct KvFootprint {
  double full_B_per_token = 0;    // full-attention layers
  double window_B_per_token = 0;  // sliding-window layers, per token held
  long window = 0;
  double total_B_per_token() const { return full_B_per_token + window_B_per_token; }
  double sequence_B(double tokens) const;  // full · T + window part · min(T, W)
};
KvFootprint kv_footprint_rank(const ModelCard& model, int tp, int pp = 1);
// KV-cache bytes per token per rank, every layer counted (an upper bound with sliding windows).
double kv_bytes_per_token_rank(const ModelCard& model, int tp, int pp = 1);

}  // namespace tpsim
