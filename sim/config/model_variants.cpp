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
// * layer layouts: every layer is attention (full or sliding, MLA or not) followed by an MLP or
//   experts, experts from first_k_dense_replace on (moe_layer_freq's leading zeros say the same); a
//   shared expert wider than a routed one (shared_expert_intermediate_size) counts as that many
//   experts' widths. A card whose layers are state-space (Mamba), linear attention, per-layer
//   architectures, or experts every N-th layer is refused at its key: costed as attention layers
//   it would be another model (a Nemotron-H card read so had twice its weights and 12x its KV cache).
#include <algorithm>
#include <fmt/format.h>

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

// Hugging Face keys of layer layouts tpsim does not model, and what they do.
const std::pair<const char*, const char*> UNMODELLED_LAYOUTS[] = {
    {"hybrid_override_pattern", "gives each layer a kind (M Mamba2, * attention, - MLP, E experts)"},
    {"layers_block_type", "mixes Mamba and attention layers"},
    {"attn_layer_period", "mixes Mamba and attention layers"},
    {"hybrid_layer_pattern", "gives each layer its own attention"},
    {"full_attention_interval", "makes the layers between full-attention ones linear attention"},
    {"block_configs", "gives each layer its own attention and MLP (skipped or resized)"},
};

void refuse(const YamlMap& m, const std::string& key, const std::string& what) {
  m.fail(m.node(key), fmt::format("'{}' {}: tpsim models every layer as attention (full or sliding) followed by an MLP or "
                                  "experts, and costing these layers so would misstate the weights and the KV cache; refused",
                                  key, what));
}

// Experts in every layer from the first `c.first_dense_layers` on: any other placement is refused.
void read_expert_layers(const YamlMap& m, ModelCard& c) {
  for (const char* step : {"interleave_moe_layer_step", "decoder_sparse_step", "expert_layer_period"})
    if (given(m, step) && m.integer(step) != 1)
      refuse(m, step, fmt::format("puts experts in one layer of every {}, dense MLPs in the others", m.integer(step)));
  if (given(m, "mlp_only_layers") && m.node("mlp_only_layers").size() > 0) refuse(m, "mlp_only_layers", "makes these layers dense");
  if (!given(m, "moe_layer_freq")) return;
  const YAML::Node freq = m.node("moe_layer_freq");
  if (!freq.IsSequence()) {
    if (m.integer("moe_layer_freq") != 1) refuse(m, "moe_layer_freq", "puts experts in one layer of every " + m.str("moe_layer_freq"));
    return;
  }
  // A list of 0 (dense) and 1 (experts) per layer: leading zeros are first_k_dense_replace.
  std::size_t dense = 0;
  while (dense < freq.size() && integer_of(m.file(), freq[dense], "moe_layer_freq entry") == 0) ++dense;
  for (std::size_t l = dense; l < freq.size(); ++l)
    if (integer_of(m.file(), freq[l], "moe_layer_freq entry") != 1) refuse(m, "moe_layer_freq", "puts dense layers between expert layers");
  if (long(freq.size()) != c.num_layers)
    m.fail(freq, "'moe_layer_freq' must list one entry for each of the " + std::to_string(c.num_layers) + " layers");
  if (long(dense) == c.num_layers) m.fail(freq, "'moe_layer_freq' lists no layer with experts");
  if (given(m, "first_k_dense_replace") && c.first_dense_layers != int(dense))
    m.fail(freq, fmt::format("'moe_layer_freq' makes {} leading layers dense, first_k_dense_replace {}", dense, c.first_dense_layers));
  c.first_dense_layers = int(dense);
}

// A shared expert's width (Qwen2-MoE's shared_expert_intermediate_size, Nemotron's
// moe_shared_expert_intermediate_size) as routed experts' widths: its MLP is theirs, wider.
void read_shared_width(const YamlMap& m, ModelCard& c) {
  const std::string key = first_given(m, {"shared_expert_intermediate_size", "moe_shared_expert_intermediate_size"});
  if (key.empty()) return;
  const int width = count_or_zero(m, key);
  const int shared = std::max(1, c.shared_experts) * width;
  if (shared % c.intermediate_size != 0)
    m.fail(m.node(key), fmt::format("'{}' {} is not a whole number of routed experts' width ({}): tpsim costs a shared expert "
                                    "as routed experts",
                                    key, width, c.intermediate_size));
  c.shared_experts = shared / c.intermediate_size;
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

void refuse_unmodelled_layouts(const YamlMap& m) {
  for (const auto& [key, what] : UNMODELLED_LAYOUTS)
    if (given(m, key)) refuse(m, key, what);
}

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
  read_expert_layers(m, c);
  read_shared_width(m, c);
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
  if (!m.boolean_or("use_sliding_window", true)) {
    c.sliding_window = 0;  // Qwen's sliding_window with use_sliding_window: false is not applied
    return;
  }
  // Which layers slide where no layer_types lists them (transformers builds the list so): every one
  // (Mistral); all but every N-th with Gemma 3's sliding_window_pattern N, every other one from the first
  // in Gemma 2; with Qwen's max_window_layers M, the layers from M on (the first M attend in full).
  const int pattern = given(m, "sliding_window_pattern") ? positive_int(m, "sliding_window_pattern", c.num_layers)
                      : m.str_or("model_type", "") == "gemma2" ? 2
                                                                : 0;
  const int full_below = given(m, "max_window_layers") ? count_or_zero(m, "max_window_layers") : 0;
  for (int i = 0; i < c.num_layers; ++i) c.sliding_layers.push_back(i >= full_below && (pattern == 0 || (i + 1) % pattern != 0));
}

}  // namespace tpsim::card_fields
