// Prefill/decode disaggregation on SimGrid: the actors of an xPyD configuration.
//
// * arrivals: each request goes to a prefill instance (the scenario's router over the prefill
//   pool) as a request for its first token only;
// * one actor per prefill instance: its own continuous-batching scheduler and queue; when a
//   prompt is done (its first token produced), the instance keeps the prompt's KV blocks and hands
//   the request to a decode instance (the same router over the decode pool);
// * the decode instance reserves room for the KV (prompt + first token; SGLang's pre-allocation,
//   vLLM's NIXL connector allocates before it reads) — requests wait in its transfer queue, in
//   order, until blocks and a sequence slot are free;
// * one actor per transfer: the whole request's KV after its prefill (vLLM's NIXL connector,
//   SGLang with Mooncake or NIXL, DistServe and Dynamo move a finished prompt's KV; layer-wise
//   streaming during the prefill, as Mooncake's paper and LMCache do, is not modelled): the
//   longest route latency, then one SimGrid flow per KV shard and route leg (kv_transfer.hpp),
//   on the same links as the instances' collectives, so they slow each other down. When it
//   ends the prefill frees the blocks and the request joins the decode instance's batch;
// * one actor per decode instance: decodes from the second token, its scheduler as a replica's
//   (preemption recomputes the prompt there).
// The first token reaches the user when its KV has reached the decode instance (it travels with
// the KV; vLLM's disaggregated-prefill benchmark counts the transfer in TTFT the same way by
// taking the first token from the decode instance, vllm-project/vllm#6170).
#pragma once
#include <vector>

#include "engine.hpp"
#include "model/kv_transfer.hpp"

namespace tpsim {

struct PoolRunSpec {
  std::vector<ReplicaSpec> instances;  // GPUs and KV blocks of each instance
  int tp = 1;
  GpuModel gpu;
  SchedulerSpec scheduler;
};

struct DisaggregatedRunSpec {
  RunSpec base;  // model, collectives, router, requests, force_flows, trace (its replicas, pp and gpu unused)
  PoolRunSpec prefill, decode;
  std::vector<KvShard> shards;  // prefill rank -> decode rank bytes per token
};

// Runs one disaggregated configuration to completion. Records: `replica` is the decode
// instance's index in the configuration's layout (prefill instances first), `prefill_replica`
// the prefill instance's.
RunResult engine_run_disaggregated(const DisaggregatedRunSpec& spec);

}  // namespace tpsim
