#include "step_ops.hpp"

#include <algorithm>

#include "util/error.hpp"

namespace tpsim {

std::vector<Op> StepOps::flatten() const {
  std::vector<Op> all = prologue;
  for (std::size_t s = 0; s < stage_layers.size(); ++s) {
    if (s > 0) all.push_back(stage_send);
    for (int l = 0; l < stage_layers[s]; ++l) all.insert(all.end(), layer.begin(), layer.end());
  }
  all.insert(all.end(), epilogue.begin(), epilogue.end());
  return all;
}

Sharding check_tp(const ModelCard& model, int tp) {
  const std::string T = std::to_string(tp);
  if (tp < 1) throw ValueError("tp must be at least 1");
  if (model.num_heads % tp != 0)
    throw ValueError("TP=" + T + " does not divide the " + std::to_string(model.num_heads) + " attention heads of " + model.name);
  Sharding s{tp, model.num_heads / tp, 0, false};
  if (model.num_kv_heads % tp == 0) {
    s.kv_heads_per_rank = model.num_kv_heads / tp;
  } else if (tp % model.num_kv_heads == 0) {
    s.kv_heads_per_rank = 1;
    s.kv_replicated = true;
  } else {
    throw ValueError("TP=" + T + " neither divides nor is a multiple of the " + std::to_string(model.num_kv_heads) +
                     " KV heads of " + model.name);
  }
  return s;
}

namespace {

// `weight_bytes`: the weight shard as stored (quantised or not) and its bias, read once per step.
Op gemm(const char* name, double m, double n, double k, double weight_bytes) {
  Op op;
  op.kind = OpKind::gemm;
  op.name = name;
  op.m = m, op.n = n, op.k = k;
  op.flops = 2 * m * n * k;
  op.weight_bytes = weight_bytes;
  op.bytes = op.weight_bytes + (m * k + m * n) * 2;  // activations in bf16
  return op;
}

Op elementwise(const char* name, double elements, double flops_per_element) {
  Op op;
  op.name = name;
  op.flops = elements * flops_per_element;
  op.bytes = 2 * elements * 2;  // read + write, bf16
  return op;
}

Op collective(const char* name, CollectiveOp kind, double bytes) {
  Op op;
  op.kind = OpKind::collective;
  op.name = name;
  op.collective = kind;
  op.collective_bytes = bytes;
  return op;
}

}  // namespace

std::vector<int> stage_layers(const ModelCard& model, int pp) {
  if (pp < 1 || pp > model.num_layers)
    throw ValueError("PP=" + std::to_string(pp) + " needs between 1 and the " + std::to_string(model.num_layers) + " layers of " + model.name);
  std::vector<int> layers(pp, model.num_layers / pp);
  for (int s = 0; s < model.num_layers % pp; ++s) ++layers[s];
  return layers;
}

double weight_bytes_per_rank(const ModelCard& model, int tp, int pp) {
  const double s = model.weight_bytes_per_param;
  const double layers = stage_layers(model, pp).front() * model.layer_bytes(tp);
  const double embedding = (model.embedding_params() + model.position_params() + model.final_norm_params()) * s;
  const double lm_head = model.lm_head_params() * s / tp;
  return pp == 1 ? layers + embedding + lm_head : layers + std::max(embedding, lm_head);
}

double kv_bytes_per_token_rank(const ModelCard& model, int tp, int pp) {
  const Sharding sh = check_tp(model, tp);
  return stage_layers(model, pp).front() * 2.0 * sh.kv_heads_per_rank * model.head_dim * model.kv_bytes_per_value;
}

namespace {

// One layer's MLP on m tokens: gate/up (or up) GEMM, activation, down GEMM; MoE visits experts.
void mlp_ops(std::vector<Op>& L, const ModelCard& model, int tp, double m) {
  const double s = model.weight_bytes_per_param, act = 2, d = model.hidden_size;
  const double inter = double(model.intermediate_size) / tp, up = model.gated_mlp ? 2 : 1;
  const double up_bias = model.mlp_bias ? up * inter * s : 0, down_bias = model.mlp_bias ? d / tp * s : 0;
  const char* activation = model.gated_mlp ? "silu_mul" : "activation";
  if (model.num_experts == 0) {
    L.push_back(gemm(model.gated_mlp ? "gate_up_proj" : "up_proj", m, up * inter, d, model.linear_weight_bytes(up * inter, d) + up_bias));
    L.push_back(elementwise(activation, m * inter, 3));
    L.push_back(gemm("down_proj", m, d, inter, model.linear_weight_bytes(d, inter) + down_bias));
    return;
  }
  // MoE: every token visits experts_per_token experts; at small m each visited expert's weights are read.
  const double k = model.experts_per_token, active = std::min<double>(model.num_experts, m * k);
  L.push_back(gemm("router", m, model.num_experts, d, model.num_experts * d * s));
  Op upop = gemm("moe_gate_up", m * k, up * inter, d, active * (model.linear_weight_bytes(up * inter, d) + up_bias));
  upop.bytes = upop.weight_bytes + (m * d + m * k * up * inter) * act;
  L.push_back(upop);
  L.push_back(elementwise(activation, m * k * inter, 3));
  Op down = gemm("moe_down", m * k, d, inter, active * (model.linear_weight_bytes(d, inter) + down_bias));
  down.bytes = down.weight_bytes + (m * k * inter + m * d) * act;
  L.push_back(down);
}

}  // namespace

StepShape shape_of(const std::vector<SequenceWork>& batch) {
  StepShape sh;
  for (const auto& seq : batch) {
    const double t = double(seq.new_tokens), c = double(seq.context);
    sh.m += t;
    sh.pairs += t * c + t * (t + 1) / 2;  // causal: new token j sees c + j + 1 keys
    sh.kv_tokens += c + t;
  }
  sh.sequences = double(batch.size());
  return sh;
}

Op attention_op(const ModelCard& model, const Sharding& sh, const StepShape& shape) {
  const double act = 2, q_cols = double(sh.heads_per_rank) * model.head_dim, kv_cols = double(sh.kv_heads_per_rank) * model.head_dim;
  Op attn;
  attn.kind = OpKind::attention;
  attn.name = "attention";
  attn.flops = 4 * shape.pairs * q_cols;  // QK^T and PV, 2 flops per multiply-add
  const double kv_token_bytes = 2 * kv_cols * model.kv_bytes_per_value;
  attn.bytes = shape.kv_tokens * kv_token_bytes + 2 * shape.m * q_cols * act;  // read the KV cache (incl. new) + q in, out
  return attn;
}

StepOps step_ops(const ModelCard& model, int tp, const std::vector<SequenceWork>& batch, int pp, bool sequence_parallel) {
  const Sharding sh = check_tp(model, tp);
  const double s = model.weight_bytes_per_param, act = 2;  // activations and collectives in bf16
  const double d = model.hidden_size, hd = model.head_dim;
  const double q_cols = sh.heads_per_rank * hd, kv_cols = sh.kv_heads_per_rank * hd;
  // Plain names, not a structured binding: lambdas below capture them (clang 14 cannot capture bindings).
  const StepShape shape = shape_of(batch);
  const double m = shape.m, sequences = shape.sequences;

  StepOps ops;
  ops.stage_layers = stage_layers(model, pp);
  ops.stage_send = collective("stage_send", CollectiveOp::send_recv, m * d * act);
  Op embed;
  embed.kind = OpKind::embedding;
  embed.name = "embedding";
  // The m token rows (and m position rows of a learned table) read, the activations written.
  embed.weight_bytes = m * d * s * (model.learned_positions > 0 ? 2 : 1);
  embed.bytes = embed.weight_bytes + m * d * act;
  ops.prologue.push_back(embed);

  auto& L = ops.layer;
  L.push_back(elementwise("input_norm", m * d, 4));
  if (model.parallel_block && model.norms_per_layer == 2) L.push_back(elementwise("mlp_norm", m * d, 4));
  const double qkv_cols = q_cols + 2 * kv_cols;
  L.push_back(gemm("qkv_proj", m, qkv_cols, d, model.linear_weight_bytes(qkv_cols, d) + (model.attention_bias ? qkv_cols * s : 0)));
  L.push_back(attention_op(model, sh, shape));
  L.push_back(gemm("o_proj", m, d, q_cols, model.linear_weight_bytes(d, q_cols) + (model.attention_bias ? d / tp * s : 0)));
  // The row-parallel output is summed across ranks, normed, and handed to the next column-parallel GEMM.
  auto combine = [&](const char* all_reduce, const char* reduce_scatter, const char* all_gather, const char* norm) {
    if (!sequence_parallel || tp == 1) {
      L.push_back(collective(all_reduce, CollectiveOp::all_reduce, m * d * act));
      if (norm) L.push_back(elementwise(norm, m * d, 4));
      return;
    }
    L.push_back(collective(reduce_scatter, CollectiveOp::reduce_scatter, m * d * act));
    if (norm) L.push_back(elementwise(norm, m * d / tp, 4));
    L.push_back(collective(all_gather, CollectiveOp::all_gather, m * d * act));
  };
  if (model.parallel_block) {
    // Attention and MLP read the same normed input; their row-parallel outputs are summed once.
    mlp_ops(L, model, tp, m);
    combine("layer_all_reduce", "layer_reduce_scatter", "layer_all_gather", nullptr);
  } else {
    combine("attn_all_reduce", "attn_reduce_scatter", "attn_all_gather", "post_attn_norm");
    mlp_ops(L, model, tp, m);
    combine("mlp_all_reduce", "mlp_reduce_scatter", "mlp_all_gather", nullptr);
  }

  ops.epilogue.push_back(elementwise("final_norm", sequences * d, 4));
  ops.epilogue.push_back(gemm("lm_head", sequences, double(model.vocab_size) / tp, d, double(model.vocab_size) / tp * d * s));
  if (tp > 1) ops.epilogue.push_back(collective("logits_all_gather", CollectiveOp::all_gather, sequences * model.vocab_size * act));
  return ops;
}

}  // namespace tpsim
