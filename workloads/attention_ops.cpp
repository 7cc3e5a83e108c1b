// Attention of one layer on one TP rank (heads and KV heads sharded as check_tp says).
// * GQA / MHA: QKV GEMM, attention (4 flops per query-key pair per q column: QK^T and PV),
//   reading the KV cache once, output projection. A sliding-window layer's keys are at most the
//   window (shape_of bounds the pairs and the KV read).
// * MLA (DeepSeek-V2/V3), as vLLM and SGLang run it: the down projections q_a (when q_lora_rank)
//   and kv_a are replicated on every rank, q_b and kv_b are column-parallel, o row-parallel. The
//   cache holds c_kv and the rotary key, (kv_lora_rank + qk_rope_head_dim) values per token.
//   - decode (every sequence adds one token): kv_b is absorbed: each head's query is mapped into
//     the latent space (q_absorb: nope x kv_lora per head), scores and the weighted sum run over
//     the latent (2 (2 kv_lora + rope) flops per pair per head, like multi-query attention over a
//     kv_lora + rope wide head, the latent read once for all heads), and v_absorb maps the result
//     to v_head_dim (kv_lora x v per head);
//   - prefill: kv_b expands the cached latent into per-head K (nope) and V for every KV token,
//     then ordinary attention with a qk_nope + qk_rope wide query/key and v_head_dim values.
#include "op_builders.hpp"

namespace tpsim::op_builders {
namespace {

constexpr double ACT = 2;  // activations in bf16

bool all_decode(const std::vector<SequenceWork>& batch) {
  for (const auto& s : batch)
    if (s.new_tokens != 1) return false;
  return true;
}

// MLA's attention itself over the latent cache: absorbed in decode, over expanded K and V in prefill.
Op mla_attention(const ModelCard& model, const Sharding& sh, const StepShape& x, bool decode) {
  const Mla& a = model.mla;
  const double h = sh.heads_per_rank, lora = a.kv_lora_rank, rope = a.qk_rope_head_dim, qk = a.qk_head_dim(), v = a.v_head_dim;
  const double latent_bytes = x.kv_tokens * (lora + rope) * model.kv_bytes_per_value;  // the compressed cache, read once
  Op attn;
  attn.kind = OpKind::attention;
  attn.name = "attention";
  if (decode) {
    attn.flops = 2 * x.pairs * h * (2 * lora + rope);
    attn.bytes = latent_bytes + 2 * x.m * h * (lora + rope) * ACT;
  } else {
    attn.flops = 2 * x.pairs * h * (qk + v);
    attn.bytes = latent_bytes + x.kv_tokens * h * (qk + v) * ACT + x.m * h * (qk + v) * ACT;
  }
  return attn;
}

void mla_ops(std::vector<Op>& L, const ModelCard& model, const Sharding& sh, const std::vector<SequenceWork>& batch, long window) {
  const Mla& a = model.mla;
  const StepShape x = shape_of(batch, window);
  const double d = model.hidden_size, h = sh.heads_per_rank;
  const double qk = a.qk_head_dim(), lora = a.kv_lora_rank, rope = a.qk_rope_head_dim, v = a.v_head_dim, nope = a.qk_nope_head_dim;
  auto w = [&](double n, double k) { return model.linear_weight_bytes(n, k, true); };
  if (a.q_lora_rank > 0) {
    L.push_back(gemm("q_a_proj", x.m, a.q_lora_rank, d, w(a.q_lora_rank, d)));
    L.push_back(elementwise("q_a_norm", x.m * a.q_lora_rank, 4));
    L.push_back(gemm("q_b_proj", x.m, h * qk, a.q_lora_rank, w(h * qk, a.q_lora_rank)));
  } else {
    L.push_back(gemm("q_proj", x.m, h * qk, d, w(h * qk, d)));
  }
  L.push_back(gemm("kv_a_proj", x.m, lora + rope, d, w(lora + rope, d)));
  L.push_back(elementwise("kv_a_norm", x.m * lora, 4));
  const bool decode = all_decode(batch);
  if (decode) {
    L.push_back(gemm("q_absorb", x.m, h * lora, nope, w(h * lora, nope)));
    L.push_back(mla_attention(model, sh, x, decode));
    L.push_back(gemm("v_absorb", x.m, h * v, lora, w(h * v, lora)));
  } else {
    L.push_back(gemm("kv_b_proj", x.kv_tokens, h * (nope + v), lora, w(h * (nope + v), lora)));
    L.push_back(mla_attention(model, sh, x, decode));
  }
  L.push_back(gemm("o_proj", x.m, d, h * v, w(d, h * v)));
}

// GQA / MHA attention itself (no projections) over the step's query-key pairs and KV read.
Op gqa_attention(const ModelCard& model, const Sharding& sh, const StepShape& x) {
  const double hd = model.head_dim, q_cols = sh.heads_per_rank * hd, kv_cols = sh.kv_heads_per_rank * hd;
  Op attn;
  attn.kind = OpKind::attention;
  attn.name = "attention";
  attn.flops = 4 * x.pairs * q_cols;  // QK^T and PV, 2 flops per multiply-add
  const double kv_token_bytes = 2 * kv_cols * model.kv_bytes_per_value;
  attn.bytes = x.kv_tokens * kv_token_bytes + 2 * x.m * q_cols * ACT;  // read the KV cache (incl. new) + q in, out
  return attn;
}

}  // namespace

void attention_ops(std::vector<Op>& L, const ModelCard& model, const Sharding& sh, const std::vector<SequenceWork>& batch, long window) {
  if (model.mla.on()) return mla_ops(L, model, sh, batch, window);
  const StepShape x = shape_of(batch, window);
  const double s = model.weight_bytes_per_param, d = model.hidden_size, hd = model.head_dim;
  const double q_cols = sh.heads_per_rank * hd, kv_cols = sh.kv_heads_per_rank * hd, qkv_cols = q_cols + 2 * kv_cols;
  L.push_back(gemm("qkv_proj", x.m, qkv_cols, d, model.linear_weight_bytes(qkv_cols, d, true) + (model.attention_bias ? qkv_cols * s : 0)));
  L.push_back(gqa_attention(model, sh, x));
  L.push_back(gemm("o_proj", x.m, d, q_cols, model.linear_weight_bytes(d, q_cols, true) + (model.attention_bias ? d / sh.tp * s : 0)));
}

Op attention_op(const ModelCard& model, const Sharding& sh, const std::vector<SequenceWork>& batch, long window) {
  const StepShape x = shape_of(batch, window);
  return model.mla.on() ? mla_attention(model, sh, x, all_decode(batch)) : gqa_attention(model, sh, x);
}

}  // namespace tpsim::op_builders
