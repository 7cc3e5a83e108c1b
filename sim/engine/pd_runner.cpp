#include "pd_runner.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "config/disaggregation.hpp"
#include "config/model_card.hpp"
#include "disaggregated.hpp"
#include "runner_parts.hpp"

namespace tpsim {
namespace {

struct Pool {
  const PoolSpec* spec;
  const char* name;
  GpuModel gpu;
  MemoryFit memory;
  StepPlan reference;  // prefill pool: the reference prefill; decode pool: the reference decode step
};

Pool pool_of(const Scenario& s, const RunnerInputs& in, const PoolSpec& p, const char* name, const CollectiveModel& cm,
             const std::vector<SequenceWork>& reference) {
  const GpuDesc& gpu = *in.platform.gpu(p.instances.front().front());
  ConfigSpec one;
  one.tp = p.tp;
  Pool pool{&p, name, gpu_model(*gpu.spec, s, in.calibration, in.model.compute_bytes(), in.model.kv_bytes_per_value), memory_fit(in.model, one, *gpu.spec, s), {}};
  pool.reference = plan_step(step_ops(in.model, p.tp, reference, 1, s.collectives.sequence_parallel), pool.gpu, cm, p.instances.front());
  return pool;
}

PoolRunSpec pool_run(const Pool& pool, const Scenario& s) {
  PoolRunSpec r;
  r.tp = pool.spec->tp;
  r.gpu = pool.gpu;
  r.scheduler = s.scheduler;
  if (s.workload.arrivals == ArrivalKind::closed) r.scheduler.max_num_seqs = std::max(r.scheduler.max_num_seqs, s.workload.batch);
  for (const auto& inst : pool.spec->instances) r.instances.push_back({inst, pool.memory.kv_blocks, std::nullopt, std::nullopt});
  return r;
}

// The configuration fits when both pools do; the first that does not says why.
MemoryFit combined_fit(const Pool& prefill, const Pool& decode) {
  for (const Pool* p : {&prefill, &decode})
    if (!p->memory.fits) {
      MemoryFit f = p->memory;
      f.why = std::string(p->name) + " pool: " + f.why;
      return f;
    }
  return decode.memory;
}

void add_sharding_notes(ConfigResult& r, const ModelCard& m, const Pool& pool) {
  if (check_tp(m, pool.spec->tp).kv_replicated)
    r.notes.push_back(fmt::format("{} pool: TP={} exceeds the {} KV heads: each KV head is replicated on {} GPUs (as vLLM does)", pool.name,
                                  pool.spec->tp, m.num_kv_heads, pool.spec->tp / m.num_kv_heads));
}

DisaggregationResult transfer_figures(const ConfigResult& r, const Pool& prefill, const Pool& decode, const std::vector<KvShard>& shards,
                                      const Topology& topo, const CollectiveModel& cm) {
  DisaggregationResult d;
  d.prefill = prefill.spec->instances, d.decode = decode.spec->instances;
  d.prefill_tp = prefill.spec->tp, d.decode_tp = decode.spec->tp;
  d.prefill_memory = prefill.memory, d.decode_memory = decode.memory;
  d.kv_bytes_per_token = kv_transfer_bytes_per_token(shards);
  d.reference_kv_B = d.kv_bytes_per_token * double(r.prompt_tokens);
  const KvRoute route = kv_route(topo, d.prefill.front(), d.decode.front(), shards);
  d.reference_transfer_s = kv_transfer_time_alone(route, r.prompt_tokens, cm);
  d.path_class = route.worst_class;
  d.staged = route.staged;
  std::vector<double> transfer, wait;
  for (const auto& rec : r.records)
    if (rec.prefill_replica >= 0) transfer.push_back(rec.kv_transfer_s), wait.push_back(rec.kv_wait_s);
  d.kv_transfer_s = percentiles(transfer);
  d.kv_wait_s = percentiles(wait);
  return d;
}

}  // namespace

void validate_disaggregation(const Scenario& s, const ModelCard& model, const PlatformDesc& platform, const ConfigSpec& c) {
  const DisaggregationSpec& d = *c.disaggregation;
  check_pools_on_platform(d, platform, s.platform_path);
  for (const auto& [pool, name] : {std::pair{&d.prefill, "prefill"}, std::pair{&d.decode, "decode"}}) {
    try {
      check_tp(model, pool->tp);
    } catch (const ValueError& e) {
      throw InputError(d.where, fmt::format("the {} pool: {}", name, e.what()));
    }
  }
  const Topology topo(platform, s.hardware, s.collectives.p2p_level, s.collectives.nccl_version);
  for (const auto& p : d.prefill.instances)
    for (const auto& q : d.decode.instances)
      for (int a : p)
        for (int b : q) {
          try {
            topo.path(a, b);
          } catch (const ValueError& e) {
            throw InputError(d.where, fmt::format("the KV cache cannot move from the prefill pool to the decode pool: {}", e.what()));
          }
        }
}

ConfigResult run_disaggregated_config(const Scenario& s, const RunnerInputs& in, const ConfigSpec& c, const Topology& topo,
                                      const CollectiveModel& cm, const RunOptions& opt, bool simulate) {
  const DisaggregationSpec& d = *c.disaggregation;
  ConfigResult r;
  r.name = c.name;
  r.layout = c.layout;
  r.tp = d.decode.tp;
  r.gpu_model = in.platform.gpu(c.layout[0][0])->model;
  r.decode_batch = s.workload.batch;
  r.prompt_tokens = std::lround(s.workload.prompt.value);
  // A closed batch is the reference decode batch: `batch` sequences per decode instance.
  std::vector<Request> requests = served_requests(s, in.model, int(d.decode.instances.size()), r);
  const std::vector<SequenceWork> decode_work(std::size_t(s.workload.batch), {r.prompt_tokens, 1}),
      prefill_work(std::size_t(s.workload.batch), {0, r.prompt_tokens});
  const Pool prefill = pool_of(s, in, d.prefill, "prefill", cm, prefill_work), decode = pool_of(s, in, d.decode, "decode", cm, decode_work);
  add_sharding_notes(r, in.model, prefill);
  add_sharding_notes(r, in.model, decode);
  r.memory = combined_fit(prefill, decode);
  r.prefill = prefill.reference.breakdown, r.decode_step = decode.reference.breakdown;
  if (auto* p = first_collective(decode.reference)) r.decode_collective = *p;
  if (auto* p = first_collective(prefill.reference)) r.prefill_collective = *p;
  for (const auto& op : step_ops(in.model, d.decode.tp, decode_work).flatten())
    r.collectives_per_step += op.kind == OpKind::collective && d.decode.tp > 1;
  const std::vector<KvShard> shards = kv_transfer_shards(in.model, d.prefill.tp, d.decode.tp);
  r.notes.push_back("disaggregated: the whole prompt's KV moves after its prefill (not layer by layer), at the links' full rate "
                    "(no transfer-engine efficiency or per-transfer overhead modelled); TTFT ends when it reaches the decode instance");
  if (!r.memory.fits || !simulate) {
    r.disaggregation = transfer_figures(r, prefill, decode, shards, topo, cm);
    return r;
  }
  DisaggregatedRunSpec spec;
  spec.base.model = &in.model;
  spec.base.collectives = &cm;
  spec.base.scheduler = s.scheduler;
  spec.base.parallel.sequence_parallel = s.collectives.sequence_parallel;
  spec.base.requests = std::move(requests);
  spec.base.force_flows = opt.force_flows;
  spec.base.trace = opt.trace;
  spec.base.trace_process = c.name;
  spec.prefill = pool_run(prefill, s);
  spec.decode = pool_run(decode, s);
  spec.shards = shards;
  engine_load_platform(s.platform_path, topo);
  summarize(r, engine_run_disaggregated(spec), s);
  r.disaggregation = transfer_figures(r, prefill, decode, shards, topo, cm);
  return r;
}

}  // namespace tpsim
