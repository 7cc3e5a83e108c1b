// Mixture-of-experts, expert parallelism, MLA and sliding windows out of the cost model (no
// engine). Each check states the formula and the numbers behind the expected value.
#include <doctest/doctest.h>

#include "config/model_card.hpp"
#include "config/platform_file.hpp"
#include "model/collective_model.hpp"
#include "model/parallelism.hpp"
#include "model/scheduler.hpp"
#include "model/step_cost.hpp"

using namespace tpsim;

namespace {

const std::string ROOT = TPSIM_SOURCE_DIR;
ModelCard card(const std::string& name) { return load_model_card(ROOT + "/workloads/models/" + name + ".yaml"); }

const Op& op_named(const std::vector<Op>& ops, const std::string& name) {
  for (const Op& o : ops)
    if (name == o.name) return o;
  FAIL("no op " << name);
  return ops.front();
}

struct Platform {
  PlatformDesc desc;
  Topology topo;
  CollectiveModel cm;
  explicit Platform(const std::string& file)
      : desc(load_platform_file(ROOT + "/platforms/" + file)), topo(desc, HardwareSpec{}, ""), cm(topo, CollectiveSpec{}, nullptr) {}
};

std::vector<int> gpus(int n) {
  std::vector<int> g;
  for (int i = 0; i < n; ++i) g.push_back(i);
  return g;
}

}  // namespace

TEST_CASE("all-to-all on one DGX H100: each rank sends S (N-1)/N bytes, S/N to every peer, through its NVSwitch port") {
  Platform p("dgx_h100.xml");
  const double S = 64.0 * (1 << 20);
  const CollectivePlan& a = p.cm.plan(CollectiveOp::all_to_all, S, gpus(8));
  CHECK(a.bus_bytes == doctest::Approx(S * 7 / 8).scale(0));          // busbw factor (N-1)/N
  CHECK(bus_factor(CollectiveOp::all_to_all, 8) == doctest::Approx(7.0 / 8).scale(0));
  CHECK(a.flows.size() == 8 * 7);                                      // one flow per ordered pair
  // Alone: the 7 flows of a rank share its 450 GB/s port at NCCL's 80% of NVLink's wire rate:
  // t = S (7/8) / (450e9 x 0.8); latency = Simple base 8.4 us + one step of 3.4 us.
  CHECK(a.bandwidth_s == doctest::Approx(S * 7 / 8 / (450e9 * 0.8)).scale(0).epsilon(1e-9));
  CHECK(a.latency_s == doctest::Approx(8.4e-6 + 3.4e-6).scale(0).epsilon(1e-12));
  CHECK(a.busbw_Bps() == doctest::Approx(a.algbw_Bps() * 7 / 8).scale(0));
}

TEST_CASE("all-to-all over two DGX H100 nodes: half of each rank's buffer crosses its NIC at 47 GB/s and sets the pace") {
  Platform p("2x_dgx_h100_ib.xml");
  const double S = 256.0 * (1 << 20);
  const CollectivePlan& a = p.cm.plan(CollectiveOp::all_to_all, S, gpus(16));
  CHECK(a.bus_bytes == doctest::Approx(S * 15 / 16).scale(0));
  CHECK(a.worst_class == PathClass::NET);
  // 8 of a rank's 15 peers are on the other node: 8 x S/16 = S/2 through its NIC (400 Gb/s, 50 GB/s,
  // of which NCCL's transport reaches 0.94: 47 GB/s); the 7 local ones go over NVSwitch meanwhile.
  // t = (S/2) / 47e9; latency 8.4 + 14 us (NET, Simple).
  CHECK(a.bandwidth_s == doctest::Approx(S / 2 / 47e9).scale(0).epsilon(1e-9));
  CHECK(a.latency_s == doctest::Approx(8.4e-6 + 14e-6).scale(0).epsilon(1e-12));
}

TEST_CASE("MoE FLOPs per token with top-k: Qwen3-30B-A3B runs 6 k d I flops per token in its experts") {
  const ModelCard m = card("qwen3-30b-a3b");
  REQUIRE(m.num_experts == 128);
  REQUIRE(m.experts_per_token == 8);
  REQUIRE(m.intermediate_size == 768);
  const double B = 32, d = 2048, I = 768, k = 8;
  const StepOps ops = step_ops(m, 1, std::vector<SequenceWork>(32, {100, 1}));
  const auto& L = ops.layer();
  // gate/up: 2 x (B k) x 2I x d; down: 2 x (B k) x d x I: 6 k d I per token (2 flops per multiply-add).
  CHECK((op_named(L, "moe_gate_up").flops + op_named(L, "moe_down").flops) / B == doctest::Approx(6 * k * d * I).scale(0));
  // Router: 2 x d x 128 per token; at B = 32 the 256 token-expert rows touch at most all 128 experts' weights.
  CHECK(op_named(L, "router").flops / B == doctest::Approx(2 * d * 128).scale(0));
  CHECK(op_named(L, "moe_down").weight_bytes == doctest::Approx(128 * d * I * 2).scale(0));
  // A grouped GEMM over the experts it touches: min(128, 32 x 8) = 128 groups (a GEMM table times each group).
  CHECK(op_named(L, "moe_gate_up").groups == 128);
  CHECK(op_named(step_ops(m, 1, std::vector<SequenceWork>(1, {100, 1})).layer(), "moe_down").groups == 8);  // one token: its k = 8
  // TP=4 shards each expert's intermediate: a quarter of the flops per rank.
  const StepOps tp4 = step_ops(m, 4, std::vector<SequenceWork>(32, {100, 1}));
  CHECK(op_named(tp4.layer(), "moe_down").flops == doctest::Approx(op_named(L, "moe_down").flops / 4).scale(0));
}

TEST_CASE("expert parallelism: E/EP experts per GPU, imbalance x tokens x k / EP rows, dispatch and combine all-to-alls") {
  const ModelCard m = card("qwen3-30b-a3b");
  Parallelism par;
  par.tp = 1, par.ep = 4, par.moe_imbalance = 1.25;
  // 64 decode sequences over 4 attention groups: 16 tokens each; the busiest GPU's experts get
  // 1.25 x 64 x 8 / 4 = 160 token-expert rows, over min(32 local experts, 160) = 32 experts.
  const StepOps ops = step_ops(m, par, std::vector<SequenceWork>(64, {500, 1}));
  CHECK(ops.attention_dp == 4);
  const auto& L = ops.layer();
  const double d = 2048, I = 768;
  CHECK(op_named(L, "moe_gate_up").m == doctest::Approx(160).scale(0));
  CHECK(op_named(L, "moe_down").weight_bytes == doctest::Approx(32 * d * I * 2).scale(0));
  CHECK(op_named(L, "moe_down").groups == 32);
  CHECK(op_named(L, "qkv_proj").m == doctest::Approx(16).scale(0));  // attention on the group's own 16 sequences
  // Each GPU's buffer: imbalance x its 16 tokens x k copies x d x 2 bytes = 1.25 x 16 x 8 x 2048 x 2.
  const Op& dispatch = op_named(L, "moe_dispatch");
  CHECK(dispatch.collective == CollectiveOp::all_to_all);
  CHECK(dispatch.collective_bytes == doctest::Approx(1.25 * 16 * 8 * d * 2).scale(0));
  CHECK(op_named(L, "moe_combine").collective_bytes == doctest::Approx(dispatch.collective_bytes).scale(0));
  // Memory: a layer holds 128/4 = 32 experts of 3 d I bf16 values each (plus attention and norms).
  CHECK(m.layer_bytes(1, 0, 4) - m.layer_bytes(1, 0, 128) == doctest::Approx((32 - 1) * 3 * d * I * 2).scale(0));
}

TEST_CASE("EP with attention TP (ep = tp): no all-to-all, the experts' partial sums meet in the MLP all-reduce") {
  const ModelCard m = card("qwen3-30b-a3b");
  Parallelism par;
  par.tp = 4, par.ep = 4, par.moe_imbalance = 1;
  const StepOps ops = step_ops(m, par, std::vector<SequenceWork>(8, {500, 1}));
  int all_to_all = 0, all_reduce = 0;
  for (const Op& o : ops.layer()) {
    all_to_all += o.kind == OpKind::collective && o.collective == CollectiveOp::all_to_all;
    all_reduce += o.kind == OpKind::collective && o.collective == CollectiveOp::all_reduce;
  }
  CHECK(all_to_all == 0);
  CHECK(all_reduce == 2);
  // Every rank routes all 8 tokens: 8 x 8 / 4 = 16 rows on its 32 experts.
  CHECK(op_named(ops.layer(), "moe_gate_up").m == doctest::Approx(16).scale(0));
}

TEST_CASE("an EP step on one DGX H100 pays its all-to-alls in breakdown.all_to_all, apart from the collectives") {
  Platform p("dgx_h100.xml");
  const ModelCard m = card("qwen3-30b-a3b");
  Scenario s;
  const GpuModel gpu = gpu_model(*p.desc.gpus[0].spec, s, nullptr, 2, 2);
  Parallelism par;
  par.tp = 1, par.ep = 8;
  const StepOps ops = step_ops(m, par, std::vector<SequenceWork>(64, {500, 1}));
  const StepPlan plan = plan_step(ops, gpu, p.cm, gpus(8));
  // 48 MoE layers x (dispatch + combine), each the plan of its buffer on the 8 GPUs.
  const double one = p.cm.plan(CollectiveOp::all_to_all, op_named(ops.layer(), "moe_dispatch").collective_bytes, gpus(8)).time_s();
  CHECK(plan.breakdown.all_to_all == doctest::Approx(48 * 2 * one).scale(0).epsilon(1e-12));
  CHECK(plan.breakdown.collectives == 0);  // TP=1: nothing else to reduce
}

TEST_CASE("DeepSeek-V3: MLA attention holds 187,105,280 parameters a layer; MoE and dense layers as the card says") {
  const ModelCard m = card("deepseek-v3");
  REQUIRE(m.mla.on());
  CHECK(m.first_dense_layers == 3);
  CHECK(m.shared_experts == 1);
  CHECK(m.dense_intermediate_size == 18432);
  // q_a 1536 x 7168 + q_b 128 (128 + 64) x 1536 + kv_a (512 + 64) x 7168 + kv_b 128 (128 + 128) x 512
  // + o 7168 x 128 x 128 = 187,105,280 (verl's flops counter for DeepSeek-V3 states the same sum).
  const double attention = 187105280.0, d = 7168, norms = 2 * d + 1536 + 512;
  CHECK(m.layer_params(0) == doctest::Approx(attention + 3 * d * 18432 + norms).scale(0));
  // MoE layer: 256 routed + 1 shared expert of 3 x 7168 x 2048, the router 7168 x 256.
  CHECK(m.layer_params(3) == doctest::Approx(attention + 257 * 3 * d * 2048 + d * 256 + norms).scale(0));
  // 671B without the MTP module: 3 dense + 58 MoE layers + embedding and LM head 2 x 129280 x 7168.
  CHECK(m.total_params() / 1e9 == doctest::Approx(671.0).scale(0).epsilon(0.001));
}

TEST_CASE("MLA KV bytes per token: (kv_lora_rank + qk_rope_head_dim) x layers x bytes, the same on every TP rank") {
  const ModelCard m = card("deepseek-v3");
  // (512 + 64) values x 2 bytes (bf16 cache) = 1152 B per layer; 61 layers = 70,272 B per token.
  CHECK(m.kv_bytes_per_token_layer() == 1152);
  CHECK(kv_bytes_per_token_rank(m, 1) == doctest::Approx(61 * 1152.0).scale(0));
  CHECK(kv_bytes_per_token_rank(m, 8) == doctest::Approx(61 * 1152.0).scale(0));      // the latent is not split by heads
  CHECK(kv_bytes_per_token_rank(m, 8, 2) == doctest::Approx(31 * 1152.0).scale(0));   // the first stage's 31 layers
}

TEST_CASE("MLA decode absorbs kv_b_proj; prefill expands the latent into per-head K and V") {
  const ModelCard m = card("deepseek-v3");
  const double h = 128.0 / 8, lora = 512, rope = 64, c = 4096;
  const StepOps decode = step_ops(m, 8, {{4096, 1}});
  const auto& L = decode.layer();
  // Scores over the latent and the rotary key, values over the latent: 2 (2 x 512 + 64) flops per
  // key per head; the cache read once: (4096 + 1) x 576 values x 2 bytes.
  const Op& attn = op_named(L, "attention");
  CHECK(attn.flops == doctest::Approx(2 * (c + 1) * h * (2 * lora + rope)).scale(0));
  CHECK(attn.bytes == doctest::Approx((c + 1) * (lora + rope) * 2 + 2 * h * (lora + rope) * 2).scale(0));
  CHECK(op_named(L, "q_absorb").flops == doctest::Approx(2 * h * lora * 128).scale(0));  // 16 heads x 128 nope x 512 per token
  const StepOps prefill = step_ops(m, 8, {{0, 512}});
  // kv_b_proj over the 512 new latents: 2 x 512 x 16 (128 + 128) x 512 flops.
  CHECK(op_named(prefill.layer(), "kv_b_proj").flops == doctest::Approx(2 * 512 * h * 256 * lora).scale(0));
}

TEST_CASE("sliding-window KV caps: gpt-oss-20b's 12 sliding layers keep at most 128 tokens, its 12 full layers all") {
  const ModelCard m = card("gpt-oss-20b");
  REQUIRE(m.sliding_window == 128);
  REQUIRE(m.sliding_layer(0));
  REQUIRE_FALSE(m.sliding_layer(1));
  const KvFootprint f = kv_footprint_rank(m, 1);
  // Per layer: K and V of 8 KV heads x 64 dims x 2 bytes = 2048 B per token.
  CHECK(f.full_B_per_token == doctest::Approx(12 * 2048.0).scale(0));
  CHECK(f.window_B_per_token == doctest::Approx(12 * 2048.0).scale(0));
  // A 10,000-token sequence: 12 x 2048 x 10000 + 12 x 2048 x min(10000, 128).
  CHECK(f.sequence_B(10000) == doctest::Approx(12 * 2048.0 * 10000 + 12 * 2048.0 * 128).scale(0));
  CHECK(f.sequence_B(100) == doctest::Approx(24 * 2048.0 * 100).scale(0));  // shorter than the window: every layer holds all
  // A sliding layer's decode reads min(context, 128) + 1 tokens of KV; a full layer's context + 1.
  const StepOps ops = step_ops(m, 1, {{10000, 1}});
  REQUIRE(ops.kinds.size() == 2);
  const double per_token = 2 * 8 * 64 * 2;
  CHECK(op_named(ops.layer(0), "attention").bytes == doctest::Approx(129 * per_token + 2 * 64 * 64 * 2).scale(0));
  CHECK(op_named(ops.layer(1), "attention").bytes == doctest::Approx(10001 * per_token + 2 * 64 * 64 * 2).scale(0));
  CHECK(ops.stage_kinds[0][0] == 12);
  CHECK(ops.stage_kinds[0][1] == 12);
}

TEST_CASE("sliding-window pairs: a prefill's token j sees min(c + j + 1, W) keys") {
  // 300 new tokens, no context, window 128: tokens 0..127 see 1..128 keys (128 x 129 / 2 = 8256),
  // the other 172 see 128 each (22,016): 30,272 pairs; 2 x 8 KV x 64 x 30272 x ... in the flops.
  const ModelCard m = card("gpt-oss-20b");
  const StepOps ops = step_ops(m, 1, {{0, 300}});
  const double q_cols = 64 * 64;
  CHECK(op_named(ops.layer(0), "attention").flops == doctest::Approx(4 * 30272.0 * q_cols).scale(0));
  CHECK(op_named(ops.layer(1), "attention").flops == doctest::Approx(4 * (300.0 * 301 / 2) * q_cols).scale(0));
}

TEST_CASE("KV blocks with sliding windows: a sequence's window share stops growing past the window") {
  SchedulerSpec spec;
  spec.block_size = 16;
  // Half of a token's KV bytes in window layers (gpt-oss-20b), window 128: a 1600-token sequence holds
  // ceil(100 x 0.5 + min(1600, 144)/16 x 0.5) = 50 + 4.5 -> 55 blocks, where all-full would be 100.
  ReplicaScheduler sched(spec, 55, {128, 0.5});
  CHECK(sched.can_ever_fit({0, 0.0, 1500, 100}));
  ReplicaScheduler tight(spec, 54, {128, 0.5});
  CHECK_FALSE(tight.can_ever_fit({0, 0.0, 1500, 100}));
}

TEST_CASE("model cards: the MoE weights match the published sizes") {
  // Parameter counts as the model makers state them (total, billions): within 2%.
  CHECK(card("qwen3-30b-a3b").total_params() / 1e9 == doctest::Approx(30.5).scale(0).epsilon(0.02));
  CHECK(card("qwen3-235b-a22b").total_params() / 1e9 == doctest::Approx(235).scale(0).epsilon(0.02));
  CHECK(card("mixtral-8x7b").total_params() / 1e9 == doctest::Approx(46.7).scale(0).epsilon(0.02));
  CHECK(card("gpt-oss-120b").total_params() / 1e9 == doctest::Approx(116.8).scale(0).epsilon(0.02));
  CHECK(card("gpt-oss-20b").total_params() / 1e9 == doctest::Approx(20.9).scale(0).epsilon(0.02));
  CHECK(card("llama-4-scout").total_params() / 1e9 == doctest::Approx(109).scale(0).epsilon(0.02));
  // gpt-oss keeps attention in bf16 and stores experts in MXFP4 (4.25 bits a weight): one
  // gpt-oss-120b expert's gate/up is 5760 x 2880 x 4.25 / 8 bytes.
  const ModelCard oss = card("gpt-oss-120b");
  CHECK_FALSE(oss.quantization.attention);
  CHECK(oss.linear_weight_bytes(5760, 2880) == doctest::Approx(5760.0 * 2880 * 4.25 / 8).scale(0));
  CHECK(oss.linear_weight_bytes(5760, 2880, true) == doctest::Approx(5760.0 * 2880 * 2).scale(0));
}
