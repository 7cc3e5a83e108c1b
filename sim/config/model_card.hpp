// A model's shapes, read from a model card (YAML with Hugging Face config.json field names)
// or from a config.json itself. Dense decoder-only transformers with grouped-query attention;
// Mixture-of-Experts models (num_local_experts / n_routed_experts) are read with their expert
// shapes. Byte counts are derived here, once: the weights of a layer, of the embedding and of
// the LM head.
#pragma once
#include <string>

namespace tpsim {

struct ModelCard {
  std::string name;
  int hidden_size = 0;          // d
  int num_layers = 0;           // L
  int num_heads = 0;            // attention (query) heads
  int num_kv_heads = 0;         // key/value heads (GQA)
  int head_dim = 0;
  int intermediate_size = 0;    // MLP (per expert for MoE)
  int vocab_size = 0;
  bool tie_word_embeddings = false;
  int num_experts = 0;          // 0 for dense
  int experts_per_token = 0;
  double weight_bytes_per_param = 2;  // bf16 = 2, fp8 = 1
  double kv_bytes_per_value = 2;      // KV-cache element size
  std::string dtype = "bf16";

  // Parameter counts.
  double layer_params() const;       // attention + MLP (all experts) + norms, one layer
  double embedding_params() const;   // vocab x d
  double lm_head_params() const;     // vocab x d, or 0 when tied
  double total_params() const;
  double weight_bytes() const { return total_params() * weight_bytes_per_param; }
  // KV bytes per token per layer for the whole model (all KV heads).
  double kv_bytes_per_token_layer() const { return 2.0 * num_kv_heads * head_dim * kv_bytes_per_value; }
};

// Reads a model card (.yaml) or a Hugging Face config.json (.json). `dtype` overrides the card's
// (e.g. "fp8"); empty keeps it. Errors are located InputErrors.
ModelCard load_model_card(const std::string& path, const std::string& dtype_override = "");

// Bytes per element of a dtype name ("bf16", "fp16", "fp8", "fp32", "int8"); throws ValueError.
double dtype_bytes(const std::string& dtype);

}  // namespace tpsim
