#include "scenario_runner.hpp"

#include <set>
#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <limits>
#include <memory>
#include <optional>

#include "config/calibration.hpp"
#include "config/model_card.hpp"
#include "config/platform_file.hpp"
#include "engine.hpp"
#include "model/parallelism.hpp"
#include "model/placement.hpp"
#include "pd_runner.hpp"
#include "sys_path.hpp"
#include "workload_grounding.hpp"
#include "runner_parts.hpp"
#include "model/search_summary.hpp"
#include "model/splits.hpp"
#include "config/model_scale.hpp"
#include "model/intervals.hpp"
#include "scenario_eval.hpp"
#include "what_would_change.hpp"
#include "util/units.hpp"

namespace tpsim {
namespace {

// `configs: auto` enumerates every split (partitions grow fast) and places each exactly: a box, not a cluster.
constexpr int MAX_SEARCH_GPUS = 16;

}  // namespace

Inputs with_scenario_model(const Inputs& in, const Scenario& s) {
  Inputs out = in;
  if (!s.model_weight_bytes) return out;
  int pp = 1;
  for (const auto& c : s.configs) pp = std::max(pp, c.pp);
  out.model = scaled_to_weight_bytes(in.model, *s.model_weight_bytes, pp);
  return out;
}

Inputs load_inputs(const Scenario& s) {
  Inputs in;
  in.model = load_model_card(s.model_path, s.dtype, s.kv_cache_dtype);
  in.platform = load_platform_file(s.platform_path);
  if (!s.calibration_path.empty()) in.calibration = std::make_unique<Calibration>(load_calibration(s.calibration_path));
  for (const auto& c : s.configs) {
    if (c.disaggregation) validate_disaggregation(s, in.model, in.platform, c);
    try {
      check_tp(in.model, c.tp);
      stage_layers(in.model, c.pp);
    } catch (const ValueError& e) {
      throw InputError(c.where, e.what());
    }
    try {
      check_ep(in.model, parallelism_of(c, s));
    } catch (const ValueError& e) {
      throw InputError(c.ep_where, e.what());
    }
    const int wanted = c.auto_replicas ? std::max(1, *c.auto_replicas) * c.tp : 0;
    if (c.auto_replicas && wanted > int(in.platform.gpus.size()))
      throw InputError(c.where, fmt::format("layout: auto needs {} GPUs ({} replicas x TP={}); {} has {}", wanted,
                                            std::max(1, *c.auto_replicas), c.tp, s.platform_path, in.platform.gpus.size()));
    for (const auto& replica : c.layout)
      for (int g : replica)
        if (!in.platform.gpu(g))
          throw InputError(c.where, fmt::format("GPU {} is not in platform {} (it has GPUs {}..{})", g, s.platform_path,
                                                in.platform.gpus.front().index, in.platform.gpus.back().index));
    // Every pair a replica's ring uses must be connected (every pair, for an EP replica's all-to-all).
    Topology topo(in.platform, s.hardware, s.collectives.p2p_level, s.collectives.nccl_version);
    for (const auto& replica : c.layout)
      for (std::size_t i = 0; i + 1 < replica.size() + (replica.size() > 1); ++i)
        for (std::size_t j = i + 1; j <= (c.ep > 1 ? replica.size() - 1 : i + 1); ++j) {
          try {
            topo.path(replica[i], replica[j % replica.size()]);
          } catch (const ValueError& e) {
            throw InputError(c.where, e.what());
          }
        }
  }
  return in;
}

// Memory per GPU. With attention data parallelism the replica's reference batch is split over
// its ep / tp attention groups, each with its own KV cache: the replica's blocks are theirs summed.
MemoryFit memory_fit(const ModelCard& m, const ConfigSpec& c, const GpuSpec& gpu, const Scenario& s) {
  MemoryFit f;
  const int tp = c.tp, pp = c.pp, dp = parallelism_of(c, s).attention_dp();
  const double batch = double(s.workload.batch) / dp;  // sequences per attention group
  // The most tokens one forward pass holds: the scheduler's budget a step (a whole prompt beyond it
  // when prompts are not chunked), at most the batch's prompts: the engine sizes its activations so.
  const double prompt = s.workload.prompt.value, budget = s.scheduler.max_batched_tokens;
  const double tokens = std::min(batch * prompt, s.scheduler.chunked_prefill ? budget : std::max(budget, prompt));
  const double act = 2.0;
  f.weights_B = weight_bytes_per_rank(m, tp, pp, c.ep);
  // Peak activations of the reference prefill's largest pass: residual, QKV, MLP intermediate (top-k experts'), logits.
  const double mlp = m.num_experts > 0 ? std::max<double>(m.dense_intermediate_size, (m.experts_per_token + m.shared_experts) * double(m.intermediate_size))
                                       : m.intermediate_size;
  f.activations_B = tokens * act * (2.0 * m.hidden_size + double(m.num_heads + 2 * m.num_kv_heads) * m.head_dim / tp +
                                    (m.gated_mlp ? 3.0 : 2.0) * mlp / tp) +
                    batch * double(m.vocab_size) / tp * 4;
  const KvFootprint kv = kv_footprint_rank(m, tp, pp);
  f.kv_B = batch * kv.sequence_B(s.workload.prompt.value + s.workload.output.value);
  // vLLM and SGLang hold weights, activations and KV cache within utilisation x the GPU; TensorRT-LLM gives
  // the KV cache utilisation x what the weights and activations leave of the whole GPU.
  const EngineProfile* profile = find_engine_profile(c.engine ? c.engine->name : s.engine.name);
  const bool share_of_free = profile && profile->kv_share_of_free;
  const double util = s.scheduler.gpu_memory_utilization;
  f.capacity_B = gpu.memory_B * (share_of_free ? 1.0 : util);
  const double left_B = f.capacity_B - f.weights_B - f.activations_B;
  const double free_for_kv = share_of_free ? left_B * util : left_B;
  f.kv_blocks = free_for_kv > 0 ? long(free_for_kv / (kv.total_B_per_token() * s.scheduler.block_size)) * dp : 0;
  if (f.weights_B + f.activations_B > f.capacity_B) {
    f.fits = false;
    f.why = share_of_free ? fmt::format("weights {:.1f} GB + activations {:.1f} GB per GPU exceed the {} {:.1f} GB", f.weights_B / 1e9,
                                        f.activations_B / 1e9, gpu.name, f.capacity_B / 1e9)
                          : fmt::format("weights {:.1f} GB + activations {:.1f} GB per GPU exceed {:.1f} GB ({} x {:.2f} utilisation)",
                                        f.weights_B / 1e9, f.activations_B / 1e9, f.capacity_B / 1e9, gpu.name, util);
  } else if (s.workload.arrivals == ArrivalKind::closed && f.kv_B > free_for_kv) {
    f.fits = false;
    // Two decimals where one would print the need and the room alike ("needs 4.3 GB, 4.3 GB is left").
    const int digits = fmt::format("{:.1f}", f.kv_B / 1e9) == fmt::format("{:.1f}", free_for_kv / 1e9) ? 2 : 1;
    f.why = fmt::format("the batch's KV cache needs {:.{}f} GB per GPU, {:.{}f} GB is left after the weights{}", f.kv_B / 1e9, digits,
                        free_for_kv / 1e9, digits,
                        share_of_free ? fmt::format(" ({:.2f} of the {:.1f} GB they and the activations leave: TensorRT-LLM's "
                                                    "kv_cache_free_gpu_memory_fraction)", util, left_B / 1e9)
                                      : "");
  }
  return f;
}

// One replica of a configuration as a configuration of its own (a mixed split's replicas differ in TP).
// An expert-parallel replica's GPUs are its attention groups (ep / tp of tp GPUs each): its own shape.
ConfigSpec replica_shape(const ConfigSpec& c, const std::vector<int>& replica) {
  ConfigSpec shape = c;
  if (c.ep == 1) shape.tp = int(replica.size()) / c.pp;
  return shape;
}

// A request beyond the model's context window (max_position_embeddings) cannot be served: an engine
// refuses it. Lengths drawn from a distribution: those requests are refused and the rest run (one
// lognormal draw past the context refused the whole run); fixed lengths or a trace's row: the scenario
// is refused where it sets them.
std::vector<Request> served_requests(const Scenario& s, const ModelCard& m, int replicas, ConfigResult& r) {
  std::vector<Request> requests = generate_requests(s.workload, s.seed, replicas);
  const WorkloadSpec& w = s.workload;
  const long context = m.max_position_embeddings;
  if (context <= 0) return requests;
  const auto beyond = [&](const Request& q) { return q.prompt_tokens + q.output_tokens > context; };
  if (w.arrivals != ArrivalKind::trace && (w.prompt.dist != LengthDist::fixed || w.output.dist != LengthDist::fixed)) {
    const std::size_t drawn = requests.size();
    std::erase_if(requests, beyond);
    r.requests_dropped = long(drawn - requests.size());
    if (r.requests_dropped > 0)
      r.notes.push_back(fmt::format("{} of the {} requests drawn are longer than the {}-token context of {} (max_position_embeddings): "
                                    "refused, as an engine refuses them, and counted as dropped", r.requests_dropped, drawn, context, m.name));
    return requests;
  }
  const bool trace = w.arrivals == ArrivalKind::trace;
  for (const auto& q : requests) {
    if (!beyond(q)) continue;
    const std::string which = trace ? fmt::format("request {}: ", q.id) : "";
    const std::string window = fmt::format("the {}-token context of {} (max_position_embeddings)", context, m.name);
    // A trace's request is located at its row; a generated one at the scenario key that sets its lengths.
    const bool row = trace && q.line > 0;
    if (q.prompt_tokens > context)
      throw InputError(row ? Location{w.trace_path, q.line, 1} : w.prompt_where,
                       fmt::format("{}a prompt of {} tokens is longer than {}", which, q.prompt_tokens, window));
    throw InputError(row ? Location{w.trace_path, q.line, 1} : w.output_where,
                     fmt::format("{}{} prompt + {} output tokens do not fit in {}", which, q.prompt_tokens, q.output_tokens, window));
  }
  return requests;
}

// The first collective of the first stage's layers of kind `op` (all_to_all), or of any other kind.
const CollectivePlan* first_collective(const StepPlan& p, bool all_to_all) {
  for (const auto& run : p.stage_layer.front())
    for (const auto& seg : run.segments)
      if (seg.collective && (seg.collective->op == CollectiveOp::all_to_all) == all_to_all) return seg.collective;
  return nullptr;
}

namespace {

void describe_expert_parallelism(ConfigResult& r, const ModelCard& m, const ConfigSpec& c, const Parallelism& par) {
  r.ep = par.ep;
  r.attention_dp = par.attention_dp();
  if (par.ep > 1) r.moe_imbalance = par.moe_imbalance;
  for (auto& note : architecture_notes(m, par, c.moe_imbalance.has_value())) r.notes.push_back(std::move(note));
}

}  // namespace

ConfigResult run_config(const Scenario& s, const Inputs& in, const ConfigSpec& c, const Topology& topo,
                        const CollectiveModel& cm, const RunOptions& opt, bool simulate) {
  if (c.disaggregation) return run_disaggregated_config(s, {in.model, in.platform, in.calibration.get()}, c, topo, cm, opt, simulate);
  ConfigResult r;
  r.name = c.name;
  r.layout = c.layout;
  r.tp = c.tp;
  r.pp = c.pp;
  const GpuDesc& gpu = *in.platform.gpu(c.layout[0][0]);
  r.gpu_model = gpu.model;
  std::vector<Request> requests = served_requests(s, in.model, int(c.layout.size()), r);
  const Sharding sh = check_tp(in.model, c.tp);
  if (sh.kv_replicated)
    r.notes.push_back(fmt::format("TP={} exceeds the {} KV heads: each KV head is replicated on {} GPUs (as vLLM does)", c.tp,
                                  in.model.num_kv_heads, c.tp / in.model.num_kv_heads));
  for (const auto& replica : c.layout)
    if (const std::string note = topo.p2p_default_note(replica); !note.empty()) {
      r.notes.push_back(note);
      break;
    }
  // The all-reduces run within a pipeline stage: the replica's first stage stands for its TP groups
  // (a replica lists its stages one after the other; TP=8xPP=2 across 2 nodes read as one 16-GPU group
  // carried the 2-node all-reduce notes).
  const std::vector<int> tp_group = stage_gpus(c.layout[0], c.pp, 0);
  if (tp_group.size() > 1)
    if (const GroupSummary g = cm.summary(CollectiveOp::all_reduce, tp_group); g.staged_edge)
      r.notes.push_back(staging_note(*g.staged_edge, g.staging));
  for (const std::string& note : cm.group_notes(CollectiveOp::all_reduce, tp_group)) r.notes.push_back(note);
  // A mixed split's tightest fit is its narrowest replica's (the layout lists the largest first).
  r.memory = memory_fit(in.model, replica_shape(c, c.layout.back()), *gpu.spec, s);
  if (c.layout.back().size() != c.layout.front().size())
    r.notes.push_back(fmt::format("memory per GPU is the narrowest replica's (TP={})", c.layout.back().size() / c.pp));
  const GpuModel gm = gpu_model(*gpu.spec, s, in.calibration.get(), in.model.compute_bytes(), in.model.kv_bytes_per_value);
  r.notes.push_back("GEMM times: " + gm.gemm_source);
  // 8-bit weights on a GPU without FP8 tensor cores (Ampere and older) run weight-only: read as 1 byte,
  // multiplied at 16-bit (vLLM's FP8 Marlin kernels on Ampere), which peak_flops_of already takes.
  if (in.model.compute_bytes() <= 1 && !(gpu.spec->fp8_peak_flops > 0))
    r.notes.push_back(fmt::format("8-bit weights on {}, which has no FP8 tensor cores: read as 1 byte each and multiplied at bf16's "
                                  "peak ({:.0f} TFLOPS), as weight-only kernels do (vLLM's FP8 Marlin on Ampere); int8 kernels on "
                                  "Ampere's INT8 tensor cores (W8A8) would multiply faster",
                                  gpu.spec->name, gpu.spec->bf16_peak_flops / 1e12));
  r.notes.insert(r.notes.end(), in.model.notes.begin(), in.model.notes.end());
  if (const EngineProfile* p = find_engine_profile(s.engine.name)) {
    r.notes.push_back(fmt::format("engine: {} ({}); all-reduce {}, arrival spread {:.1f} us (waited for at every collective of an "
                                  "eager step, once by a step in a CUDA graph)", p->name, p->description, s.engine.all_reduce,
                                  s.engine.all_reduce_jitter_s * 1e6));
    if (c.tp > 1 && !p->tp_check.empty()) r.notes.push_back(fmt::format("engine {} at TP={}: {}", p->name, c.tp, p->tp_check));
  }
  const auto& group = c.layout[0];
  r.decode_batch = s.workload.batch;
  r.prompt_tokens = std::lround(s.workload.prompt.value);
  std::vector<SequenceWork> decode(s.workload.batch, {r.prompt_tokens, 1}), prefill(s.workload.batch, {0, r.prompt_tokens});
  const Parallelism par = parallelism_of(c, s);
  describe_expert_parallelism(r, in.model, c, par);
  if (par.ep > 1)  // the experts' all-to-all: what the defaults there rest on
    for (std::string& note : cm.group_notes(CollectiveOp::all_to_all, c.layout[0]))
      if (std::find(r.notes.begin(), r.notes.end(), note) == r.notes.end()) r.notes.push_back(std::move(note));
  const StepOps decode_ops = step_ops(in.model, par, decode);
  const StepPlan dp = plan_step(decode_ops, gm, cm, group);
  const StepPlan pp = plan_step(step_ops(in.model, par, prefill), gm, cm, group);
  r.decode_step = dp.breakdown, r.prefill = pp.breakdown;
  if (auto* c = first_collective(dp)) r.decode_collective = *c;
  if (auto* c = first_collective(pp)) r.prefill_collective = *c;
  if (auto* c = first_collective(dp, true)) r.decode_all_to_all = *c;
  for (const auto& op : decode_ops.flatten())
    r.collectives_per_step += op.kind == OpKind::collective && (c.tp > 1 || op.collective == CollectiveOp::send_recv ||
                                                                (op.collective == CollectiveOp::all_to_all && c.ep > 1));
  if (!r.memory.fits || !simulate) return r;

  RunSpec spec;
  spec.model = &in.model;
  spec.collectives = &cm;
  spec.gpu = gm;
  spec.scheduler = s.scheduler;
  spec.parallel = par;
  spec.kv_shape = kv_block_shape(in.model, c.tp, c.pp);
  // Each attention group schedules for itself (SGLang's and vLLM's DP ranks): one scheduler for
  // the replica holds their budgets together.
  spec.scheduler.max_num_seqs *= r.attention_dp, spec.scheduler.max_batched_tokens *= r.attention_dp;
  if (c.max_num_seqs) spec.scheduler.max_num_seqs = *c.max_num_seqs;
  if (c.chunked_prefill) spec.scheduler.chunked_prefill = *c.chunked_prefill;
  // A closed batch is measured at once (a static batch, as vLLM's benchmark_latency runs one): the scheduler's
  // cap rises to it, and the run says so where that overrides a smaller max_num_seqs.
  if (s.workload.arrivals == ArrivalKind::closed && s.workload.batch > spec.scheduler.max_num_seqs) {
    r.notes.push_back(fmt::format("the closed batch of {0} sequences runs at once: max_num_seqs {1} raised to {0} (an engine capped at "
                                  "{1} would run {1} at a time and queue the rest; use arrivals with a rate for that)",
                                  s.workload.batch, spec.scheduler.max_num_seqs));
    spec.scheduler.max_num_seqs = s.workload.batch;
  }
  r.scheduler = spec.scheduler;
  // A mixed split's replicas each run their own TP: their step shapes, collectives and KV blocks.
  for (const auto& rep : c.layout) {
    const ConfigSpec shape = replica_shape(c, rep);
    spec.replicas.push_back({rep, memory_fit(in.model, shape, *gpu.spec, s).kv_blocks, parallelism_of(shape, s),
                             kv_block_shape(in.model, shape.tp, shape.pp)});
  }
  spec.requests = std::move(requests);
  spec.force_flows = opt.force_flows;
  spec.fast_forward = opt.fast_forward;
  spec.trace = opt.trace;
  spec.trace_process = c.name;
  engine_load_platform(s.platform_path, topo);
  summarize(r, engine_run(spec), s);
  return r;
}


// Lower is better.
double score(const ConfigResult& r, Objective o) { return objective_score(r, o); }

std::string winner_of(const std::vector<ConfigResult>& configs, Objective o) {
  const ConfigResult* best = nullptr;
  for (const auto& c : configs)
    if (!best || score(c, o) < score(*best, o)) best = &c;
  return best && std::isfinite(score(*best, o)) ? best->name : "";
}

namespace {

// The scenario's collectives as this engine runs them: its own all-reduce kernel, its arrival spread.
CollectiveSpec collectives_for(const Scenario& s, const EngineSpec& e) {
  CollectiveSpec c = s.collectives;
  const EngineProfile* p = find_engine_profile(e.name);
  if (e.all_reduce == "custom" && p) c.custom_all_reduce = p->custom_all_reduce;
  c.all_reduce_jitter_s = e.all_reduce_jitter_s;
  return c;
}

// `layout: auto` of one configuration: its TP groups (a mixed split's of several sizes, a
// pipeline replica's stage by stage: consecutive groups), largest replica first.
Placement place_split(const CollectiveModel& cm, const ConfigSpec& c, double prefill_B, double decode_B) {
  if (c.replica_tp.empty() && c.pp == 1) return place_groups(cm, c.tp, *c.auto_replicas, prefill_B, decode_B);
  std::vector<int> sizes = c.replica_tp.empty() ? std::vector<int>(std::max(1, *c.auto_replicas), c.tp) : c.replica_tp;
  std::vector<int> stages;
  for (int tp : sizes) stages.insert(stages.end(), c.pp, tp);
  Placement p = place_groups(cm, stages, prefill_B, decode_B);
  std::vector<std::vector<int>> replicas;
  for (std::size_t g = 0; g < p.layout.size(); g += c.pp) {
    std::vector<int> replica;
    for (int stage = 0; stage < c.pp; ++stage) replica.insert(replica.end(), p.layout[g + stage].begin(), p.layout[g + stage].end());
    replicas.push_back(replica);
  }
  std::stable_sort(replicas.begin(), replicas.end(), [](const auto& a, const auto& b) { return a.size() > b.size(); });
  p.layout = replicas;
  if (c.pp > 1) p.reason += fmt::format("; each replica's {} pipeline stages are consecutive groups", c.pp);
  return p;
}

}  // namespace

ConfigSpec placed_config(const Scenario& s, const Inputs& in, const CollectiveModel& cm, ConfigSpec c, std::string* note) {
  if (!c.auto_replicas) return c;
  // Place the groups for this scenario's collectives: its prefill and decode all-reduce sizes.
  const double d = in.model.hidden_size * 2.0;
  const Placement p = place_split(cm, c, s.workload.batch * s.workload.prompt.value * d, s.workload.batch * d);
  c.layout = p.layout;
  if (note) *note = "layout: auto: " + p.reason;
  return c;
}

namespace {

std::vector<ConfigResult> run_all(const Scenario& s, const Inputs& in, const RunOptions& opt, const std::string& label,
                                  std::set<std::string>& calibration_use) {
  Topology topo(in.platform, s.hardware, s.collectives.p2p_level, s.collectives.nccl_version);
  CollectiveModel scenario_cm(topo, collectives_for(s, s.engine), in.calibration.get());
  std::vector<ConfigResult> out;
  for (std::size_t i = 0; i < s.configs.size(); ++i) {
    if (opt.progress) opt.progress(fmt::format("{}{} ({}/{})", label, s.configs[i].name, i + 1, s.configs.size()));
    // A configuration with its own engine runs its own collectives (the engine's all-reduce).
    std::optional<CollectiveModel> own_cm;
    if (s.configs[i].engine) own_cm.emplace(topo, collectives_for(s, *s.configs[i].engine), in.calibration.get());
    const CollectiveModel& cm = own_cm ? *own_cm : scenario_cm;
    std::string placed;
    const ConfigSpec c = placed_config(s, in, cm, s.configs[i], &placed);
    Scenario own = s;
    if (c.engine) own.engine = *c.engine;
    out.push_back(run_config(own, in, c, topo, cm, opt));
    if (!placed.empty()) out.back().notes.push_back(placed);
    for (const auto& n : cm.engine_notes())
      if (n.find(fmt::format("on {} GPUs", c.tp)) != std::string::npos) out.back().notes.push_back("engine: " + n);
    if (own_cm)
      for (const auto& n : own_cm->calibration_notes()) calibration_use.insert(n);
  }
  for (const auto& n : scenario_cm.calibration_notes()) calibration_use.insert(n);
  return out;
}

// `configs: auto`: the scenario with every split of the platform's GPUs as its configurations.
Scenario with_searched_configs(const Scenario& s, const Inputs& in, std::vector<std::string>& left_out) {
  if (!s.search) return s;
  const int gpus = int(in.platform.gpus.size());
  if (gpus > MAX_SEARCH_GPUS)
    throw InputError(s.search->where, fmt::format("configs: auto searches boxes of up to {} GPUs; {} has {}: list the configurations",
                                                  MAX_SEARCH_GPUS, s.platform_path, gpus));
  auto refusal = [](const std::function<void(int)>& check) {
    return [check](int n) {
      try {
        check(n);
        return std::string();
      } catch (const ValueError& e) {
        return std::string(e.what());
      }
    };
  };
  const SplitList list = enumerate_splits(gpus, !s.search->fewest_gpus, refusal([&](int t) { check_tp(in.model, t); }),
                                          refusal([&](int p) { stage_layers(in.model, p); }));
  Scenario out = s;
  out.configs = search_configs(*s.search, list.splits);
  if (s.search->disaggregation) {
    std::vector<int> indices;
    for (const auto& g : in.platform.gpus) indices.push_back(g.index);
    for (ConfigSpec c : xpyd_splits(indices, !s.search->fewest_gpus, refusal([&](int t) { check_tp(in.model, t); }))) {
      c.where = s.search->where;
      out.configs.push_back(std::move(c));
    }
  }
  left_out = list.left_out;
  return out;
}

}  // namespace

ScenarioResult run_scenario(const Scenario& given, const RunOptions& opt) {
  Scenario traced = given;
  const std::optional<std::string> trace_reference = take_trace_reference(traced);
  const Inputs in = load_inputs(traced);
  std::vector<std::string> left_out;
  const Scenario s = with_searched_configs(traced, in, left_out);
  check_what_would_change(s, in);
  ScenarioResult res;
  res.scenario = s.name;
  res.model_name = in.model.name;
  res.platform_file = s.platform_path;
  res.seed = s.seed;
  res.objective = objective_name(s.objective);
  std::set<std::string> calibration_use;
  res.configs = run_all(s, in, opt, "", calibration_use);
  res.recommendation = winner_of(res.configs, s.objective);
  if (s.sweep) {
    res.sweep_parameter = s.sweep->parameter;
    res.sweep_unit = s.sweep->unit;
    for (double v : s.sweep->values) {
      Scenario point = s;
      apply_swept_value(point, in, s.sweep->parameter, v);
      if (s.sweep->parameter == "workload.prompt_tokens") point.workload.prompt_where = s.sweep->where;
      if (s.sweep->parameter == "workload.output_tokens") point.workload.output_where = s.sweep->where;
      RunOptions untraced = opt;
      untraced.trace = nullptr;
      const Inputs point_in = with_scenario_model(in, point);
      SweepPoint sp{v, run_all(point, point_in, untraced, fmt::format("{}={:g} ", s.sweep->parameter, v), calibration_use), ""};
      sp.winner = winner_of(sp.configs, s.objective);
      res.sweep_points.push_back(std::move(sp));
    }
    for (std::size_t i = 1; i < res.sweep_points.size(); ++i) {
      const auto& a = res.sweep_points[i - 1];
      const auto& b = res.sweep_points[i];
      if (a.winner == b.winner || a.winner.empty() || b.winner.empty()) continue;
      auto sc = [&](const SweepPoint& p, const std::string& n) {
        for (const auto& c : p.configs)
          if (c.name == n) return score(c, s.objective);
        return std::numeric_limits<double>::infinity();
      };
      const double d0 = sc(a, a.winner) - sc(a, b.winner), d1 = sc(b, a.winner) - sc(b, b.winner);
      double x = b.value;
      if (std::isfinite(d0) && std::isfinite(d1) && d1 != d0) x = a.value + (b.value - a.value) * (-d0) / (d1 - d0);
      res.crossovers.push_back({x, a.winner, b.winner});
    }
    if (s.slo.ttft_p99_s || s.slo.tpot_p99_s || s.slo.e2e_p99_s)
      for (std::size_t i = 0; i < s.configs.size(); ++i) {
        std::optional<double> best;
        for (const auto& p : res.sweep_points)
          if (within_slo(p.configs[i], s.slo)) best = p.value;
        res.highest_within_slo.emplace_back(s.configs[i].name, best);
      }
  }
  res.calibration_use.assign(calibration_use.begin(), calibration_use.end());
  if (s.search) {
    res.search = summarize_search(s, res, left_out);
    res.recommendation = search_recommendation(*res.search, res);
  }
  res.model_shape = {in.model.hidden_size, in.model.num_layers, 2.0, in.model.weight_bytes(), in.model.parallel_block ? 1 : 2,
                     gpu_model(*in.platform.gpus.front().spec, s, in.calibration.get(), in.model.compute_bytes(),
                               in.model.kv_bytes_per_value).hbm_Bps};
  attach_intervals(res, in.calibration.get(), s.collectives.host_copy_Bps || s.collectives.socket_copy_Bps);
  if (auto per_replica = closed_batch_grounding(s)) res.grounding.push_back(*per_replica);
  if (auto prefill_steps = prefill_steps_grounding(s)) res.grounding.push_back(*prefill_steps);
  if (trace_reference) res.grounding.push_back(*trace_reference);
  res.what_would_change = what_would_change(s, in, res, opt, res.what_would_change_scope);
  return res;
}

}  // namespace tpsim
