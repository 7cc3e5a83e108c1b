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
  std::vector<Op> layer;     // one transformer layer, repeated stage_layers[s] times on stage s
  std::vector<int> stage_layers;  // layers of each pipeline stage (one entry without PP)
  Op stage_send;             // activations sent from one stage to the next (send/recv of m·d·s bytes)
  std::vector<Op> epilogue;  // final norm, LM head, logits all-gather (last stage)
  // Ops in execution order (prologue, layers x layer, epilogue), for counting and tracing.
  std::vector<Op> flatten() const;
};

// How a model shards over `tp` ranks; check_tp explains why a degree is impossible.
struct Sharding {
  int tp = 1;
  int heads_per_rank = 0;
  int kv_heads_per_rank = 0;
  bool kv_replicated = false;  // tp > KV heads: each KV head is copied to tp/kv ranks (vLLM)
};
// Throws ValueError when tp does not divide the attention heads, or cannot share KV heads.
Sharding check_tp(const ModelCard& model, int tp);

// The step's shape: tokens, query-key pairs (causal) and KV tokens read. Only the attention op
// depends on more than the tokens and the sequences.
struct StepShape {
  double m = 0, pairs = 0, kv_tokens = 0, sequences = 0;
};
StepShape shape_of(const std::vector<SequenceWork>& batch);
// The attention op of one layer of a step of this shape.
Op attention_op(const ModelCard& model, const Sharding& sharding, const StepShape& shape);

// `pp` pipeline stages split the layers as evenly as possible (earlier stages take the extra ones).
// `sequence_parallel` (Megatron-style): each layer all-reduce becomes a reduce-scatter, the norm on
// 1/tp of the tokens, and an all-gather — the same bytes on the wire, a tp-th of the norm work.
StepOps step_ops(const ModelCard& model, int tp, const std::vector<SequenceWork>& batch, int pp = 1, bool sequence_parallel = false);

// Layers of each of `pp` stages; throws ValueError when pp exceeds the layers.
std::vector<int> stage_layers(const ModelCard& model, int pp);
// Weight bytes held by one rank of the heaviest stage (layers and LM head sharded over TP,
// embedding replicated; the embedding on the first stage, the LM head on the last).
double weight_bytes_per_rank(const ModelCard& model, int tp, int pp = 1);
// KV-cache bytes per token per rank (the layers of the largest stage).
double kv_bytes_per_token_rank(const ModelCard& model, int tp, int pp = 1);

}  // namespace tpsim
