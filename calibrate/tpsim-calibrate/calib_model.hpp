// The GEMM shapes a model card produces, per tensor-parallel degree.
//
// A model card is a YAML file (workloads/models/*.yaml) or a Hugging Face config.json; only
// the top-level fields below are read, by their Hugging Face names. Per layer at TP = t,
// with vLLM's column/row-parallel split (m = tokens in the step):
//   qkv      n = (heads/t + 2*kv_per_rank) * head_dim, k = hidden
//            kv_per_rank = kv_heads/t, or 1 when t > kv_heads (KV heads are replicated)
//   o_proj   n = hidden,               k = heads/t * head_dim
//   gate_up  n = 2 * intermediate / t,  k = hidden
//   down     n = hidden,               k = intermediate / t
//   lm_head  n = ceil(vocab / t),       k = hidden
// A TP degree that does not divide the heads or the intermediate size is skipped, with the
// reason, rather than rounded.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace tpsim::calib {

struct ModelShape {
  std::string name;
  int64_t hidden_size = 0;
  int64_t intermediate_size = 0;
  int64_t num_attention_heads = 0;
  int64_t num_key_value_heads = 0;  // defaults to num_attention_heads when absent
  int64_t head_dim = 0;             // defaults to hidden_size / num_attention_heads when absent
  int64_t vocab_size = 0;
  int64_t num_hidden_layers = 0;
};

// Llama-3.1-8B (HF config.json): 4096 hidden, 14336 intermediate, 32 heads, 8 KV heads,
// head_dim 128, vocab 128256, 32 layers.
ModelShape llama31_8b();

// Reads the fields above from a model card's text. `file` names it in errors, which read
// `<file>:<line>: <message>` or `<file>: <message>`. Throws UsageError.
ModelShape parse_model_card(const std::string& text, const std::string& file);
ModelShape load_model_card(const std::string& path);

struct GemmShape {
  std::string op;  // qkv, o_proj, gate_up, down, lm_head
  int tp = 1;
  int64_t m = 0, n = 0, k = 0;
};

struct GemmPlan {
  std::vector<GemmShape> shapes;     // ordered by tp, then op (layer order), then m
  std::vector<std::string> skipped;  // one line per (op, tp) left out, with the reason
};

GemmPlan plan_gemm_shapes(const ModelShape& model, const std::vector<int>& tps,
                          const std::vector<int64_t>& ms);

// The steps tpsim-calibrate times as a whole at TP=1 (step.csv), to compare with tpsim's
// decode-step and prefill predictions: decode of `batch` sequences at `context` tokens each
// (m = batch; the KV cache read per layer is kv_cache_bytes), and prefill of `tokens` tokens
// of one sequence (m = tokens, lm_head on the last token only).
struct StepCase {
  std::string phase;  // decode | prefill
  int64_t batch = 1, context = 0, tokens = 1;
};
std::vector<StepCase> step_cases();  // decode 1, 8, 32 sequences at 1024; prefill 512 and 2048 tokens
// K and V of one layer, bf16: batch x context x kv_heads x head_dim x 2 x 2 bytes.
int64_t kv_cache_bytes(const ModelShape& model, int64_t batch, int64_t context);
// The weights of every layer and the lm_head, bf16 (what a decode step reads).
int64_t weight_bytes(const ModelShape& model);

// m (tokens) values: 1, 2, 4, ..., 16384 (15 values); quick: 1, 4, 16, 64, 256, 1024, 4096, 16384.
std::vector<int64_t> gemm_token_counts(bool quick);

}  // namespace tpsim::calib
