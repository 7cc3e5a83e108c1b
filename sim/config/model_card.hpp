// A model's shapes, read from a model card (YAML with Hugging Face config.json field names)
// or from a config.json itself. Decoder-only transformers: Llama-style (gated SiLU MLP, RMSNorm,
// rotary, grouped-query attention), GPT-style (two-matrix GeLU/ReLU MLP, LayerNorm, biases,
// learned position embeddings: GPT-2, OPT), parallel attention + MLP blocks (GPT-J, GPT-NeoX,
// Falcon), Mixture-of-Experts (num_local_experts / n_routed_experts / num_experts, shared experts,
// leading dense layers), multi-head latent attention (DeepSeek's MLA), sliding-window and hybrid
// layers (sliding_window, layer_types), and quantised weights (quantization_config: AWQ, GPTQ,
// fp8, MXFP4, NVFP4). What config.json leaves implicit follows
// the model_type, as the Hugging Face model classes do. Byte counts are derived here, once: the
// weights of a layer (sharded over TP), of the embedding and of the LM head.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace tpsim {

// How the linear layers' weights are stored. Embeddings, the LM head, norms and biases keep the
// card's dtype. An n x k weight (out x in) takes n·k·bits/8 bytes plus, per output row, one scale
// (and zero point) of `scale_bytes` per `group_size` inputs (group_size 0: one per row).
struct Quantization {
  std::string method;        // "" (none), awq, gptq, fp8, mxfp4, nvfp4
  double bits = 0;           // bits per weight
  long group_size = 0;
  double scale_bytes = 0;    // bytes of one group's scale plus zero point
  bool fp8_compute = false;  // W8A8: GEMMs in fp8; every other method dequantises to 16-bit compute
  bool attention = true;     // false: modules_to_not_convert keeps self_attn in the card's dtype (gpt-oss)
  double linear_bytes(double n, double k) const;
};

// Multi-head latent attention (DeepSeek-V2/V3, config.json names): K and V are rebuilt per head
// from a compressed latent c_kv of kv_lora_rank values plus one shared rotary key of
// qk_rope_head_dim values; the KV cache holds only those, (kv_lora_rank + qk_rope_head_dim)
// values per token per layer, the same on every TP rank.
struct Mla {
  int q_lora_rank = 0;        // 0: queries projected from d directly
  int kv_lora_rank = 0;       // 0: not MLA
  int qk_nope_head_dim = 0;   // per-head query/key width without rotary
  int qk_rope_head_dim = 0;   // rotary part (of the query per head, of the key shared)
  int v_head_dim = 0;
  bool on() const { return kv_lora_rank > 0; }
  int qk_head_dim() const { return qk_nope_head_dim + qk_rope_head_dim; }
  double cached_values() const { return double(kv_lora_rank) + qk_rope_head_dim; }
};

struct ModelCard {
  std::string name;
  std::string hf_id;            // Hugging Face repository id (`hf_id`, or config.json's _name_or_path); "" = not given
  int hidden_size = 0;          // d
  int num_layers = 0;           // L
  int num_heads = 0;            // attention (query) heads
  int num_kv_heads = 0;         // key/value heads (GQA)
  int head_dim = 0;
  int intermediate_size = 0;    // MLP (per expert for MoE)
  int vocab_size = 0;
  bool tie_word_embeddings = false;
  int num_experts = 0;          // routed experts; 0 for dense
  int experts_per_token = 0;    // top-k
  int shared_experts = 0;       // n_shared_experts: experts every token visits (intermediate_size each)
  int first_dense_layers = 0;   // first_k_dense_replace: leading layers with a dense MLP
  int dense_intermediate_size = 0;  // their MLP width (the card's intermediate_size)
  Mla mla;
  long sliding_window = 0;          // tokens a sliding-window layer attends to; 0: none
  std::vector<bool> sliding_layers; // per layer: sliding-window attention (layer_types); empty: none
  // Architecture (defaults of the model_type, then the config's own fields).
  bool gated_mlp = true;        // gate + up + down (SwiGLU); false: up + down (GPT, OPT, Falcon)
  std::string hidden_act = "silu";
  bool layer_norm = false;      // LayerNorm (weight and bias) rather than RMSNorm (weight)
  int norms_per_layer = 2;
  bool parallel_block = false;  // attention and MLP read the same input: one all-reduce per layer
  bool attention_bias = false;  // biases of QKV and the output projection
  bool mlp_bias = false;        // biases of the MLP projections
  long learned_positions = 0;   // rows of a learned position table (GPT-2, OPT); 0: rotary or ALiBi
  long max_position_embeddings = 0;  // context window in tokens; 0 = not given
  Quantization quantization;
  double weight_bytes_per_param = 2;  // element size of unquantised weights: bf16 = 2, fp8 = 1
  double kv_bytes_per_value = 2;      // KV-cache element size
  std::string dtype = "bf16";
  // What the card says that tpsim does not model and costs otherwise (DeepSeek Sparse Attention as dense
  // attention): each run's notes repeat it.
  std::vector<std::string> notes;

  bool moe_layer(int l) const { return num_experts > 0 && l >= first_dense_layers; }
  bool sliding_layer(int l) const { return std::size_t(l) < sliding_layers.size() && sliding_layers[l]; }
  int mlp_width(int l) const { return moe_layer(l) || num_experts == 0 ? intermediate_size : dense_intermediate_size; }

  // Parameter counts.
  double layer_params(int l = 0) const;  // attention + MLP (all experts) + norms and biases, layer l
  double embedding_params() const;   // vocab x d
  double position_params() const { return double(learned_positions) * hidden_size; }
  double lm_head_params() const;     // vocab x d, or 0 when tied
  double final_norm_params() const { return layer_norm ? 2.0 * hidden_size : hidden_size; }
  double total_params() const;
  // Weight bytes of one layer on one of `tp` ranks (column-parallel QKV, gate/up; row-parallel
  // output and down projections; norms and biases counted as sharded too).
  // With ep > 1 a MoE layer's routed experts are not sharded but spread: num_experts / ep whole
  // experts per rank (attention, dense and shared-expert MLPs stay sharded over tp).
  double layer_bytes(int tp = 1, int l = 0, int ep = 1) const;
  double weight_bytes() const;
  // Bytes of one n x k linear weight (or shard) as stored: quantised, or in the card's dtype.
  // `attention`: a projection of self-attention (kept unquantised when the quantization says so).
  double linear_weight_bytes(double n, double k, bool attention = false) const;
  // Bytes per element the GEMMs compute in: 1 for fp8 (W8A8), else 2.
  double compute_bytes() const { return quantization.fp8_compute || weight_bytes_per_param <= 1 ? 1 : 2; }
  // KV bytes per token per layer for the whole model: K and V of all KV heads, or MLA's latent.
  double kv_bytes_per_token_layer() const {
    return (mla.on() ? mla.cached_values() : 2.0 * num_kv_heads * head_dim) * kv_bytes_per_value;
  }
};

// Reads a model card (.yaml) or a Hugging Face config.json (.json). `dtype` overrides the card's
// (e.g. "fp8") and `kv_cache_dtype` the card's KV-cache type; empty keeps them. Errors are
// located InputErrors.
ModelCard load_model_card(const std::string& path, const std::string& dtype_override = "",
                          const std::string& kv_cache_dtype_override = "");

// Bytes per element of a dtype name ("bf16", "fp16", "fp8", "fp32", "int8"); throws ValueError.
double dtype_bytes(const std::string& dtype);
// Bytes per KV-cache element of a kv_cache_dtype (vLLM's names: auto = 16-bit, fp8, fp8_e4m3,
// fp8_e5m2, bf16, fp16); throws ValueError naming the known ones.
double kv_cache_dtype_bytes(const std::string& kv_cache_dtype);
const std::vector<std::string>& kv_cache_dtypes();

}  // namespace tpsim
