#include "step_ops.hpp"

#include <algorithm>

#include "op_builders.hpp"

#include "util/error.hpp"

namespace tpsim {

std::vector<Op> StepOps::flatten() const {
  std::vector<Op> all = prologue;
  for (std::size_t s = 0; s < stage_layers.size(); ++s) {
    if (s > 0) all.push_back(stage_send);
    for (std::size_t k = 0; k < kinds.size(); ++k)
      for (int l = 0; l < stage_kinds[s][k]; ++l) all.insert(all.end(), kinds[k].begin(), kinds[k].end());
  }
  all.insert(all.end(), epilogue.begin(), epilogue.end());
  return all;
}

Sharding check_tp(const ModelCard& model, int tp) {
  // Called at every step: the message strings are built only to throw.
  auto T = [tp] { return std::to_string(tp); };
  if (tp < 1) throw ValueError("tp must be at least 1");
  if (model.num_heads % tp != 0)
    throw ValueError("TP=" + T() + " does not divide the " + std::to_string(model.num_heads) + " attention heads of " + model.name);
  Sharding s{tp, model.num_heads / tp, 0, false};
  if (model.num_kv_heads % tp == 0) {
    s.kv_heads_per_rank = model.num_kv_heads / tp;
  } else if (tp % model.num_kv_heads == 0) {
    s.kv_heads_per_rank = 1;
    s.kv_replicated = true;
  } else {
    throw ValueError("TP=" + T() + " neither divides nor is a multiple of the " + std::to_string(model.num_kv_heads) +
                     " KV heads of " + model.name);
  }
  return s;
}

namespace op_builders {

Op gemm(const char* name, double m, double n, double k, double weight_bytes) {
  Op op;
  op.kind = OpKind::gemm;
  op.name = name;
  op.m = m, op.n = n, op.k = k;
  op.flops = 2 * m * n * k;
  op.weight_bytes = weight_bytes;
  op.bytes = op.weight_bytes + (m * k + m * n) * 2;  // activations in bf16
  return op;
}

Op elementwise(const char* name, double elements, double flops_per_element) {
  Op op;
  op.name = name;
  op.flops = elements * flops_per_element;
  op.bytes = 2 * elements * 2;  // read + write, bf16
  return op;
}

Op collective(const char* name, CollectiveOp kind, double bytes) {
  Op op;
  op.kind = OpKind::collective;
  op.name = name;
  op.collective = kind;
  op.collective_bytes = bytes;
  return op;
}

// Keys new token j (0-based) of a sequence with c cached tokens sees: min(c + j + 1, W) with a
// window W, c + j + 1 without; summed over the t new tokens in closed form.
double causal_pairs(double c, double t, double window) {
  if (window <= 0 || c + t <= window) return t * c + t * (t + 1) / 2;
  const double below = std::clamp(window - c, 0.0, t);  // new tokens whose keys still fit in the window
  return below * c + below * (below + 1) / 2 + (t - below) * window;
}

StepShape shape_of(const std::vector<SequenceWork>& batch, long window) {
  StepShape sh;
  const double w = double(window);
  for (const auto& seq : batch) {
    const double t = double(seq.new_tokens), c = double(seq.context);
    sh.m += t;
    sh.pairs += causal_pairs(c, t, w);
    sh.kv_tokens += (window > 0 ? std::min(c, w) : c) + t;  // the cached keys still in the window, and the new ones
  }
  sh.sequences = double(batch.size());
  return sh;
}

}  // namespace op_builders

using namespace op_builders;

std::vector<int> stage_layers(const ModelCard& model, int pp) {
  if (pp < 1 || pp > model.num_layers)
    throw ValueError("PP=" + std::to_string(pp) + " needs between 1 and the " + std::to_string(model.num_layers) + " layers of " + model.name);
  std::vector<int> layers(pp, model.num_layers / pp);
  for (int s = 0; s < model.num_layers % pp; ++s) ++layers[s];
  return layers;
}

void check_ep(const ModelCard& model, const Parallelism& par) {
  if (par.ep == 1) return;
  const std::string E = "EP=" + std::to_string(par.ep);
  if (par.ep < 1) throw ValueError("ep must be at least 1");
  if (model.num_experts == 0) throw ValueError(E + ": " + model.name + " has no experts to spread");
  if (model.num_experts % par.ep != 0)
    throw ValueError(E + " does not divide the " + std::to_string(model.num_experts) + " experts of " + model.name);
  if (par.ep % par.tp != 0)
    throw ValueError(E + " is not a multiple of TP=" + std::to_string(par.tp) + " (EP spans the attention groups of tp GPUs)");
  if (par.pp > 1) throw ValueError(E + " with PP=" + std::to_string(par.pp) + ": tpsim models expert parallelism within one stage only");
}

double weight_bytes_per_rank(const ModelCard& model, int tp, int pp, int ep) {
  const double s = model.weight_bytes_per_param;
  const std::vector<int> stages = stage_layers(model, pp);
  double heaviest = 0;
  for (std::size_t st = 0, first = 0; st < stages.size(); first += std::size_t(stages[st]), ++st) {
    double layers = 0;
    for (int l = int(first); l < int(first) + stages[st]; ++l) layers += model.layer_bytes(tp, l, ep);
    heaviest = std::max(heaviest, layers);
  }
  // The input embedding is split by vocabulary across the TP ranks as the LM head is (vLLM's
  // VocabParallelEmbedding); learned positions and the final norm are whole on each.
  const double embedding = (model.embedding_params() / tp + model.position_params() + model.final_norm_params()) * s;
  const double lm_head = model.lm_head_params() * s / tp;
  return pp == 1 ? heaviest + embedding + lm_head : heaviest + std::max(embedding, lm_head);
}

double KvFootprint::sequence_B(double tokens) const {
  return full_B_per_token * tokens + window_B_per_token * std::min(tokens, double(window));
}

KvFootprint kv_footprint_rank(const ModelCard& model, int tp, int pp) {
  const Sharding sh = check_tp(model, tp);
  // MLA's latent is one per token, held whole on every rank; GQA's K and V are split by KV head.
  const double per_layer = model.mla.on() ? model.kv_bytes_per_token_layer()
                                          : 2.0 * sh.kv_heads_per_rank * model.head_dim * model.kv_bytes_per_value;
  KvFootprint f;
  f.window = model.sliding_window;
  const int layers = stage_layers(model, pp).front();  // the first stage is the largest
  for (int l = 0; l < layers; ++l) (model.sliding_layer(l) ? f.window_B_per_token : f.full_B_per_token) += per_layer;
  return f;
}

double kv_bytes_per_token_rank(const ModelCard& model, int tp, int pp) { return kv_footprint_rank(model, tp, pp).total_B_per_token(); }

namespace {

// One layer's dense MLP on m tokens: gate/up (or up) GEMM, activation, down GEMM.
void dense_mlp_ops(std::vector<Op>& L, const ModelCard& model, int tp, double m, double width) {
  const double s = model.weight_bytes_per_param, d = model.hidden_size;
  const double inter = width / tp, up = model.gated_mlp ? 2 : 1;
  const double up_bias = model.mlp_bias ? up * inter * s : 0, down_bias = model.mlp_bias ? d / tp * s : 0;
  L.push_back(gemm(model.gated_mlp ? "gate_up_proj" : "up_proj", m, up * inter, d, model.linear_weight_bytes(up * inter, d) + up_bias));
  L.push_back(elementwise(model.gated_mlp ? "silu_mul" : "activation", m * inter, 3));
  L.push_back(gemm("down_proj", m, d, inter, model.linear_weight_bytes(d, inter) + down_bias));
}

// The sequences of the busiest of `dp` attention groups when sequence i runs on group i mod dp:
// the most tokens, then the most KV. `batch` itself without attention DP (no copy); else the
// group, held in `storage`.
const std::vector<SequenceWork>& attention_group(const std::vector<SequenceWork>& batch, int dp, std::vector<SequenceWork>& storage) {
  if (dp <= 1) return batch;
  std::vector<std::vector<SequenceWork>> groups(static_cast<std::size_t>(dp));
  for (std::size_t i = 0; i < batch.size(); ++i) groups[i % groups.size()].push_back(batch[i]);
  auto load = [](const std::vector<SequenceWork>& g) {
    const StepShape sh = shape_of(g);
    return std::pair{sh.m, sh.kv_tokens};
  };
  storage = std::move(*std::max_element(groups.begin(), groups.end(), [&](const auto& a, const auto& b) { return load(a) < load(b); }));
  return storage;
}

// What every layer of the step shares.
struct LayerContext {
  const ModelCard& model;
  const Parallelism& par;
  const Sharding& sh;
  const std::vector<SequenceWork>& mine;  // this GPU's attention group's sequences
  double m = 0, m_group = 0;              // its tokens, and the whole EP group's
};

// The row-parallel output is summed across ranks, normed, and handed to the next column-parallel GEMM.
void combine(std::vector<Op>& L, const LayerContext& x, const char* all_reduce, const char* reduce_scatter, const char* all_gather,
             const char* norm) {
  const double bytes = x.m * x.model.hidden_size * 2, tp = x.par.tp;
  if (!x.par.sequence_parallel || tp == 1) {
    L.push_back(collective(all_reduce, CollectiveOp::all_reduce, bytes));
    if (norm) L.push_back(elementwise(norm, x.m * x.model.hidden_size, 4));
    return;
  }
  L.push_back(collective(reduce_scatter, CollectiveOp::reduce_scatter, bytes));
  if (norm) L.push_back(elementwise(norm, x.m * x.model.hidden_size / tp, 4));
  L.push_back(collective(all_gather, CollectiveOp::all_gather, bytes));
}

std::vector<Op> layer_ops(const LayerContext& x, bool moe, bool sliding) {
  const ModelCard& model = x.model;
  const double d = model.hidden_size;
  std::vector<Op> L;
  L.push_back(elementwise("input_norm", x.m * d, 4));
  if (model.parallel_block && model.norms_per_layer == 2) L.push_back(elementwise("mlp_norm", x.m * d, 4));
  attention_ops(L, model, x.sh, x.mine, sliding ? model.sliding_window : 0);
  if (model.parallel_block) {
    // Attention and MLP read the same normed input; their row-parallel outputs are summed once.
    dense_mlp_ops(L, model, x.par.tp, x.m, model.intermediate_size);
    combine(L, x, "layer_all_reduce", "layer_reduce_scatter", "layer_all_gather", nullptr);
    return L;
  }
  combine(L, x, "attn_all_reduce", "attn_reduce_scatter", "attn_all_gather", "post_attn_norm");
  if (!moe) {
    dense_mlp_ops(L, model, x.par.tp, x.m, model.num_experts > 0 ? model.dense_intermediate_size : model.intermediate_size);
    combine(L, x, "mlp_all_reduce", "mlp_reduce_scatter", "mlp_all_gather", nullptr);
    return L;
  }
  moe_ops(L, model, x.par, x.m, x.m_group);
  // Without attention DP the experts' partial sums meet in the MLP all-reduce; with it the combine
  // all-to-all returned each GPU's share of its group's tokens, gathered back over the group's TP.
  if (x.par.attention_dp() == 1) combine(L, x, "mlp_all_reduce", "mlp_reduce_scatter", "mlp_all_gather", nullptr);
  else if (x.par.tp > 1) L.push_back(collective("moe_tp_all_gather", CollectiveOp::all_gather, x.m * d * 2));
  return L;
}

// The distinct layers of a model over its pipeline stages: kinds (MoE x sliding) numbered in
// the order they first appear, each kind's first layer, and per stage how many of each it runs.
struct LayerKinds {
  std::vector<int> first_layer;
  std::vector<std::vector<int>> stage_kinds;
};

LayerKinds layer_kinds(const ModelCard& model, const std::vector<int>& stage_layers) {
  LayerKinds k;
  std::vector<int> kind_of_key(4, -1);
  for (std::size_t st = 0, l = 0; st < stage_layers.size(); ++st) {
    k.stage_kinds.emplace_back(k.first_layer.size(), 0);
    for (int i = 0; i < stage_layers[st]; ++i, ++l) {
      int& kind = kind_of_key[std::size_t(model.moe_layer(int(l))) * 2 + std::size_t(model.sliding_layer(int(l)))];
      if (kind < 0) {
        kind = int(k.first_layer.size());
        k.first_layer.push_back(int(l));
        for (auto& counts : k.stage_kinds) counts.resize(k.first_layer.size(), 0);
      }
      ++k.stage_kinds[st][std::size_t(kind)];
    }
  }
  return k;
}

}  // namespace

StepAttention::StepAttention(const ModelCard& model, const Parallelism& par) : model_(model), par_(par), sh_(check_tp(model, par.tp)) {
  check_ep(model, par);
  LayerKinds k = layer_kinds(model, stage_layers(model, par.pp));
  for (int l : k.first_layer) windows_.push_back(model.sliding_layer(l) ? model.sliding_window : 0);
  stage_kinds_ = std::move(k.stage_kinds);
}

int StepAttention::ops(const std::vector<SequenceWork>& batch, std::vector<Op>& out) const {
  std::vector<SequenceWork> busiest;
  const std::vector<SequenceWork>& mine = attention_group(batch, par_.attention_dp(), busiest);
  out.resize(windows_.size());
  for (std::size_t k = 0; k < windows_.size(); ++k) out[k] = attention_op(model_, sh_, mine, windows_[k]);
  return int(mine.size());
}

StepOps step_ops(const ModelCard& model, int tp, const std::vector<SequenceWork>& batch, int pp, bool sequence_parallel) {
  Parallelism par;
  par.tp = tp, par.pp = pp, par.sequence_parallel = sequence_parallel;
  return step_ops(model, par, batch);
}

StepOps step_ops(const ModelCard& model, const Parallelism& par, const std::vector<SequenceWork>& batch) {
  const Sharding sh = check_tp(model, par.tp);
  check_ep(model, par);
  const double s = model.weight_bytes_per_param, act = 2;  // activations and collectives in bf16
  const double d = model.hidden_size;
  const int dp = par.attention_dp();
  std::vector<SequenceWork> busiest;
  const std::vector<SequenceWork>& mine = attention_group(batch, dp, busiest);
  const StepShape shape = shape_of(mine);
  const LayerContext x{model, par, sh, mine, shape.m, dp > 1 ? shape_of(batch).m : shape.m};

  StepOps ops;
  ops.sequences = int(mine.size());  // this attention group's: its host and its graphs
  ops.tp = par.tp;
  ops.attention_dp = dp;
  ops.stage_layers = stage_layers(model, par.pp);
  ops.stage_send = collective("stage_send", CollectiveOp::send_recv, x.m * d * act);
  Op embed;
  embed.kind = OpKind::embedding;
  embed.name = "embedding";
  // The m token rows (and m position rows of a learned table) read, the activations written.
  embed.weight_bytes = x.m * d * s * (model.learned_positions > 0 ? 2 : 1);
  embed.bytes = embed.weight_bytes + x.m * d * act;
  ops.prologue.push_back(embed);

  LayerKinds kinds = layer_kinds(model, ops.stage_layers);
  for (int l : kinds.first_layer) ops.kinds.push_back(layer_ops(x, model.moe_layer(l), model.sliding_layer(l)));
  ops.stage_kinds = std::move(kinds.stage_kinds);

  const double sequences = shape.sequences;
  ops.epilogue.push_back(elementwise("final_norm", sequences * d, 4));
  ops.epilogue.push_back(gemm("lm_head", sequences, double(model.vocab_size) / par.tp, d, double(model.vocab_size) / par.tp * d * s));
  if (par.tp > 1) ops.epilogue.push_back(collective("logits_all_gather", CollectiveOp::all_gather, sequences * model.vocab_size * act));
  return ops;
}

}  // namespace tpsim
