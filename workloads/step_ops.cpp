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

Op gemm(const char* name, double m, double n, double k, double s) {
  Op op;
  op.kind = OpKind::gemm;
  op.name = name;
  op.m = m, op.n = n, op.k = k;
  op.flops = 2 * m * n * k;
  op.weight_bytes = n * k * s;
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
  const double layers = stage_layers(model, pp).front() * model.layer_params() * s / tp;
  const double embedding = (model.embedding_params() + model.hidden_size) * s, lm_head = model.lm_head_params() * s / tp;
  return pp == 1 ? layers + embedding + lm_head : layers + std::max(embedding, lm_head);
}

double kv_bytes_per_token_rank(const ModelCard& model, int tp, int pp) {
  const Sharding sh = check_tp(model, tp);
  return stage_layers(model, pp).front() * 2.0 * sh.kv_heads_per_rank * model.head_dim * model.kv_bytes_per_value;
}

StepOps step_ops(const ModelCard& model, int tp, const std::vector<SequenceWork>& batch, int pp, bool sequence_parallel) {
  const Sharding sh = check_tp(model, tp);
  const double s = model.weight_bytes_per_param, act = 2;  // activations and collectives in bf16
  const double d = model.hidden_size, hd = model.head_dim;
  const double q_cols = sh.heads_per_rank * hd, kv_cols = sh.kv_heads_per_rank * hd;
  double m = 0, pairs = 0, kv_tokens = 0;
  for (const auto& seq : batch) {
    const double t = double(seq.new_tokens), c = double(seq.context);
    m += t;
    pairs += t * c + t * (t + 1) / 2;  // causal: new token j sees c + j + 1 keys
    kv_tokens += c + t;
  }
  const double sequences = double(batch.size());

  StepOps ops;
  ops.stage_layers = stage_layers(model, pp);
  ops.stage_send = collective("stage_send", CollectiveOp::send_recv, m * d * act);
  Op embed;
  embed.kind = OpKind::embedding;
  embed.name = "embedding";
  embed.bytes = embed.weight_bytes = m * d * s + m * d * act;  // rows read + activations written
  ops.prologue.push_back(embed);

  auto& L = ops.layer;
  L.push_back(elementwise("input_norm", m * d, 4));
  L.push_back(gemm("qkv_proj", m, q_cols + 2 * kv_cols, d, s));
  Op attn;
  attn.kind = OpKind::attention;
  attn.name = "attention";
  attn.flops = 4 * pairs * q_cols;  // QK^T and PV, 2 flops per multiply-add
  const double kv_token_bytes = 2 * kv_cols * model.kv_bytes_per_value;
  attn.bytes = kv_tokens * kv_token_bytes + 2 * m * q_cols * act;  // read the KV cache (incl. new) + q in, out
  L.push_back(attn);
  L.push_back(gemm("o_proj", m, d, q_cols, s));
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
  combine("attn_all_reduce", "attn_reduce_scatter", "attn_all_gather", "post_attn_norm");
  const double inter = double(model.intermediate_size) / tp;
  if (model.num_experts > 0) {
    // MoE: every token visits experts_per_token experts; at small m each visited expert's weights are read.
    const double active = std::min<double>(model.num_experts, m * model.experts_per_token);
    Op up = gemm("moe_gate_up", m * model.experts_per_token, 2 * inter, d, s);
    up.weight_bytes = active * 2 * inter * d * s;
    up.bytes = up.weight_bytes + (m * d + m * model.experts_per_token * 2 * inter) * act;
    L.push_back(gemm("router", m, model.num_experts, d, s));
    L.push_back(up);
    L.push_back(elementwise("silu_mul", m * model.experts_per_token * inter, 3));
    Op down = gemm("moe_down", m * model.experts_per_token, d, inter, s);
    down.weight_bytes = active * d * inter * s;
    down.bytes = down.weight_bytes + (m * model.experts_per_token * inter + m * d) * act;
    L.push_back(down);
  } else {
    L.push_back(gemm("gate_up_proj", m, 2 * inter, d, s));
    L.push_back(elementwise("silu_mul", m * inter, 3));
    L.push_back(gemm("down_proj", m, d, inter, s));
  }
  combine("mlp_all_reduce", "mlp_reduce_scatter", "mlp_all_gather", nullptr);

  ops.epilogue.push_back(elementwise("final_norm", sequences * d, 4));
  ops.epilogue.push_back(gemm("lm_head", sequences, double(model.vocab_size) / tp, d, s));
  if (tp > 1) ops.epilogue.push_back(collective("logits_all_gather", CollectiveOp::all_gather, sequences * model.vocab_size * act));
  return ops;
}

}  // namespace tpsim
