// One MoE layer's MLP on one GPU. Every token visits experts_per_token (k) routed experts and,
// when the model has them, the shared experts.
// * ep = 1: every expert is sharded over TP like a dense MLP (intermediate / tp per rank); the
//   grouped GEMMs run m·k token-expert rows and read the weights of the experts they touch,
//   at most min(E, m·k) of them.
// * ep > 1: each GPU holds E / ep whole experts. The busiest GPU receives
//   imbalance · M · k / ep token-expert rows, M the tokens of the whole EP group (attention data
//   parallel, ep > tp) or of the TP group (ep = tp: every rank sees every token). With attention
//   DP each GPU dispatches its m / tp tokens' k copies of d values to their experts and combines
//   them back: two all-to-alls whose per-rank buffer is imbalance · (m / tp) · k · d · 2 bytes
//   (nccl-tests' size: the send buffer, 1/ep of it to each rank, its own share included), as
//   DeepEP and NCCL-based EP send them in bf16 (DeepSeek's dispatch in fp8 would halve the first).
//   Without attention DP the experts' partial outputs are summed by the layer's MLP all-reduce.
// The shared experts run as a dense MLP on the attention group's tokens, sharded over its TP.
#include <algorithm>

#include "op_builders.hpp"

namespace tpsim::op_builders {
namespace {

constexpr double ACT = 2;  // activations in bf16

// The routed experts' grouped GEMMs: `rows` token-expert rows over `active` experts of `inter` columns.
void expert_gemms(std::vector<Op>& L, const ModelCard& model, double rows, double active, double inter, double m_in, int tp) {
  const double s = model.weight_bytes_per_param, d = model.hidden_size, up = model.gated_mlp ? 2 : 1;
  const double up_bias = model.mlp_bias ? up * inter * s : 0, down_bias = model.mlp_bias ? d / tp * s : 0;
  Op gate_up = gemm("moe_gate_up", rows, up * inter, d, active * (model.linear_weight_bytes(up * inter, d) + up_bias));
  gate_up.bytes = gate_up.weight_bytes + (m_in * d + rows * up * inter) * ACT;
  gate_up.groups = active;
  L.push_back(gate_up);
  L.push_back(elementwise(model.gated_mlp ? "silu_mul" : "activation", rows * inter, 3));
  Op down = gemm("moe_down", rows, d, inter, active * (model.linear_weight_bytes(d, inter) + down_bias));
  down.bytes = down.weight_bytes + (rows * inter + m_in * d) * ACT;
  down.groups = active;
  L.push_back(down);
}

void shared_experts(std::vector<Op>& L, const ModelCard& model, int tp, double m) {
  if (model.shared_experts == 0) return;
  const double d = model.hidden_size, up = model.gated_mlp ? 2 : 1;
  const double inter = double(model.intermediate_size) * model.shared_experts / tp;
  L.push_back(gemm("shared_gate_up", m, up * inter, d, model.linear_weight_bytes(up * inter, d)));
  L.push_back(elementwise(model.gated_mlp ? "shared_silu_mul" : "shared_activation", m * inter, 3));
  L.push_back(gemm("shared_down", m, d, inter, model.linear_weight_bytes(d, inter)));
}

}  // namespace

void moe_ops(std::vector<Op>& L, const ModelCard& model, const Parallelism& par, double m_rank, double m_group) {
  const double s = model.weight_bytes_per_param, d = model.hidden_size, k = model.experts_per_token, E = model.num_experts;
  if (par.ep == 1) {
    L.push_back(gemm("router", m_rank, E, d, E * d * s));
    expert_gemms(L, model, m_rank * k, std::min(E, m_rank * k), double(model.intermediate_size) / par.tp, m_rank, par.tp);
    shared_experts(L, model, par.tp, m_rank);
    return;
  }
  const bool dp = par.attention_dp() > 1;
  const double m_gpu = dp ? m_rank / par.tp : m_rank;  // tokens this GPU routes
  const double rows = par.moe_imbalance * (dp ? m_group : m_rank) * k / par.ep;
  const double local = E / par.ep;
  L.push_back(gemm("router", m_gpu, E, d, E * d * s));
  shared_experts(L, model, par.tp, m_rank);
  const double buffer = par.moe_imbalance * m_gpu * k * d * ACT;
  if (dp) L.push_back(collective("moe_dispatch", CollectiveOp::all_to_all, buffer));
  expert_gemms(L, model, rows, std::min(local, rows), model.intermediate_size, rows / k, 1);
  if (dp) L.push_back(collective("moe_combine", CollectiveOp::all_to_all, buffer));
}

}  // namespace tpsim::op_builders
