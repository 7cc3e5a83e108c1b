#include "model_card.hpp"

#include "util/spelling.hpp"
#include "yaml_source.hpp"

namespace tpsim {

double ModelCard::layer_params() const {
  const double d = hidden_size, hd = head_dim;
  const double attention = d * (num_heads * hd) * 2 + d * (num_kv_heads * hd) * 2;  // q, o; k, v
  const double experts = num_experts > 0 ? num_experts : 1;
  const double mlp = 3.0 * d * intermediate_size * experts + (num_experts > 0 ? d * num_experts : 0);  // + router
  return attention + mlp + 2 * d;  // two RMSNorm weight vectors
}
double ModelCard::embedding_params() const { return double(vocab_size) * hidden_size; }
double ModelCard::lm_head_params() const { return tie_word_embeddings ? 0 : double(vocab_size) * hidden_size; }
double ModelCard::total_params() const {
  return num_layers * layer_params() + embedding_params() + lm_head_params() + hidden_size;
}

double dtype_bytes(const std::string& dtype) {
  if (dtype == "bf16" || dtype == "bfloat16" || dtype == "fp16" || dtype == "float16") return 2;
  if (dtype == "fp8" || dtype == "float8" || dtype == "int8") return 1;
  if (dtype == "fp32" || dtype == "float32") return 4;
  throw ValueError("unknown dtype '" + dtype + "' (one of bf16, fp16, fp8, int8, fp32)");
}

namespace {

// Keys tpsim reads, and Hugging Face keys it knows and does not need.
const std::vector<std::string> USED_KEYS{
    "model", "hidden_size", "num_hidden_layers", "num_attention_heads", "num_key_value_heads", "head_dim",
    "intermediate_size", "vocab_size", "tie_word_embeddings", "torch_dtype", "dtype", "kv_cache_dtype",
    "num_local_experts", "num_experts_per_tok", "n_routed_experts", "moe_intermediate_size", "derived"};
const std::vector<std::string> INFO_KEYS{
    "source", "notes", "family_defaults", "max_position_embeddings", "rms_norm_eps", "rope_theta", "rope_scaling",
    "architectures", "model_type", "bos_token_id", "eos_token_id", "pad_token_id", "hidden_act",
    "initializer_range", "attention_bias", "attention_dropout", "mlp_bias", "pretraining_tp", "use_cache",
    "transformers_version", "_name_or_path", "sliding_window", "use_sliding_window", "max_window_layers",
    "quantization_config", "partial_rotary_factor", "rope_type", "layer_types", "query_pre_attn_scalar",
    "final_logit_softcapping", "attn_logit_softcapping", "hidden_activation", "cache_implementation",
    "output_router_logits", "router_aux_loss_coef", "router_jitter_noise", "num_experts", "first_k_dense_replace",
    "n_shared_experts", "kv_lora_rank", "q_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"};

// Limits far beyond any real model (the largest have d ~ 16k, ~128 layers, ~256k vocab): past
// them a value is a typo, and the cost model's op lists and counts would grow without bound.
constexpr long MAX_DIMENSION = 1'048'576;
constexpr long MAX_LAYERS = 10'000;

int positive_int(const YamlMap& m, const std::string& key, long max = MAX_DIMENSION) {
  long v = m.integer(key);
  if (v <= 0) m.fail(m.node(key), "'" + key + "' must be positive, not " + std::to_string(v));
  if (v > max)
    m.fail(m.node(key), "'" + key + "' is " + std::to_string(v) + "; tpsim refuses more than " + std::to_string(max) + " (no real model comes close)");
  return static_cast<int>(v);
}

}  // namespace

ModelCard load_model_card(const std::string& path, const std::string& dtype_override) {
  YamlMap m(path, load_yaml_file(path), "a model card");
  const bool is_json = path.size() > 5 && path.substr(path.size() - 5) == ".json";
  if (!is_json) {
    std::vector<std::string> allowed = USED_KEYS;
    allowed.insert(allowed.end(), INFO_KEYS.begin(), INFO_KEYS.end());
    m.check_keys(allowed);
  }
  ModelCard c;
  c.name = m.str_or("model", m.has("_name_or_path") ? m.str("_name_or_path") : path);
  c.hidden_size = positive_int(m, "hidden_size");
  c.num_layers = positive_int(m, "num_hidden_layers", MAX_LAYERS);
  c.num_heads = positive_int(m, "num_attention_heads");
  c.num_kv_heads = m.has("num_key_value_heads") ? positive_int(m, "num_key_value_heads") : c.num_heads;
  if (m.has("head_dim") && !m.node("head_dim").IsNull()) {
    c.head_dim = positive_int(m, "head_dim");
  } else if (m.has("derived") && m.map("derived").has("head_dim")) {
    c.head_dim = positive_int(m.map("derived"), "head_dim");
  } else {
    if (c.hidden_size % c.num_heads != 0)
      m.fail(m.node("num_attention_heads"), "hidden_size is not a multiple of num_attention_heads; give head_dim");
    c.head_dim = c.hidden_size / c.num_heads;
  }
  c.vocab_size = positive_int(m, "vocab_size");
  c.tie_word_embeddings = m.boolean_or("tie_word_embeddings", false);
  if (m.has("num_local_experts") || m.has("n_routed_experts")) {
    c.num_experts = positive_int(m, m.has("num_local_experts") ? "num_local_experts" : "n_routed_experts");
    c.experts_per_token = positive_int(m, "num_experts_per_tok");
    c.intermediate_size = positive_int(m, m.has("moe_intermediate_size") ? "moe_intermediate_size" : "intermediate_size");
  } else {
    c.intermediate_size = positive_int(m, "intermediate_size");
  }
  if (c.num_kv_heads > c.num_heads) m.fail(m.node("num_key_value_heads"), "num_key_value_heads exceeds num_attention_heads");

  std::string dtype = "bf16";
  for (const char* key : {"dtype", "torch_dtype"})
    if (m.has(key) && !m.node(key).IsNull()) dtype = m.str(key);
  if (!dtype_override.empty()) dtype = dtype_override;
  try {
    c.weight_bytes_per_param = dtype_bytes(dtype);
    c.kv_bytes_per_value = m.has("kv_cache_dtype") ? dtype_bytes(m.str("kv_cache_dtype")) : 2.0;
  } catch (const ValueError& e) {
    m.fail(m.has("kv_cache_dtype") ? m.node("kv_cache_dtype") : m.raw(), e.what());
  }
  c.dtype = dtype;
  return c;
}

}  // namespace tpsim
