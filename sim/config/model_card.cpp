#include "model_card.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "model_card_fields.hpp"
#include "util/spelling.hpp"
#include "yaml_source.hpp"

namespace tpsim {

double Quantization::linear_bytes(double n, double k) const {
  const double groups = group_size > 0 ? std::ceil(k / double(group_size)) : 1;
  return n * k * bits / 8 + n * groups * scale_bytes;
}

namespace {

// A linear layer of one transformer layer: n x k (out x in), `count` of them (experts), sharded
// over TP on n (column-parallel), on k (row-parallel), or replicated on every rank (MLA's down
// projections, as vLLM and SGLang hold them). Routed experts spread over EP ranks instead.
enum class Shard { column, row, replicated };
struct Linear {
  double n, k, count;
  Shard shard;
  bool attention = false, routed = false;
};

void attention_linears(const ModelCard& c, std::vector<Linear>& out) {
  const double d = c.hidden_size, h = c.num_heads;
  if (c.mla.on()) {
    const Mla& a = c.mla;
    const double q_cols = h * a.qk_head_dim();
    if (a.q_lora_rank > 0) {
      out.push_back({double(a.q_lora_rank), d, 1, Shard::replicated, true});
      out.push_back({q_cols, double(a.q_lora_rank), 1, Shard::column, true});
    } else {
      out.push_back({q_cols, d, 1, Shard::column, true});
    }
    out.push_back({a.cached_values(), d, 1, Shard::replicated, true});  // kv_a_proj_with_mqa
    out.push_back({h * (a.qk_nope_head_dim + a.v_head_dim), double(a.kv_lora_rank), 1, Shard::column, true});  // kv_b_proj
    out.push_back({d, h * a.v_head_dim, 1, Shard::row, true});
    return;
  }
  const double q = h * c.head_dim, kv = double(c.num_kv_heads) * c.head_dim;
  out.push_back({q + 2 * kv, d, 1, Shard::column, true});
  out.push_back({d, q, 1, Shard::row, true});
}

std::vector<Linear> layer_linears(const ModelCard& c, int l) {
  std::vector<Linear> out;
  attention_linears(c, out);
  const double d = c.hidden_size, up = c.gated_mlp ? 2 : 1;
  if (!c.moe_layer(l)) {
    const double inter = c.mlp_width(l);
    out.push_back({up * inter, d, 1, Shard::column});
    out.push_back({d, inter, 1, Shard::row});
    return out;
  }
  const double inter = c.intermediate_size, experts = c.num_experts;
  out.push_back({up * inter, d, experts, Shard::column, false, true});
  out.push_back({d, inter, experts, Shard::row, false, true});
  if (c.shared_experts > 0) {
    out.push_back({up * inter * c.shared_experts, d, 1, Shard::column});
    out.push_back({d, inter * c.shared_experts, 1, Shard::row});
  }
  return out;
}

// Norm weights (and LayerNorm biases), linear biases and the MoE router: kept in the card's dtype.
double layer_vector_params(const ModelCard& c, int l) {
  const double d = c.hidden_size, q = double(c.num_heads) * c.head_dim, kv = double(c.num_kv_heads) * c.head_dim;
  const bool moe = c.moe_layer(l);
  const double inter = c.mlp_width(l), experts = moe ? c.num_experts : 1, up = c.gated_mlp ? 2 : 1;
  double v = c.norms_per_layer * (c.layer_norm ? 2 * d : d);
  if (c.mla.on()) v += c.mla.q_lora_rank + c.mla.kv_lora_rank;  // q_a_layernorm, kv_a_layernorm
  if (c.attention_bias && !c.mla.on()) v += q + 2 * kv + d;
  if (c.mlp_bias) v += (up * inter + d) * experts;
  if (moe) v += d * c.num_experts;
  return v;
}

double linear_bytes(const ModelCard& c, double n, double k, bool attention = false) {
  const bool quantised = !c.quantization.method.empty() && (!attention || c.quantization.attention);
  return quantised ? c.quantization.linear_bytes(n, k) : n * k * c.weight_bytes_per_param;
}

}  // namespace

double ModelCard::layer_params(int l) const {
  double p = layer_vector_params(*this, l);
  for (const auto& x : layer_linears(*this, l)) p += x.n * x.k * x.count;
  return p;
}
double ModelCard::layer_bytes(int tp, int l, int ep) const {
  double b = layer_vector_params(*this, l) * weight_bytes_per_param / tp;
  for (const auto& x : layer_linears(*this, l)) {
    if (x.routed && ep > 1) {
      b += x.count / ep * linear_bytes(*this, x.n, x.k);
      continue;
    }
    const double n = x.shard == Shard::column ? x.n / tp : x.n, k = x.shard == Shard::row ? x.k / tp : x.k;
    b += x.count * linear_bytes(*this, n, k, x.attention);
  }
  return b;
}
double ModelCard::embedding_params() const { return double(vocab_size) * hidden_size; }
double ModelCard::lm_head_params() const { return tie_word_embeddings ? 0 : double(vocab_size) * hidden_size; }
double ModelCard::total_params() const {
  double layers = 0;
  for (int l = 0; l < num_layers; ++l) layers += layer_params(l);
  return layers + embedding_params() + position_params() + lm_head_params() + final_norm_params();
}
double ModelCard::weight_bytes() const {
  double layers = 0;
  for (int l = 0; l < num_layers; ++l) layers += layer_bytes(1, l);
  return layers + (embedding_params() + position_params() + lm_head_params() + final_norm_params()) * weight_bytes_per_param;
}
double ModelCard::linear_weight_bytes(double n, double k, bool attention) const { return linear_bytes(*this, n, k, attention); }

double dtype_bytes(const std::string& dtype) {
  if (dtype == "bf16" || dtype == "bfloat16" || dtype == "fp16" || dtype == "float16") return 2;
  if (dtype == "fp8" || dtype == "float8" || dtype == "int8") return 1;
  if (dtype == "fp32" || dtype == "float32") return 4;
  throw ValueError("unknown dtype '" + dtype + "' (one of bf16, fp16, fp8, int8, fp32)");
}

const std::vector<std::string>& kv_cache_dtypes() {
  static const std::vector<std::string> names{"auto", "bf16", "fp16", "fp8", "fp8_e4m3", "fp8_e5m2"};
  return names;
}

double kv_cache_dtype_bytes(const std::string& kv) {
  if (kv == "auto" || kv == "bf16" || kv == "fp16") return 2;  // auto: the activations' 16-bit type (vLLM)
  if (kv == "fp8" || kv == "fp8_e4m3" || kv == "fp8_e5m2") return 1;
  throw ValueError("unknown kv_cache_dtype '" + kv + "' (one of auto, bf16, fp16, fp8, fp8_e4m3, fp8_e5m2)" + did_you_mean(kv, kv_cache_dtypes()));
}

namespace {

// Keys tpsim reads (several names for one field where Hugging Face model classes differ), and
// Hugging Face keys it knows and does not need.
const std::vector<std::string> USED_KEYS{
    "model", "hf_id", "hidden_size", "n_embd", "num_hidden_layers", "n_layer", "num_attention_heads", "n_head",
    "num_key_value_heads", "num_kv_heads", "multi_query", "new_decoder_architecture", "head_dim", "intermediate_size",
    "n_inner", "ffn_dim", "ffn_hidden_size", "vocab_size", "tie_word_embeddings", "torch_dtype", "dtype", "kv_cache_dtype",
    "num_local_experts", "num_experts_per_tok", "n_routed_experts", "num_experts", "moe_intermediate_size", "n_shared_experts",
    "first_k_dense_replace", "kv_lora_rank", "q_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim",
    "sliding_window", "use_sliding_window", "layer_types", "sliding_window_pattern", "max_window_layers", "derived", "model_type",
    "hidden_act", "activation_function", "activation", "rms_norm_eps", "layer_norm_epsilon", "layer_norm_eps",
    "parallel_attn", "use_parallel_residual", "bias", "enable_bias", "attention_bias", "mlp_bias",
    "max_position_embeddings", "n_positions", "quantization_config", "shared_expert_intermediate_size",
    "moe_shared_expert_intermediate_size", "index_topk", "decoder_sparse_step", "mlp_only_layers", "moe_layer_freq", "interleave_moe_layer_step"};
const std::vector<std::string> INFO_KEYS{
    "source", "notes", "family_defaults", "rope_theta", "rope_scaling", "architectures", "bos_token_id", "eos_token_id",
    "pad_token_id", "initializer_range", "attention_dropout", "pretraining_tp", "use_cache", "transformers_version",
    "_name_or_path", "partial_rotary_factor", "rope_type", "query_pre_attn_scalar", "final_logit_softcapping", "attn_logit_softcapping", "hidden_activation",
    "cache_implementation", "output_router_logits", "router_aux_loss_coef", "router_jitter_noise",
    "experts_per_token", "n_group", "topk_group", "routed_scaling_factor", "scoring_func", "topk_method", "norm_topk_prob",
    "num_nextn_predict_layers", "ep_size", "aux_loss_alpha",
    "seq_aux", "swiglu_limit", "initial_context_length", "intermediate_size_mlp",
    "attention_chunk_size", "no_rope_layer_interval", "use_qk_norm", "attn_temperature_tuning", "floor_scale", "attn_scale",
    "rotary_dim", "rotary_pct", "rotary_emb_base", "rotary", "alibi", "n_ctx", "resid_pdrop", "embd_pdrop",
    "attn_pdrop", "hidden_dropout", "dropout", "activation_dropout", "classifier_dropout", "init_std", "layerdrop",
    "prefix", "scale_attn_weights", "gradient_checkpointing", "summary_activation", "summary_first_dropout",
    "summary_proj_to_labels", "summary_type", "summary_use_proj", "task_specific_params", "tokenizer_class",
    "do_layer_norm_before", "word_embed_proj_dim", "output_projection", "_remove_final_layer_norm",
    "layer_norm_elementwise_affine", "apply_residual_connection_post_layernorm", "num_ln_in_parallel_attn"};

// What a model class builds without saying so in config.json (transformers' modeling_<type>.py).
struct Family {
  const char* model_type;
  bool gated_mlp, layer_norm, parallel_block;
  int norms_per_layer;
  bool attention_bias, mlp_bias, learned_positions, tied;
  long position_offset;  // extra rows of the position table (OPT's offset of 2)
  const char* hidden_act;
};
const Family LLAMA{"llama", true, false, false, 2, false, false, false, false, 0, "silu"};
const Family FAMILIES[] = {
    {"gpt2", false, true, false, 2, true, true, true, true, 0, "gelu_new"},
    {"gptj", false, true, true, 1, false, true, false, false, 0, "gelu_new"},  // one ln_1 feeds attention and MLP
    {"gpt_neox", false, true, true, 2, true, true, false, false, 0, "gelu"},   // two norms of the same input
    {"falcon", false, true, true, 1, false, false, false, true, 0, "gelu"},    // 2 norms with new_decoder_architecture
    {"opt", false, true, false, 2, true, true, true, true, 2, "relu"},
    {"gpt_oss", true, false, false, 2, true, true, false, false, 0, "silu"},  // experts' gate_up and down biases
    // Gemma ties its embeddings unless told otherwise (GemmaConfig's tie_word_embeddings=True); Gemma 2
    // and 3 norm before and after both attention and the MLP.
    {"gemma", true, false, false, 2, false, false, false, true, 0, "gelu_pytorch_tanh"},
    {"gemma2", true, false, false, 4, false, false, false, true, 0, "gelu_pytorch_tanh"},
    {"gemma3_text", true, false, false, 4, false, false, false, true, 0, "gelu_pytorch_tanh"},
};

const Family& family_of(const std::string& model_type) {
  for (const auto& f : FAMILIES)
    if (model_type == f.model_type) return f;
  return LLAMA;  // llama, mistral, qwen2, gemma, mixtral, deepseek, ...: gated MLP, RMSNorm, rotary
}

using namespace card_fields;

// llm-compressor's format (vLLM's compressed-tensors): one config group of the Linear layers, its
// weights' scheme (num_bits, type int or float, strategy tensor, channel, group or block), and
// 8-bit input activations for W8A8 (GEMMs in 8 bits). Layers it ignores by an attention name keep
// the card's dtype; lm_head stays so anyway. Several groups (mixed precision) are refused.
void read_compressed_tensors(const YamlMap& q, Quantization& z) {
  const YamlMap groups = q.map("config_groups");
  const YAML::Node raw = groups.raw();
  if (raw.size() != 1)
    q.fail(q.node("config_groups"), "config_groups: " + std::to_string(raw.size()) + " groups of layers with their own schemes "
                                   "(mixed precision); tpsim costs one scheme for every linear layer");
  const YamlMap group(q.file(), raw.begin()->second, "config group");
  const YamlMap w = group.map("weights");
  const long bits = w.integer("num_bits");
  const std::string type = w.str_or("type", "int"), strategy = w.str_or("strategy", "tensor");
  if (!((bits == 8) || (bits == 4)))
    w.fail(w.node("num_bits"), "compressed-tensors weights of " + std::to_string(bits) + " bits are not a format tpsim knows (4, 8)");
  z.bits = double(bits);
  const double scale = type == "float" && bits == 4 ? 1 : 2;  // NVFP4's E4M3 group scales; else 16-bit scales
  if (strategy == "group" || strategy == "tensor_group") {
    z.group_size = w.integer_or("group_size", bits == 4 && type == "float" ? 16 : 128);
    z.scale_bytes = scale + (w.boolean_or("symmetric", true) ? 0 : z.bits / 8);
  } else if (strategy == "channel") {
    z.group_size = 0, z.scale_bytes = scale;  // one scale per output row
  } else if (strategy != "tensor" && strategy != "block") {
    w.fail(w.node("strategy"), "compressed-tensors strategy '" + strategy + "' is not one tpsim knows (tensor, channel, group, block)");
  }
  if (group.has("input_activations") && !group.node("input_activations").IsNull())
    z.fp8_compute = group.map("input_activations").integer_or("num_bits", 16) == 8;
  if (q.has("ignore") && q.node("ignore").IsSequence())
    for (const auto& name : q.node("ignore"))
      if (scalar_of(q.file(), name, "ignored module").find("self_attn") != std::string::npos) z.attention = false;
}

Quantization read_quantization(const YamlMap& q) {
  const std::string method = q.str("quant_method");
  Quantization z;
  z.method = method;
  const auto bits = [&](std::vector<long> allowed, long fallback) {
    const long b = q.integer_or("bits", fallback);
    if (std::find(allowed.begin(), allowed.end(), b) == allowed.end())
      q.fail(q.node("bits"), method + " weights of " + std::to_string(b) + " bits are not a format tpsim knows");
    return double(b);
  };
  if (method == "awq") {  // fp16 scale and a packed zero point per group (zero_point: true)
    z.bits = bits({4}, 4);
    z.group_size = q.integer_or("group_size", 128);
    z.scale_bytes = 2 + (q.boolean_or("zero_point", true) ? z.bits / 8 : 0);
  } else if (method == "gptq") {  // bits 8: int8 weight-only; group_size -1: one scale per row
    z.bits = bits({2, 3, 4, 8}, 4);
    z.group_size = std::max(0L, q.integer_or("group_size", 128));
    z.scale_bytes = 2 + (q.boolean_or("sym", true) ? 0 : z.bits / 8);
  } else if (method == "fp8") {  // weight_block_size [bn, bk]: one fp32 scale per bn x bk block
    z.bits = 8, z.fp8_compute = true;
    if (given(q, "weight_block_size")) {
      const YAML::Node b = q.node("weight_block_size");
      if (!b.IsSequence() || b.size() != 2) q.fail(b, "'weight_block_size' must be [rows, columns]");
      const long rows = integer_of(q.file(), b[0], "block rows"), cols = integer_of(q.file(), b[1], "block columns");
      if (rows < 1 || cols < 1) q.fail(b, "'weight_block_size' must be positive");
      z.group_size = cols, z.scale_bytes = 4.0 / double(rows);
    }
  } else if (method == "mxfp4") {  // OCP MX: E2M1 values, one E8M0 scale per 32
    z.bits = 4, z.group_size = 32, z.scale_bytes = 1;
    if (given(q, "modules_to_not_convert")) {  // gpt-oss: "model.layers.*.self_attn" stays bf16
      const YAML::Node skip = q.node("modules_to_not_convert");
      if (!skip.IsSequence()) q.fail(skip, "'modules_to_not_convert' must be a list of module names");
      for (const auto& name : skip)
        if (scalar_of(q.file(), name, "module name").find("self_attn") != std::string::npos) z.attention = false;
    }
  } else if (method == "modelopt" && q.str("quant_algo") == "NVFP4") {  // E2M1 values, one E4M3 scale per 16
    z.method = "nvfp4";
    z.bits = 4, z.group_size = q.integer_or("group_size", 16), z.scale_bytes = 1;
  } else if (method == "modelopt") {
    q.fail(q.node("quant_algo"), "quant_algo '" + q.str("quant_algo") + "' of modelopt is not one tpsim knows (NVFP4)");
  } else if (method == "compressed-tensors") {
    read_compressed_tensors(q, z);
  } else {
    const std::vector<std::string> known{"awq", "gptq", "fp8", "mxfp4", "modelopt", "compressed-tensors"};
    q.fail(q.node("quant_method"), "unknown quant_method '" + method + "' (one of awq, gptq, fp8, mxfp4, modelopt, compressed-tensors)" +
                                       did_you_mean(method, known));
  }
  if (z.group_size < 0 || z.group_size > MAX_DIMENSION) q.fail(q.node("group_size"), "'group_size' must be between 1 and " + std::to_string(MAX_DIMENSION));
  return z;
}

void read_architecture(const YamlMap& m, ModelCard& c) {
  const std::string type = m.str_or("model_type", "");
  const Family& f = family_of(type);
  c.gated_mlp = f.gated_mlp;
  c.norms_per_layer = f.norms_per_layer;
  c.parallel_block = f.parallel_block;
  if (type == "falcon" && m.boolean_or("new_decoder_architecture", false)) c.norms_per_layer = 2;  // ln_attn, ln_mlp
  for (const char* key : {"parallel_attn", "use_parallel_residual"})
    if (given(m, key)) c.parallel_block = m.boolean_or(key, false);
  if (!c.parallel_block) c.norms_per_layer = 2;
  const std::string act = first_given(m, {"hidden_act", "activation_function", "activation"});
  c.hidden_act = act.empty() ? f.hidden_act : m.str(act);
  c.layer_norm = given(m, "rms_norm_eps") ? false : (given(m, "layer_norm_epsilon") || given(m, "layer_norm_eps") || f.layer_norm);
  c.attention_bias = f.attention_bias, c.mlp_bias = f.mlp_bias;
  for (const char* key : {"bias", "enable_bias"})
    if (given(m, key)) c.attention_bias = c.mlp_bias = m.boolean_or(key, false);
  c.attention_bias = m.boolean_or("attention_bias", c.attention_bias);
  c.mlp_bias = m.boolean_or("mlp_bias", c.mlp_bias);
  c.tie_word_embeddings = m.boolean_or("tie_word_embeddings", f.tied);
  const std::string context = first_given(m, {"max_position_embeddings", "n_positions"});
  if (!context.empty()) c.max_position_embeddings = positive_int(m, context, MAX_CONTEXT);
  if (f.learned_positions) {
    if (context.empty()) m.fail(m.raw(), "a " + type + " model's learned position table needs 'max_position_embeddings'");
    c.learned_positions = c.max_position_embeddings + f.position_offset;
  }
}

// Falcon without new_decoder_architecture shares one KV head (multi_query) or has one per head.
int kv_heads(const YamlMap& m, int heads) {
  const bool falcon = m.str_or("model_type", "") == "falcon";
  if (falcon && !m.boolean_or("new_decoder_architecture", false)) return m.boolean_or("multi_query", true) ? 1 : heads;
  const std::string k = first_given(m, {"num_key_value_heads", "num_kv_heads"});
  return k.empty() ? heads : positive_int(m, k);
}

}  // namespace

namespace card_fields {

bool given(const YamlMap& m, const std::string& key) { return m.has(key) && !m.node(key).IsNull(); }

// The first of `keys` the card gives (one field under the names different model classes use).
std::string first_given(const YamlMap& m, const std::vector<std::string>& keys) {
  for (const auto& k : keys)
    if (given(m, k)) return k;
  return "";
}

int positive_int(const YamlMap& m, const std::string& key, long max) {
  long v = m.integer(key);
  if (v <= 0) m.fail(m.node(key), "'" + key + "' must be positive, not " + std::to_string(v));
  if (v > max)
    m.fail(m.node(key), "'" + key + "' is " + std::to_string(v) + "; tpsim refuses more than " + std::to_string(max) + " (no real model comes close)");
  return static_cast<int>(v);
}

// One field under any of its names; when none is given, the error names the first.
int positive_of(const YamlMap& m, const std::vector<std::string>& keys, long max) {
  const std::string k = first_given(m, keys);
  return positive_int(m, k.empty() ? keys.front() : k, max);
}

}  // namespace card_fields

ModelCard load_model_card(const std::string& path, const std::string& dtype_override, const std::string& kv_override) {
  YamlMap m(path, load_yaml_file(path), "a model card");
  const bool is_json = path.size() > 5 && path.substr(path.size() - 5) == ".json";
  if (!is_json) {
    std::vector<std::string> allowed = USED_KEYS;
    allowed.insert(allowed.end(), INFO_KEYS.begin(), INFO_KEYS.end());
    m.check_keys(allowed);
  }
  ModelCard c;
  c.name = m.str_or("model", m.has("_name_or_path") ? m.str("_name_or_path") : path);
  c.hf_id = m.str_or("hf_id", m.has("_name_or_path") ? m.str("_name_or_path") : "");
  read_architecture(m, c);
  refuse_unmodelled_layouts(m);
  if (first_given(m, {"hidden_size", "n_embd"}).empty() && given(m, "text_config"))
    m.fail(m.node("text_config"), "the text model's fields are under 'text_config' (a multimodal model's config): tpsim reads a "
                                  "text model's card; copy them to the top level, as workloads/models/llama-4-scout.yaml does");
  c.hidden_size = positive_of(m, {"hidden_size", "n_embd"});
  c.num_layers = positive_of(m, {"num_hidden_layers", "n_layer"}, MAX_LAYERS);
  c.num_heads = positive_of(m, {"num_attention_heads", "n_head"});
  c.num_kv_heads = kv_heads(m, c.num_heads);
  if (given(m, "head_dim")) {
    c.head_dim = positive_int(m, "head_dim");
  } else if (m.has("derived") && m.map("derived").has("head_dim")) {
    c.head_dim = positive_int(m.map("derived"), "head_dim");
  } else {
    if (c.hidden_size % c.num_heads != 0)
      m.fail(m.node(first_given(m, {"num_attention_heads", "n_head"})), "hidden_size is not a multiple of num_attention_heads; give head_dim");
    c.head_dim = c.hidden_size / c.num_heads;
  }
  c.vocab_size = positive_int(m, "vocab_size");
  read_experts(m, c);
  if (c.num_kv_heads > c.num_heads) m.fail(m.node(first_given(m, {"num_key_value_heads", "num_kv_heads"})), "num_key_value_heads exceeds num_attention_heads");
  read_attention_variants(m, c);
  if (given(m, "index_topk"))
    c.notes.push_back(fmt::format("{0}: its sparse attention (index_topk {1}, each query attends to that many tokens the indexer "
                                  "picks) is costed as dense attention over the whole context, an overestimate beyond {1} tokens, "
                                  "and the indexer's own key cache and weights are left out",
                                  c.name, m.integer("index_topk")));
  if (given(m, "quantization_config")) c.quantization = read_quantization(m.map("quantization_config"));
  if (c.max_position_embeddings == 0)
    c.notes.push_back(fmt::format("{}: the card gives no context length (max_position_embeddings): prompts and outputs of any "
                                  "length are simulated, none checked against the model's window",
                                  c.name));

  // The scenario's overrides were checked where the scenario gives them.
  const std::string dtype_key = first_given(m, {"dtype", "torch_dtype"});
  const std::string dtype = !dtype_override.empty() ? dtype_override : dtype_key.empty() ? "bf16" : m.str(dtype_key);
  try {
    c.weight_bytes_per_param = dtype_bytes(dtype);
  } catch (const ValueError& e) {
    m.fail(m.node(dtype_key), e.what());
  }
  if (!kv_override.empty()) {
    c.kv_bytes_per_value = kv_cache_dtype_bytes(kv_override);
  } else if (given(m, "kv_cache_dtype")) {
    try {
      c.kv_bytes_per_value = kv_cache_dtype_bytes(m.str("kv_cache_dtype"));
    } catch (const ValueError& e) {
      m.fail(m.node("kv_cache_dtype"), e.what());
    }
  }
  c.dtype = dtype;
  return c;
}

}  // namespace tpsim
