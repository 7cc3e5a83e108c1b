#include "verdict.hpp"

#include <cmath>

#include <fmt/format.h>

#include "util/units.hpp"

namespace tpsim {

std::string describe_collective(const CollectivePlan& c) {
  // The bandwidth part is longer than bus bytes / bus bandwidth when the group's own flows share a link.
  const double alone_s = c.bus_bw_Bps > 0 ? c.bus_bytes / c.bus_bw_Bps : 0;
  // An all-to-all's peers on faster paths finish early: its flows can take less than that.
  const bool off = c.op == CollectiveOp::all_to_all ? std::abs(c.bandwidth_s - alone_s) > alone_s * 0.005 : c.bandwidth_s > alone_s * 1.005;
  const std::string shared = !off ? ""
                             : c.op == CollectiveOp::all_to_all
                                 ? fmt::format(" x {:.2f} (its flows over every pair's path: the slowest paths and shared links set it)", c.bandwidth_s / alone_s)
                                 : fmt::format(" x {:.2f} (its flows share links)", c.bandwidth_s / alone_s);
  const std::string corrected =
      c.tree_correction < 1 ? fmt::format(" (x {:.1f}, NCCL's medium-size tree correction)", c.tree_correction) : "";
  const std::string fill =
      c.tree_fill_s > 0   ? fmt::format(" (of which {} the tree's chunks stored and forwarded hop by hop)", format_time(c.tree_fill_s))
      : c.ll_sync_s > 0 ? fmt::format(" (of which {} LL's step synchronisation beyond its data time)", format_time(c.ll_sync_s))
      : c.nvls_pipeline_s > 0 && c.algorithm == Algorithm::nvls_tree
          ? fmt::format(" (of which {} the fill of its network steps' chunk pipeline)", format_time(c.nvls_pipeline_s))
      : c.nvls_pipeline_s > 0 ? fmt::format(" (of which {} NVLS's chunk pipeline: its fill and a cost per loop)", format_time(c.nvls_pipeline_s))
                        : "";
  const std::string how = c.engine_kernel.empty() ? fmt::format("{}/{}", algorithm_name(c.algorithm), protocol_name(c.protocol))
                                                  : "the engine's " + c.engine_kernel + " kernel";
  return fmt::format("{} of {} on {} ranks, {} over {}{}{}: {}{} + {} bus bytes / {} bus bandwidth{}{} = {}",
                     collective_op_name(c.op), format_size(c.size_B), c.nranks, how, path_class_name(c.worst_class), c.staged ? " (host-staged)" : "",
                     c.calibrated ? ", calibrated" : "", format_time(c.latency_s), fill, format_size(c.bus_bytes),
                     format_bandwidth(c.bus_bw_Bps), corrected, shared, format_time(c.time_s()));
}

namespace {

std::string breakdown_line(const Breakdown& b) {
  return fmt::format("weights {:.3f} + compute {:.3f} + attention {:.3f} + collectives {:.3f} + launch {:.3f}{} = {:.3f} ms",
                     b.weights * 1e3, b.compute * 1e3, b.attention * 1e3, b.collectives * 1e3, b.launch * 1e3,
                     b.host > 0 ? fmt::format(" + host {:.3f}", b.host * 1e3) : "", b.total() * 1e3);
}

// A disaggregated configuration's KV transfer: bytes, time alone, under load, and what it buys.
std::string describe_kv_transfer(const ConfigResult& c) {
  const DisaggregationResult& d = *c.disaggregation;
  std::string s = fmt::format("{}: {} prefill x TP={} -> {} decode x TP={}; KV transfer of {} tokens x {} B = {} per request over {}{}: "
                              "{} alone (bytes / bandwidth + latency)",
                              c.name, d.prefill.size(), d.prefill_tp, d.decode.size(), d.decode_tp, c.prompt_tokens, d.kv_bytes_per_token,
                              format_size(d.reference_kv_B), path_class_name(d.path_class), d.staged ? " (host-staged)" : "",
                              format_time(d.reference_transfer_s));
  if (c.requests_completed > 0)
    s += fmt::format("; under load p50 {} (p99 {}), waiting for decode room p50 {}; longest gap between two tokens p99 {:.1f} ms",
                     format_time(d.kv_transfer_s.p50), format_time(d.kv_transfer_s.p99), format_time(d.kv_wait_s.p50), c.itl_max_s.p99 * 1e3);
  return s;
}

// Under an open workload that every configuration that fits keeps up with, a throughput objective
// compares the offered load with itself: said, with what would compare capacity.
std::string load_bound_throughput(const ScenarioResult& r) {
  if (r.objective != "throughput") return "";
  int fitting = 0;
  double rate = 0;
  for (const auto& c : r.configs) {
    if (!c.memory.fits) continue;
    if (!(c.offered_rate_req_s > 0) || c.saturated) return "";
    ++fitting, rate = c.offered_rate_req_s;
  }
  if (fitting < 2) return "";
  return fmt::format(". Every configuration that fits keeps up with the offered {:.2f} requests/s, so each serves the load: their "
                     "throughputs differ by how fast they drain the last requests, not by capacity (a higher rate, or a closed "
                     "batch, compares capacity)",
                     rate);
}

}  // namespace

void explain(ScenarioResult& r) {
  r.derivation.clear();
  const ConfigResult* win = nullptr;
  for (const auto& c : r.configs)
    if (c.name == r.recommendation) win = &c;
  if (!win) {
    r.reason = "no configuration fits in GPU memory";
    for (const auto& c : r.configs) r.derivation.push_back(fmt::format("{}: {}", c.name, c.memory.why));
    return;
  }
  std::string others;
  for (const auto& c : r.configs) {
    if (&c == win) continue;
    others += others.empty() ? "" : "; ";
    if (!c.memory.fits) {
      others += fmt::format("{} does not fit ({})", c.name, c.memory.why);
      continue;
    }
    others += fmt::format("{} {}", c.name, objective_metric(c, r.objective));
    if (c.prefill_collective && (c.prefill_collective->worst_class >= PathClass::PHB || c.prefill_collective->staged))
      others += fmt::format(", paying {:.1f} ms of prefill all-reduce over the {} path", c.prefill.collectives * 1e3,
                            path_class_name(c.prefill_collective->worst_class));
    if (c.decode_all_to_all && (c.decode_all_to_all->worst_class >= PathClass::PHB || c.decode_all_to_all->staged))
      others += fmt::format(", paying {:.1f} ms of prefill and {:.2f} ms of decode-step all-to-all over the {} path{}", c.prefill.all_to_all * 1e3,
                            c.decode_step.all_to_all * 1e3, path_class_name(c.decode_all_to_all->worst_class),
                            c.decode_all_to_all->staged ? " (host-staged)" : "");
    if (c.shared_links && c.ttft_s.p50 > 1.05 * c.prefill.total() && c.queue_s.p50 == 0)
      others += fmt::format(" (its replicas share links: TTFT p50 {:.1f} ms against {:.1f} ms for one replica alone)", c.ttft_s.p50 * 1e3,
                            c.prefill.total() * 1e3);
    if (c.saturated) others += " (saturated: it completes fewer requests per second than arrive)";
  }
  for (const auto& c : r.configs)
    if (c.preemptions > 0)
      others += fmt::format("; {} preempted sequences {} times: its KV cache holds {} blocks per replica, what {:.1f} GB of weights per GPU leave",
                            c.name, c.preemptions, c.memory.kv_blocks, c.memory.weights_B / 1e9);
  // A fewest-GPUs search recommends the smallest split within the SLOs, not the objective's best.
  const bool fewest = r.search && r.search->fewest_gpus_mode && r.search->fewest_gpus_config == win->name;
  const std::string chosen = fewest ? fmt::format("is the fewest GPUs ({}) meeting the SLOs", r.search->fewest_gpus)
                                    : fmt::format("has the best {}", r.objective);
  r.reason = fmt::format("{} {} ({}){}{}", win->name, chosen, objective_metric(*win, r.objective), others.empty() ? "" : " vs ", others);
  const ConfigResult* per_gpu = win;
  for (const auto& c : r.configs)
    if (c.memory.fits && c.throughput_tok_s_per_gpu > per_gpu->throughput_tok_s_per_gpu) per_gpu = &c;
  if (per_gpu != win && r.objective != "throughput")
    r.reason += fmt::format(". On output tokens per second per GPU, {} leads ({:.1f} vs {:.1f})", per_gpu->name,
                            per_gpu->throughput_tok_s_per_gpu, win->throughput_tok_s_per_gpu);
  r.reason += load_bound_throughput(r);
  if (!r.confidence.empty()) r.reason += fmt::format(". Confidence: {} ({})", r.confidence, r.confidence_why);
  for (const auto& c : r.configs) {
    r.derivation.push_back(fmt::format("{} (TP={}, {} replica(s), {}): prefill of {} x {} tokens: {}", c.name, c.tp, c.layout.size(),
                                       c.gpu_model, c.decode_batch, c.prompt_tokens, breakdown_line(c.prefill)));
    r.derivation.push_back(fmt::format("{}: decode step at batch {}: {}", c.name, c.decode_batch, breakdown_line(c.decode_step)));
    if (c.prefill_collective)
      r.derivation.push_back(fmt::format("{}: {} per prefill all-reduce, {} per step", c.name, describe_collective(*c.prefill_collective),
                                         c.collectives_per_step));
    if (c.decode_collective)
      r.derivation.push_back(fmt::format("{}: {} per decode all-reduce", c.name, describe_collective(*c.decode_collective)));
    if (c.decode_all_to_all)
      r.derivation.push_back(fmt::format("{}: {} per decode MoE dispatch (and as much per combine)", c.name, describe_collective(*c.decode_all_to_all)));
    r.derivation.push_back(fmt::format("{}: memory per GPU: weights {:.2f} GB + activations {:.2f} GB; KV cache {} blocks; {}", c.name,
                                       c.memory.weights_B / 1e9, c.memory.activations_B / 1e9, c.memory.kv_blocks,
                                       c.memory.fits ? "fits" : "does NOT fit: " + c.memory.why));
    if (c.disaggregation) r.derivation.push_back(describe_kv_transfer(c));
    for (const auto& n : c.notes) r.derivation.push_back(c.name + ": " + n);
  }
}

}  // namespace tpsim
