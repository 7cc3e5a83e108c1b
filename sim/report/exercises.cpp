#include "exercises.hpp"

#include <fmt/format.h>
#include <set>

#include "model/collective_defaults.hpp"
#include "util/units.hpp"

namespace tpsim {

RingTerms ring_terms(const CollectivePlan& p) {
  RingTerms t;
  t.n = p.nranks;
  t.alpha_s = p.nranks > 1 ? p.latency_s / (2.0 * (p.nranks - 1)) : 0;
  t.bw_Bps = p.bus_bw_Bps;
  return t;
}

double break_even_latency_s(const ModelShape& m) {
  return m.num_layers > 0 && m.hbm_Bps > 0 ? m.weight_bytes / (4.0 * m.num_layers * m.hbm_Bps) : 0;
}

namespace {

// Derive 1: bytes per rank and steps of a ring all-reduce at N, and this group's bandwidths.
std::string ring_answer(const ConfigResult& c) {
  const CollectivePlan& p = *c.prefill_collective;
  const int n = p.nranks;
  const double f = 2.0 * (n - 1) / n;
  std::string md = fmt::format(
      "- **N = {} ({})**: each rank sends 2S(N−1)/N = {:.3g}·S bytes over 2(N−1) = {} steps; for this scenario's prefill all-reduce "
      "(S = {} = {} tokens × d × 2 B) that is {} per rank. tpsim runs it {}/{} over {}{} in {}: algorithm bandwidth S/t = {}, "
      "bus bandwidth = algbw × 2(N−1)/N = {}. (The chapter's 120 GB/s algorithm bandwidth at N = 4 is 120 × 1.5 = 180 GB/s bus; "
      "at N = {} the factor is {:.3g}.)\n",
      n, c.name, f, 2 * (n - 1), format_size(p.size_B), c.prompt_tokens * c.decode_batch, format_size(f * p.size_B),
      algorithm_name(p.algorithm), protocol_name(p.protocol), path_class_name(p.worst_class), p.staged ? " (host-staged)" : "",
      format_time(p.time_s()), format_bandwidth(p.algbw_Bps()), format_bandwidth(p.busbw_Bps()), n, f);
  return md;
}

// Derive 2: a decode all-reduce at batch B, against S* of one group.
std::string regime_answer(const ConfigResult& c, const ModelShape& m) {
  const RingTerms t = ring_terms(*c.prefill_collective);
  const double f = 2.0 * (t.n - 1) / t.n;
  std::string md = fmt::format("- **{}** (N = {}, {}): α = latency / 2(N−1) = {} and BW = {} bus (its bandwidth-regime Simple plan), "
                               "so S* = N·α·BW = {}.",
                               c.name, t.n, path_class_name(c.prefill_collective->worst_class), format_time(t.alpha_s),
                               format_bandwidth(t.bw_Bps), format_size(t.crossover_B()));
  for (int batch : {1, 128}) {
    const double s = double(batch) * m.hidden_size * m.activation_bytes;
    const double lat = 2.0 * (t.n - 1) * t.alpha_s, bw = t.bw_Bps > 0 ? f * s / t.bw_Bps : 0;
    md += fmt::format(" B = {}: {} is {:.2g}× S*, latency term {} against bandwidth term {}: the {} regime.", batch, format_size(s),
                      t.crossover_B() > 0 ? s / t.crossover_B() : 0, format_time(lat), format_time(bw), lat > bw ? "latency" : "bandwidth");
  }
  return md + "\n";
}

}  // namespace

std::string markdown_exercises(const ScenarioResult& r) {
  const ModelShape& m = r.model_shape;
  if (m.hidden_size <= 0) return "";
  std::string md = fmt::format("\n## The chapter's exercises, for {} on this box\n\n", r.model_name);
  md += fmt::format("Model: L = {} layers, d = {}, activations of s = {:g} B (bf16), {} of weights; {} all-reduces per layer, {} per "
                    "token (tpsim also counts the logits all-gather of the LM head at TP > 1).\n\n",
                    m.num_layers, m.hidden_size, m.activation_bytes, format_size(m.weight_bytes), m.collectives_per_layer,
                    m.collectives_per_layer * m.num_layers);
  md += "**Recall — what the topology implies.** The worst path each configuration's all-reduces cross:\n\n";
  for (const auto& c : r.configs)
    if (c.prefill_collective)
      md += fmt::format("- {}: {}{}\n", c.name, path_class_name(c.prefill_collective->worst_class),
                        c.prefill_collective->staged ? ", staged through host memory (no P2P on that path)" : ", peer to peer");
  md += "\n**Derive 1 — a ring all-reduce, bytes and steps; bus against algorithm bandwidth.**\n\n";
  std::set<int> seen;
  for (const auto& c : r.configs)
    if (c.prefill_collective && seen.insert(c.prefill_collective->nranks).second) md += ring_answer(c);
  md += fmt::format("\n**Derive 2 — the decode message and its regime.** S = B·d·s: {} at B = 1, {} at B = 128; {} collectives per token.\n\n",
                    format_size(m.hidden_size * m.activation_bytes), format_size(128.0 * m.hidden_size * m.activation_bytes),
                    m.collectives_per_layer * m.num_layers);
  for (const auto& c : r.configs)
    if (c.prefill_collective && c.memory.fits) md += regime_answer(c, m);
  const double alpha_star = break_even_latency_s(m);
  md += fmt::format("\n**Break-even latency.** α* = M_w / (4·L·B_mem) = {} / (4 × {} × {}) = {}: a TP=2 decode all-reduce that costs "
                    "more than this gives back what halving the weights saved.",
                    format_size(m.weight_bytes), m.num_layers, format_bandwidth(m.hbm_Bps), format_time(alpha_star));
  for (const auto& c : r.configs)
    if (c.decode_collective && c.memory.fits)
      md += fmt::format(" {}: {} per decode all-reduce ({}).", c.name, format_time(c.decode_collective->time_s()),
                        c.decode_collective->time_s() < alpha_star ? "below α*" : "above α*");
  return md + "\n";
}

}  // namespace tpsim
