// Model cards beyond Llama: GPT-style MLPs, parallel blocks, learned positions, quantised weights
// and an fp8 KV cache. Each check states the formula behind the expected number.
#include <doctest/doctest.h>

#include <algorithm>

#include <fstream>

#include "../scratch_dir.hpp"
#include "config/model_card.hpp"
#include "util/error.hpp"
#include "workloads/step_ops.hpp"

using namespace tpsim;

namespace {

const std::string ROOT = TPSIM_SOURCE_DIR;
ModelCard card(const std::string& name) { return load_model_card(ROOT + "/workloads/models/" + name + ".yaml"); }

// Llama-3.1-8B's shapes with a quantization_config as Hugging Face checkpoints write it.
ModelCard quantised(const std::string& name, const std::string& config) {
  const auto path = tpsim::test::scratch_dir() / (name + ".yaml");
  std::ofstream(path) << "model: " << name << "\nhidden_size: 4096\nnum_hidden_layers: 32\nnum_attention_heads: 32\n"
                      << "num_key_value_heads: 8\nintermediate_size: 14336\nvocab_size: 128256\ntorch_dtype: bfloat16\n"
                      << "quantization_config: " << config << "\n";
  return load_model_card(path.string());
}

// A small card (d 64, 2 layers) whose line 6 is `quantization_config: CONFIG`, written as NAME.yaml: its path.
std::string small_quantised_card(const std::string& name, const std::string& config) {
  const auto path = tpsim::test::scratch_dir() / (name + ".yaml");
  std::ofstream(path) << "hidden_size: 64\nnum_hidden_layers: 2\nnum_attention_heads: 4\nintermediate_size: 128\nvocab_size: 100\n"
                      << "quantization_config: " << config << "\n";
  return path.string();
}

int count_ops(const StepOps& ops, OpKind kind, CollectiveOp op = CollectiveOp::all_reduce) {
  int n = 0;
  for (const Op& o : ops.flatten()) n += o.kind == kind && (kind != OpKind::collective || o.collective == op);
  return n;
}

double layer_gemm_weight_bytes(const StepOps& ops) {
  double b = 0;
  for (const Op& o : ops.layer()) b += o.kind == OpKind::gemm ? o.weight_bytes : 0;
  return b;
}

// The linear layers' parameters of one layer: QKV, output, MLP (gate/up/down or up/down).
double linear_params(const ModelCard& m) {
  const double d = m.hidden_size, q = double(m.num_heads) * m.head_dim, kv = double(m.num_kv_heads) * m.head_dim;
  return d * (q + 2 * kv) + q * d + (m.gated_mlp ? 3 : 2) * d * m.intermediate_size;
}

}  // namespace

TEST_CASE("GPT-NeoX-20B: LayerNorm, biases and a two-matrix MLP give the model card's 20,554,567,680 parameters") {
  const ModelCard m = card("gpt-neox-20b");
  CHECK_FALSE(m.gated_mlp);
  CHECK(m.layer_norm);
  CHECK(m.parallel_block);
  // Per layer: 4d^2 (QKV, dense) + 2dI (up, down) + 3d + d (attention biases) + I + d (MLP biases)
  // + 2 x 2d (two LayerNorms); 44 layers + 2 x 50432 d (untied embed_in, embed_out) + 2d (final LayerNorm).
  const double d = 6144, I = 24576;
  const double layer = 4 * d * d + 2 * d * I + 4 * d + I + d + 4 * d;
  CHECK(m.layer_params() == doctest::Approx(layer).scale(0).epsilon(1e-15));
  CHECK(m.total_params() == doctest::Approx(20554567680.0).scale(0).epsilon(1e-15));
  CHECK(m.weight_bytes() == doctest::Approx(2 * 20554567680.0).scale(0).epsilon(1e-15));  // float16
}

TEST_CASE("Falcon-40B: 8 KV heads, two norms, no biases; the checkpoint's 83.67 GB less its stored lm_head copy") {
  const ModelCard m = card("falcon-40b");
  CHECK(m.num_kv_heads == 8);
  CHECK(m.head_dim == 64);
  CHECK(m.intermediate_size == 4 * 8192);  // ffn_hidden_size not given: 4 x hidden
  CHECK(m.norms_per_layer == 2);           // ln_attn, ln_mlp (new_decoder_architecture)
  CHECK(m.tie_word_embeddings);
  // pytorch_model.bin.index.json total_size 83,671,941,120 B in bf16, which stores lm_head (65024 x 8192) too.
  CHECK(m.total_params() == doctest::Approx(83671941120.0 / 2 - 65024.0 * 8192).scale(0).epsilon(1e-15));
  // KV cache: 2 (K, V) x 8 heads x 64 x 2 B = 2 KiB per token per layer, 8 heads over TP=8: 1 head each.
  CHECK(m.kv_bytes_per_token_layer() == 2 * 8 * 64 * 2);
  CHECK(kv_bytes_per_token_rank(m, 8) == doctest::Approx(60 * 2 * 1 * 64 * 2.0).scale(0));
}

TEST_CASE("parallel blocks: L all-reduces per step, not 2L; one kernel fewer per layer where one norm feeds both") {
  const std::vector<SequenceWork> decode(4, {512, 1});
  struct Case { const char* card; int layers; int kernels_per_layer; };
  // Llama: norm, QKV, attention, o, all-reduce, norm, gate_up, silu_mul, down, all-reduce = 10.
  // GPT-J: ln_1, QKV, attention, out, fc_in, gelu, fc_out, all-reduce = 8 (one norm feeds both).
  // NeoX and Falcon-40B: two norms of the same input = 9.
  for (auto [name, layers, kernels] : {Case{"llama-3.1-8b", 32, 10}, Case{"gpt-j-6b", 28, 8}, Case{"gpt-neox-20b", 44, 9},
                                       Case{"falcon-40b", 60, 9}}) {
    CAPTURE(name);
    const ModelCard m = card(name);
    const StepOps ops = step_ops(m, 2, decode);
    CHECK(int(ops.layer().size()) == kernels);
    CHECK(count_ops(ops, OpKind::collective) == (m.parallel_block ? 1 : 2) * layers);
    CHECK(count_ops(ops, OpKind::collective, CollectiveOp::all_gather) == 1);  // the logits
    // With sequence parallelism each layer's one all-reduce is a reduce-scatter and an all-gather.
    if (m.parallel_block)
      CHECK(count_ops(step_ops(m, 2, decode, 1, true), OpKind::collective, CollectiveOp::reduce_scatter) == layers);
  }
}

TEST_CASE("two-matrix GeLU MLP with biases: GPT-J reads 4d^2 + 2dI weights per layer plus I + d MLP biases") {
  const ModelCard m = card("gpt-j-6b");
  CHECK(m.intermediate_size == 16384);  // n_inner: null -> 4 x n_embd
  CHECK(m.max_position_embeddings == 2048);  // n_positions
  const double d = 4096, I = 16384, s = 2;
  // TP=1: QKV (3d x d, no bias), out (d x d, no bias), fc_in (I x d + I bias), fc_out (d x I + d bias).
  CHECK(layer_gemm_weight_bytes(step_ops(m, 1, {{0, 1}})) == doctest::Approx((4 * d * d + 2 * d * I + I + d) * s).scale(0));
  // TP=4: every weight and bias a quarter (column-parallel rows, row-parallel columns).
  CHECK(layer_gemm_weight_bytes(step_ops(m, 4, {{0, 1}})) == doctest::Approx((4 * d * d + 2 * d * I + I + d) * s / 4).scale(0));
  CHECK(m.layer_bytes(4) == doctest::Approx((4 * d * d + 2 * d * I + I + d + 2 * d) * s / 4).scale(0));  // + ln_1 weight and bias
}

TEST_CASE("OPT-13B: learned positions are 2050 rows of a replicated table, and each token reads one of them") {
  const ModelCard m = card("opt-13b");
  const double d = 5120, s = 2;
  CHECK(m.learned_positions == 2048 + 2);  // OPT's position offset of 2
  CHECK(m.tie_word_embeddings);
  // Per rank at TP=2: layers / 2 + the tied embedding split by vocabulary (50272 d / 2, vLLM's
  // VocabParallelEmbedding) + positions (2050 d) and the final LayerNorm (2d), replicated.
  CHECK(weight_bytes_per_rank(m, 2) == doctest::Approx(40 * m.layer_bytes(2) + (50272.0 / 2 + 2050 + 2) * d * s).scale(0));
  // A prefill of 100 tokens reads 100 token rows and 100 position rows: 2 x 100 d s.
  CHECK(step_ops(m, 2, {{0, 100}}).prologue[0].weight_bytes == doctest::Approx(2 * 100 * d * s).scale(0));
}

TEST_CASE("int4 AWQ: linear weights at 0.5 B per parameter plus an fp16 scale and a 4-bit zero per group of 128") {
  const ModelCard awq = quantised("awq", "{bits: 4, group_size: 128, quant_method: awq, version: gemm, zero_point: true}");
  const ModelCard bf16 = card("llama-3.1-8b");
  CHECK(awq.compute_bytes() == 2);  // dequantised to 16-bit GEMMs
  // Per linear parameter: 0.5 + (2 + 0.5) / 128 bytes; embedding, LM head and norms stay in bf16.
  const double linear = linear_params(awq);
  CHECK(awq.layer_bytes(1) == doctest::Approx(linear * (0.5 + 2.5 / 128) + 2 * 4096 * 2).scale(0).epsilon(1e-12));
  CHECK(awq.weight_bytes() == doctest::Approx(bf16.weight_bytes() - 32 * linear * (2 - 0.5 - 2.5 / 128)).scale(0).epsilon(1e-12));
  // A decode step reads the quantised shards: QKV at TP=2 is 3072 x 4096 -> 3072 x 4096 x 0.5 + 3072 x 32 x 2.5 B.
  const StepOps ops = step_ops(awq, 2, {{128, 1}});
  CHECK(ops.layer()[1].weight_bytes == doctest::Approx(3072.0 * 4096 * 0.5 + 3072.0 * 32 * 2.5).scale(0));
  CHECK(ops.layer()[1].flops == doctest::Approx(2.0 * 3072 * 4096).scale(0));  // the GEMM's flops do not change
}

TEST_CASE("GPTQ int8 weight-only, MXFP4, NVFP4, block fp8, compressed-tensors: bytes per linear parameter and the compute type") {
  struct Case { const char* name; const char* config; double bytes_per_param; double compute; };
  for (auto [name, config, per_param, compute] : {
           // int8, symmetric: 1 B + an fp16 scale per 128, no zero points
           Case{"gptq8", "{bits: 8, group_size: 128, quant_method: gptq, sym: true, desc_act: false}", 1 + 2.0 / 128, 2},
           // 4-bit GPTQ with one scale per output row (group_size -1): 0.5 B + 2 B / k
           Case{"gptq4_rows", "{bits: 4, group_size: -1, quant_method: gptq, sym: true}", 0, 2},
           Case{"mxfp4", "{quant_method: mxfp4}", 0.5 + 1.0 / 32, 2},         // E2M1 + an E8M0 scale per 32
           Case{"nvfp4", "{quant_method: modelopt, quant_algo: NVFP4}", 0.5 + 1.0 / 16, 2},  // E2M1 + an E4M3 scale per 16
           Case{"fp8", "{quant_method: fp8, activation_scheme: dynamic, weight_block_size: [128, 128]}", 1 + 4.0 / (128 * 128), 1},
           // llm-compressor (compressed-tensors): W8A8 FP8 with a 16-bit scale per output row, 1 B + 2 B / k (4096: 1 + 2 / 4096)
           Case{"ct_fp8", "{quant_method: compressed-tensors, format: float-quantized, ignore: [lm_head], config_groups: {group_0: "
                          "{targets: [Linear], weights: {num_bits: 8, type: float, strategy: channel, symmetric: true}, "
                          "input_activations: {num_bits: 8, type: float, strategy: token, dynamic: true}}}}",
                1 + 2.0 / 4096, 1},
           // W4A16 int4 in groups of 128 with a 16-bit scale each: 0.5 + 2 / 128; GEMMs dequantised to 16 bits
           Case{"ct_w4a16", "{quant_method: compressed-tensors, config_groups: {group_0: {targets: [Linear], weights: "
                            "{num_bits: 4, type: int, strategy: group, group_size: 128, symmetric: true}}}}",
                0.5 + 2.0 / 128, 2},
       }) {
    CAPTURE(name);
    const ModelCard m = quantised(name, config);
    CHECK(m.compute_bytes() == compute);
    if (per_param > 0) CHECK(m.quantization.linear_bytes(4096, 4096) == doctest::Approx(4096.0 * 4096 * per_param).scale(0));
    else CHECK(m.quantization.linear_bytes(14336, 4096) == doctest::Approx(14336.0 * 4096 * 0.5 + 14336.0 * 2).scale(0));
  }
}

TEST_CASE("an fp8 KV cache with 16-bit weights halves the KV bytes per token and the attention's reads") {
  const std::string path = ROOT + "/workloads/models/llama-3.1-8b.yaml";
  const ModelCard bf16 = load_model_card(path), fp8 = load_model_card(path, "", "fp8");
  CHECK(fp8.weight_bytes() == bf16.weight_bytes());
  CHECK(fp8.compute_bytes() == 2);
  // 32 layers x 2 (K, V) x 4 KV heads per rank at TP=2 x 128 x 1 B = 32 KiB per token per rank.
  CHECK(kv_bytes_per_token_rank(fp8, 2) == 32 * 2 * 4 * 128 * 1.0);
  CHECK(kv_bytes_per_token_rank(bf16, 2) == 2 * kv_bytes_per_token_rank(fp8, 2));
  // Attention over 4096 cached tokens reads (4096 + 1) x 2 x 512 x s_kv bytes of KV, plus q in and out (2 x 2048 x 2 B).
  auto attention = [](const ModelCard& m) { return step_ops(m, 2, {{4096, 1}}).layer()[2]; };
  CHECK(attention(fp8).bytes == doctest::Approx(4097.0 * 2 * 512 * 1 + 2 * 2048 * 2).scale(0));
  CHECK(attention(bf16).bytes == doctest::Approx(4097.0 * 2 * 512 * 2 + 2 * 2048 * 2).scale(0));
}

TEST_CASE("quantization_config and kv_cache_dtype values tpsim does not know are located errors") {
  const std::string path = small_quantised_card("bitsandbytes", "{quant_method: bitsandbytes, load_in_4bit: true}");
  CHECK_THROWS_WITH_AS(load_model_card(path),
                       (path + ":6:37: error: unknown quant_method 'bitsandbytes' (one of awq, gptq, fp8, mxfp4, modelopt, "
                               "compressed-tensors)").c_str(),
                       InputError);
  // compressed-tensors: several groups of layers with their own schemes (mixed precision), or a width tpsim has no format for;
  // located at config_groups' '{' (col 72: 71 characters before it on line 6) and at num_bits' value (col 97).
  const std::string mixed = small_quantised_card(
      "ct_mixed", "{quant_method: compressed-tensors, config_groups: {a: {weights: {num_bits: 8}}, b: {weights: {num_bits: 4}}}}");
  CHECK_THROWS_WITH_AS(load_model_card(mixed),
                       (mixed + ":6:72: error: config_groups: 2 groups of layers with their own schemes (mixed precision); "
                                "tpsim costs one scheme for every linear layer").c_str(),
                       InputError);
  const std::string two_bits =
      small_quantised_card("ct_2bit", "{quant_method: compressed-tensors, config_groups: {a: {weights: {num_bits: 2}}}}");
  CHECK_THROWS_WITH_AS(load_model_card(two_bits),
                       (two_bits + ":6:97: error: compressed-tensors weights of 2 bits are not a format tpsim knows (4, 8)").c_str(),
                       InputError);
  CHECK_THROWS_WITH_AS(kv_cache_dtype_bytes("fp8e4m3"),
                       "unknown kv_cache_dtype 'fp8e4m3' (one of auto, bf16, fp16, fp8, fp8_e4m3, fp8_e5m2); did you mean 'fp8_e4m3'?",
                       ValueError);
}

namespace {
// A config.json of Qwen2-MoE-like shapes (d 64, 4 layers, 8 experts of width 32) plus `extra` keys.
std::string moe_json(const std::string& name, const std::string& extra) {
  const auto path = tpsim::test::scratch_dir() / (name + ".json");
  std::ofstream(path) << "{\"hidden_size\": 64, \"num_hidden_layers\": 4, \"num_attention_heads\": 4, \"num_key_value_heads\": 4,\n"
                      << " \"vocab_size\": 100, \"num_experts\": 8, \"num_experts_per_tok\": 2, \"moe_intermediate_size\": 32,\n"
                      << " \"intermediate_size\": 128" << extra << "}\n";
  return path.string();
}
}  // namespace

TEST_CASE("layer layouts tpsim does not model are refused at their key; moe_layer_freq and a shared expert's width are read") {
  // Nemotron-H's pattern (Mamba2, attention, MLP layers), Qwen3-Next's linear attention between full layers, Nemotron-NAS's
  // per-layer blocks: costed as attention + MLP layers they would be another model (a Nemotron-H-56B card read so gave
  // 115.0 B parameters for 56.3 B and 483,328 KV bytes a token for 40,960).
  const std::string tail = ": tpsim models every layer as attention (full or sliding) followed by an MLP or experts, and costing "
                           "these layers so would misstate the weights and the KV cache; refused";
  const std::string hybrid = moe_json("hybrid", ",\n \"hybrid_override_pattern\": \"M-M*\"");
  CHECK_THROWS_WITH_AS(load_model_card(hybrid), (hybrid + ":4:29: error: 'hybrid_override_pattern' gives each layer a kind (M Mamba2, "
                                                            "* attention, - MLP, E experts)" + tail).c_str(), InputError);
  const std::string linear = moe_json("linear", ",\n \"full_attention_interval\": 4");
  CHECK_THROWS_WITH_AS(load_model_card(linear), (linear + ":4:29: error: 'full_attention_interval' makes the layers between "
                                                            "full-attention ones linear attention" + tail).c_str(), InputError);
  // Experts every 2nd layer (Llama 4 Maverick's interleave_moe_layer_step, Qwen2-MoE's decoder_sparse_step).
  const std::string every2 = moe_json("every2", ",\n \"decoder_sparse_step\": 2");
  CHECK_THROWS_WITH_AS(load_model_card(every2), (every2 + ":4:25: error: 'decoder_sparse_step' puts experts in one layer of every 2, "
                                                          "dense MLPs in the others" + tail).c_str(), InputError);
  // A multimodal config's text model under text_config (Llama 4 Maverick, Qwen3.5): named, not "missing hidden_size".
  const auto wrapped = tpsim::test::scratch_dir() / "wrapped.json";
  std::ofstream(wrapped) << "{\"architectures\": [\"Llama4ForConditionalGeneration\"],\n \"text_config\": {\"hidden_size\": 64}}\n";
  CHECK_THROWS_WITH_AS(load_model_card(wrapped.string()),
                       (wrapped.string() + ":2:17: error: the text model's fields are under 'text_config' (a multimodal model's "
                                           "config): tpsim reads a text model's card; copy them to the top level, as "
                                           "workloads/models/llama-4-scout.yaml does").c_str(),
                       InputError);
  // moe_layer_freq [0, 1, 1, 1] (MiMo): one leading dense layer, as first_k_dense_replace 1 says.
  CHECK(load_model_card(moe_json("freq", ",\n \"moe_layer_freq\": [0, 1, 1, 1]")).first_dense_layers == 1);
  const std::string gap = moe_json("gap", ",\n \"moe_layer_freq\": [0, 1, 0, 1]");
  CHECK_THROWS_WITH_AS(load_model_card(gap), (gap + ":4:20: error: 'moe_layer_freq' puts dense layers between expert layers" + tail).c_str(),
                       InputError);
  const std::string none = moe_json("none", ",\n \"moe_layer_freq\": [0, 0, 0, 0]");
  CHECK_THROWS_WITH_AS(load_model_card(none), (none + ":4:20: error: 'moe_layer_freq' lists no layer with experts").c_str(), InputError);
  const std::string short_freq = moe_json("short", ",\n \"moe_layer_freq\": [0, 1]");
  CHECK_THROWS_WITH_AS(load_model_card(short_freq),
                       (short_freq + ":4:20: error: 'moe_layer_freq' must list one entry for each of the 4 layers").c_str(), InputError);
  const std::string both = moe_json("both", ",\n \"moe_layer_freq\": [0, 1, 1, 1], \"first_k_dense_replace\": 2");
  CHECK_THROWS_WITH_AS(load_model_card(both),
                       (both + ":4:20: error: 'moe_layer_freq' makes 1 leading layers dense, first_k_dense_replace 2").c_str(), InputError);
  const std::string only = moe_json("only", ",\n \"mlp_only_layers\": [3]");
  CHECK_THROWS_WITH_AS(load_model_card(only), (only + ":4:21: error: 'mlp_only_layers' makes these layers dense" + tail).c_str(), InputError);
  // Qwen2-MoE's one shared expert of width 96 is three routed experts' widths (3 x 32): its gate/up/down
  // weights are 3 x 3 x d x 32, as three shared experts of width 32 are.
  CHECK(load_model_card(moe_json("shared", ",\n \"shared_expert_intermediate_size\": 96")).shared_experts == 3);
  // DeepSeek-V3.2's sparse attention (index_topk): costed dense, and every run's notes say so.
  const std::string sparse = moe_json("sparse", ",\n \"index_topk\": 2048, \"model\": \"dsa\"");
  CHECK(load_model_card(sparse).notes ==
        std::vector<std::string>{"dsa: its sparse attention (index_topk 2048, each query attends to that many tokens the indexer picks) "
                                 "is costed as dense attention over the whole context, an overestimate beyond 2048 tokens, and the "
                                 "indexer's own key cache and weights are left out"});
  const std::string odd = moe_json("odd", ",\n \"shared_expert_intermediate_size\": 40");
  CHECK_THROWS_WITH_AS(load_model_card(odd), (odd + ":4:37: error: 'shared_expert_intermediate_size' 40 is not a whole number of routed "
                                                    "experts' width (32): tpsim costs a shared expert as routed experts").c_str(),
                       InputError);
}

namespace {
// A dense config.json of small shapes (d 64, `layers` layers) plus `extra` keys.
std::string dense_json(const std::string& name, int layers, const std::string& extra) {
  const auto path = tpsim::test::scratch_dir() / (name + ".json");
  std::ofstream(path) << "{\"hidden_size\": 64, \"num_hidden_layers\": " << layers << ", \"num_attention_heads\": 4,\n"
                      << " \"num_key_value_heads\": 2, \"vocab_size\": 100, \"intermediate_size\": 128" << extra << "}\n";
  return path.string();
}

int sliding_count(const ModelCard& m) {
  int n = 0;
  for (int i = 0; i < m.num_layers; ++i) n += m.sliding_layer(i);
  return n;
}
}  // namespace

TEST_CASE("which layers slide without layer_types: Gemma 3's pattern, Gemma 2's alternation, Qwen's max_window_layers") {
  // Gemma 3 (sliding_window_pattern 6): layer i attends in full when (i + 1) % 6 == 0, so 62 layers have 10 full
  // (5, 11, ..., 59) and 52 sliding; read before as 62 sliding, its KV per sequence capped at 1024 tokens in every layer.
  const ModelCard g3 = load_model_card(dense_json("gemma3", 62, ", \"model_type\": \"gemma3_text\", \"sliding_window\": 1024, "
                                                                "\"sliding_window_pattern\": 6"));
  CHECK(sliding_count(g3) == 52);
  CHECK(g3.sliding_layer(0));
  CHECK_FALSE(g3.sliding_layer(5));
  CHECK_FALSE(g3.sliding_layer(59));
  // Gemma ties its embeddings unless its config says otherwise (GemmaConfig's default): no lm_head of its own.
  CHECK(g3.tie_word_embeddings);
  CHECK(g3.lm_head_params() == 0);
  // Gemma 2: every other layer from the first slides, 46 layers -> 23.
  const ModelCard g2 = load_model_card(dense_json("gemma2", 46, ", \"model_type\": \"gemma2\", \"sliding_window\": 4096"));
  CHECK(sliding_count(g2) == 23);
  CHECK(g2.sliding_layer(0));
  CHECK_FALSE(g2.sliding_layer(1));
  // Qwen2 with use_sliding_window and max_window_layers 20 of 28: layers 20-27 slide, the first 20 attend in full.
  const ModelCard q = load_model_card(dense_json("qwen2", 28, ", \"model_type\": \"qwen2\", \"sliding_window\": 32768, "
                                                              "\"use_sliding_window\": true, \"max_window_layers\": 20"));
  CHECK(sliding_count(q) == 8);
  CHECK_FALSE(q.sliding_layer(19));
  CHECK(q.sliding_layer(20));
  // Mistral's sliding_window alone: every layer.
  CHECK(sliding_count(load_model_card(dense_json("mistral", 32, ", \"sliding_window\": 4096"))) == 32);
}

TEST_CASE("a card's context window: Llama 3.1's 131072 at every size, and a card without one says requests go unchecked") {
  // Llama 3.1: a 128K context, 131072 = 128 x 1024 tokens in config.json, 8B, 70B and 405B alike.
  for (const char* name : {"llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b"}) CHECK_MESSAGE(card(name).max_position_embeddings == 128 * 1024, name);
  const ModelCard falcon = card("falcon-40b");
  CHECK(falcon.max_position_embeddings == 0);
  CHECK(std::count(falcon.notes.begin(), falcon.notes.end(),
                   "Falcon-40B: the card gives no context length (max_position_embeddings): prompts and outputs of any length are "
                   "simulated, none checked against the model's window") == 1);
}
