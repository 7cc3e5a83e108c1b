// The architecture variants of a model card, under their Hugging Face config.json names:
// * experts: num_local_experts (Mixtral, gpt-oss, Llama 4), n_routed_experts (DeepSeek) or
//   num_experts (Qwen2/3-MoE) with num_experts_per_tok (top-k); moe_intermediate_size is an
//   expert's width when given (the card's intermediate_size is then the dense layers'); shared
//   experts (n_shared_experts; Llama 4's one shared expert is implicit in its model class);
//   first_k_dense_replace leading dense layers (DeepSeek).
// * MLA (DeepSeek-V2/V3): kv_lora_rank with qk_nope_head_dim, qk_rope_head_dim, v_head_dim and an
//   optional q_lora_rank; K and V are rebuilt for every head, so num_key_value_heads must equal
//   num_attention_heads, and a head_dim, if given, must be the query/key width or, as
//   transformers' DeepseekV3Config writes it, the rotary width.
// * sliding windows: layer_types ("sliding_attention" | "full_attention" per layer, gpt-oss and
//   Gemma-style hybrids) with sliding_window; sliding_window alone (Mistral) makes every layer
//   sliding unless use_sliding_window is false (Qwen).
#include <algorithm>

#include "model_card_fields.hpp"
#include "util/spelling.hpp"

namespace tpsim::card_fields {
namespace {

const char* const EXPERT_KEYS[] = {"num_local_experts", "n_routed_experts", "num_experts"};

std::string experts_key(const YamlMap& m) {
  for (const char* k : EXPERT_KEYS)
    if (given(m, k)) return k;
  return "";
}

// A non-negative count that may be null (DeepSeek-V2-Lite's q_lora_rank: null).
int count_or_zero(const YamlMap& m, const std::string& key) {
  if (!given(m, key)) return 0;
  const long v = m.integer(key);
  if (v < 0) m.fail(m.node(key), "'" + key + "' must be >= 0, not " + std::to_string(v));
  return v == 0 ? 0 : positive_int(m, key);
}

void read_mla(const YamlMap& m, ModelCard& c) {
  Mla& a = c.mla;
  for (const char* key : {"qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"})
    if (!given(m, key)) m.fail(m.node("kv_lora_rank"), std::string("MLA (kv_lora_rank) needs '") + key + "'");
  a.kv_lora_rank = positive_int(m, "kv_lora_rank");
  a.q_lora_rank = count_or_zero(m, "q_lora_rank");
  a.qk_nope_head_dim = positive_int(m, "qk_nope_head_dim");
  a.qk_rope_head_dim = positive_int(m, "qk_rope_head_dim");
  a.v_head_dim = positive_int(m, "v_head_dim");
  const std::string kv_key = first_given(m, {"num_key_value_heads", "num_kv_heads"});
  if (!kv_key.empty() && c.num_kv_heads != c.num_heads)
    m.fail(m.node(kv_key), "MLA rebuilds K and V for every head: " + kv_key + " " + std::to_string(c.num_kv_heads) +
                               " disagrees with num_attention_heads " + std::to_string(c.num_heads));
  if (given(m, "head_dim") && c.head_dim != a.qk_head_dim() && c.head_dim != a.qk_rope_head_dim)
    m.fail(m.node("head_dim"), "head_dim " + std::to_string(c.head_dim) + " disagrees with MLA's qk_nope_head_dim + qk_rope_head_dim = " +
                                   std::to_string(a.qk_head_dim()) + " (or qk_rope_head_dim = " + std::to_string(a.qk_rope_head_dim) +
                                   ", as transformers writes it)");
  c.head_dim = a.qk_head_dim();
}

void read_layer_types(const YamlMap& m, ModelCard& c) {
  const YAML::Node types = m.node("layer_types");
  if (!types.IsSequence() || long(types.size()) != c.num_layers)
    m.fail(types, "'layer_types' must list one type for each of the " + std::to_string(c.num_layers) + " layers (num_hidden_layers)");
  const std::vector<std::string> known{"full_attention", "sliding_attention"};
  for (const auto& t : types) {
    const std::string name = scalar_of(m.file(), t, "layer type");
    if (std::find(known.begin(), known.end(), name) == known.end())
      m.fail(t, "layer type '" + name + "' is not one tpsim knows (full_attention, sliding_attention)" + did_you_mean(name, known));
    c.sliding_layers.push_back(name == "sliding_attention");
  }
  const bool any = std::find(c.sliding_layers.begin(), c.sliding_layers.end(), true) != c.sliding_layers.end();
  if (any && !given(m, "sliding_window")) m.fail(types, "sliding_attention layers need 'sliding_window' (tokens)");
}

}  // namespace

void read_experts(const YamlMap& m, ModelCard& c) {
  const std::vector<std::string> mlp_keys{"intermediate_size", "n_inner", "ffn_dim", "ffn_hidden_size"};
  const std::string key = experts_key(m);
  if (key.empty()) {
    if (!c.gated_mlp && first_given(m, mlp_keys).empty()) c.intermediate_size = 4 * c.hidden_size;  // GPT-2, GPT-J, Falcon: null
    else c.intermediate_size = positive_of(m, mlp_keys);
    return;
  }
  c.num_experts = positive_int(m, key);
  c.experts_per_token = positive_int(m, "num_experts_per_tok");
  if (c.experts_per_token > c.num_experts)
    m.fail(m.node("num_experts_per_tok"), "num_experts_per_tok " + std::to_string(c.experts_per_token) + " exceeds the " +
                                              std::to_string(c.num_experts) + " experts (" + key + ")");
  const bool moe_width = given(m, "moe_intermediate_size");
  c.intermediate_size = positive_int(m, moe_width ? "moe_intermediate_size" : "intermediate_size");
  c.dense_intermediate_size = moe_width && given(m, "intermediate_size") ? positive_int(m, "intermediate_size") : c.intermediate_size;
  c.shared_experts = m.str_or("model_type", "") == "llama4_text" ? 1 : count_or_zero(m, "n_shared_experts");
  c.first_dense_layers = count_or_zero(m, "first_k_dense_replace");
  if (c.first_dense_layers >= c.num_layers)
    m.fail(m.node("first_k_dense_replace"), "first_k_dense_replace " + std::to_string(c.first_dense_layers) + " leaves no MoE layer of the " +
                                                std::to_string(c.num_layers));
}

void read_attention_variants(const YamlMap& m, ModelCard& c) {
  if (given(m, "kv_lora_rank")) read_mla(m, c);
  if (given(m, "layer_types")) read_layer_types(m, c);
  if (!given(m, "sliding_window")) return;
  c.sliding_window = positive_int(m, "sliding_window", MAX_CONTEXT);
  if (given(m, "layer_types")) return;
  if (m.boolean_or("use_sliding_window", true)) c.sliding_layers.assign(std::size_t(c.num_layers), true);
  else c.sliding_window = 0;  // Qwen's sliding_window with use_sliding_window: false is not applied
}

}  // namespace tpsim::card_fields
