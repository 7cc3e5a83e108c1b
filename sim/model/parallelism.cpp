#include "parallelism.hpp"

#include <fmt/format.h>

namespace tpsim {

Parallelism parallelism_of(const ConfigSpec& c, const Scenario& s) {
  Parallelism p;
  p.tp = c.tp, p.pp = c.pp, p.ep = c.ep;
  p.sequence_parallel = s.collectives.sequence_parallel;
  p.moe_imbalance = c.moe_imbalance.value_or(DEFAULT_MOE_IMBALANCE);
  return p;
}

KvBlockShape kv_block_shape(const ModelCard& model, int tp, int pp) {
  const KvFootprint f = kv_footprint_rank(model, tp, pp);
  KvBlockShape shape;
  if (f.window_B_per_token <= 0) return shape;
  shape.window = f.window;
  shape.window_share = f.window_B_per_token / f.total_B_per_token();
  return shape;
}

std::vector<std::string> architecture_notes(const ModelCard& m, const Parallelism& par, bool imbalance_given) {
  std::vector<std::string> notes;
  if (par.ep > 1) {
    const int dp = par.attention_dp();
    notes.push_back(fmt::format("EP={}: {} of the {} routed experts per GPU{}; {}", par.ep, m.num_experts / par.ep, m.num_experts,
                                m.shared_experts ? fmt::format(", {} shared expert(s) on every GPU (sharded over TP={})", m.shared_experts, par.tp) : "",
                                dp > 1 ? fmt::format("attention data-parallel over {} groups of TP={} (the busiest group's sequences set the step; "
                                                     "one scheduler for the replica, sequences spread round-robin)", dp, par.tp)
                                       : "no attention DP: the experts' outputs are summed by the MLP all-reduce"));
    notes.push_back(fmt::format("MoE load imbalance {:.2f} (busiest EP rank's tokens / mean){}", par.moe_imbalance,
                                imbalance_given ? "" : ": default, the low end of unbalanced measurements (UltraEP, arXiv 2606.04101); "
                                                       "set moe_imbalance for EPLB-balanced serving (1.01-1.04)"));
    if (dp > 1) notes.push_back("dispatch and combine all-to-alls carry bf16 activations (DeepSeek's fp8 dispatch would halve the first)");
  }
  if (m.mla.on())
    notes.push_back(fmt::format("MLA: KV cache {} values per token per layer (kv_lora_rank {} + qk_rope_head_dim {}), held whole on every TP rank; "
                                "decode absorbs kv_b_proj, prefill expands it",
                                m.mla.cached_values(), m.mla.kv_lora_rank, m.mla.qk_rope_head_dim));
  if (m.sliding_window > 0) {
    long sliding = 0;
    for (int l = 0; l < m.num_layers; ++l) sliding += m.sliding_layer(l);
    notes.push_back(fmt::format("{} of {} layers attend to a {}-token sliding window: their KV per sequence stops growing there", sliding,
                                m.num_layers, m.sliding_window));
  }
  return notes;
}

}  // namespace tpsim
