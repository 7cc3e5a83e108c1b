// A scenario: one question a user asks tpsim. It names a platform, a model card, an optional
// calibration, the configurations to compare, the workload, the objective, and optionally one
// parameter to sweep. Paths inside a scenario are relative to the scenario file.
// Every field documents its default next to it; units are SI in the code.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "config/engine_profile.hpp"
#include "util/error.hpp"

namespace tpsim {

struct EngineSpec {
  std::string name;                // "" = no profile; else an engine profile (engine_profile.hpp) whose defaults apply
  double host_overhead_s = 0;      // host time per step (scheduling, launch)
  double host_per_sequence_s = 0;  // host time per sequence in the step (sampling, detokenisation, stop checks)
  bool host_overlap = true;        // host time overlaps GPU time (max) or not (sum)
  bool cuda_graphs = true;         // decode launched as one CUDA graph per step
  int cuda_graph_max_batch = 0;    // decode steps with more sequences run without graphs (0 = no limit)
  std::string all_reduce = "nccl"; // nccl | custom: the profile's own kernel where its limits allow
  double all_reduce_jitter_s = 0;  // spread (sigma) of the ranks' arrival at each all-reduce: it waits for the last
  std::optional<double> kernel_launch_s;   // per kernel without graphs (default: GPU datasheet)
  std::optional<double> graph_kernel_s;    // per kernel inside a graph (default: GPU datasheet)
  std::optional<double> graph_launch_s;    // per graph launch (default: GPU datasheet)
};

// One pool of a disaggregated configuration (config/disaggregation.hpp): its instances, each a
// list of `tp` GPUs with its own scheduler.
struct PoolSpec {
  int tp = 1;                                   // GPUs per instance (every instance of a pool alike)
  std::vector<std::vector<int>> instances;      // one GPU list per instance
  std::vector<Location> instance_where;         // each instance's list, for errors found later
};

// Prefill/decode disaggregation (xPyD): requests prefill on a prefill instance, their KV cache
// moves to a decode instance over the platform's links, and they decode there.
struct DisaggregationSpec {
  PoolSpec prefill, decode;
  Location where;                               // the `disaggregation:` key
};

struct ConfigSpec {
  std::string name;
  int tp = 1;                               // tensor-parallel degree (GPUs per pipeline stage)
  int pp = 1;                               // pipeline stages per replica (a replica has tp x pp GPUs, stage by stage)
  int ep = 1;                               // expert parallelism: routed experts spread over ep GPUs; ep > 1: a replica
                                            // has ep GPUs, attention data-parallel over ep / tp groups of tp GPUs
  std::optional<double> moe_imbalance;      // busiest EP rank's routed tokens / the mean (default: DEFAULT_MOE_IMBALANCE)
  Location ep_where;                        // the `ep` key, for errors found with the model (ep not dividing the experts)
  int gpus_per_replica() const { return ep > 1 ? ep : tp * pp; }
  std::vector<std::vector<int>> layout;     // one GPU list per replica (empty until placed when auto)
  std::optional<int> auto_replicas;         // `layout: auto`: place this many replicas (0 = as many as fit)
  std::optional<EngineSpec> engine;         // this configuration's engine, when it sets its own (else the scenario's)
  std::vector<int> replica_tp;              // `configs: auto`: TP of each replica of a mixed split (largest first); empty = tp
  std::optional<int> max_num_seqs;          // `configs: auto` engine knobs: override the scheduler's
  std::optional<bool> chunked_prefill;
  Location where;                           // for errors found later (e.g. GPU not in platform)
  // Set for an xPyD configuration: `layout` then lists the prefill instances, then the decode
  // instances, and `tp` is the decode pool's.
  std::optional<DisaggregationSpec> disaggregation;
};

enum class LengthDist { fixed, uniform, lognormal };
enum class ArrivalKind { closed, poisson, gamma, constant, trace };

struct LengthSpec {
  LengthDist dist = LengthDist::fixed;
  double value = 0;       // fixed value, or mean (lognormal), or low (uniform)
  double high = 0;        // uniform upper bound
  double sigma = 0;       // lognormal shape
};

struct WorkloadSpec {
  ArrivalKind arrivals = ArrivalKind::closed;  // closed: `batch` sequences per replica start together
  int batch = 1;                   // sequences per replica (closed) — the reference decode batch
  LengthSpec prompt{LengthDist::fixed, 512};   // prompt tokens
  LengthSpec output{LengthDist::fixed, 128};   // output tokens
  double rate_per_s = 0;           // arrival rate (poisson, gamma, constant)
  double burstiness = 1;           // gamma shape^-1 style: coefficient of variation squared
  long requests = 0;               // number of requests (open arrivals)
  double duration_s = 0;           // or a duration
  std::string trace_path;          // trace file (CSV or JSONL)
  Location prompt_where, output_where;  // the keys that set the lengths, for errors found later
};

struct SchedulerSpec {
  int max_num_seqs = 256;            // vLLM max_num_seqs
  int max_batched_tokens = 8192;     // token budget per step
  bool chunked_prefill = false;      // mix prefill chunks with decode
  double gpu_memory_utilization = 0.9;
  int block_size = 16;               // KV tokens per block
  std::string router = "round_robin";  // round_robin | least_outstanding | least_kv
};


// The values `collectives: {algorithm, protocol}` and `tpsim collective --algorithm/--protocol`
// take (NCCL_ALGO, NCCL_PROTO; `nvls` is NVLS in one node and NVLS-tree across nodes).
const std::vector<std::string>& collective_algorithm_names();
const std::vector<std::string>& collective_protocol_names();
// Why NCCL could run no collective under this pair (NVLS and NVLS-tree run Simple only; NCCL answers
// "No algorithm/protocol available"), or "" when it can.
std::string algorithm_protocol_conflict(const std::string& algorithm, const std::string& protocol);

struct CollectiveSpec {
  std::optional<double> fixed_latency_s;  // the whole fixed cost of one collective (alpha_eff)
  std::string algorithm = "auto";          // auto | ring | tree | direct | nvls (NCCL_ALGO)
  std::string protocol = "auto";           // auto | LL | LL128 | Simple (NCCL_PROTO)
  std::string p2p_level;                   // "" = platform's or NCCL's default; "OFF" = `p2p: off` (NCCL_P2P_DISABLE=1)
  bool sequence_parallel = false;          // layer all-reduces as reduce-scatter + all-gather
  int gpus_per_thread = 1;                 // launch mode: 1 = a process per GPU (engines); N = nccl-tests -g N
  std::string nccl_version;                // the NCCL release simulated ("": a current one); before 2.9, -g N is one group launch
  // Host-staged copy rates (collectives.host_copy_bandwidth / socket_copy_bandwidth): over a
  // calibration's and the defaults (model/host_staging.hpp).
  std::optional<double> host_copy_Bps, socket_copy_Bps;
  // Set from the engine (not a `collectives:` key): its own all-reduce kernel, and the arrival spread.
  std::optional<CustomAllReduce> custom_all_reduce;
  double all_reduce_jitter_s = 0;
};

struct LinkOverride {
  std::optional<double> bandwidth_Bps;
  std::optional<double> latency_s;
};

struct HardwareSpec {
  std::optional<double> hbm_bandwidth_Bps;  // achievable HBM bandwidth for every GPU
  std::optional<double> matmul_efficiency;  // achievable fraction of peak flops
  std::map<std::string, LinkOverride> links;  // per link kind: "nvlink", "upi", ...
  // The SYS route scaled as a whole (the what-would-change probe and sweeps of
  // links.sys_path.bandwidth): every PCIe, PCIe-switch, host-bridge and socket link's bandwidth and
  // every copy through host memory times this factor, after the overrides above.
  double sys_path_scale = 1;
  // A sweep's target for that route's pace, turned into sys_path_scale by the engine
  // (engine/sys_path.hpp, which knows the platform); unset once resolved.
  std::optional<double> sys_path_Bps;
};

struct SloSpec {
  std::optional<double> ttft_p99_s;
  std::optional<double> tpot_p99_s;
  std::optional<double> e2e_p99_s;
};

enum class Objective { latency, ttft, tpot, throughput, slo };
const char* objective_name(Objective o);

struct SweepSpec {
  std::string parameter;        // e.g. "collectives.fixed_latency"
  std::vector<double> values;   // SI
  std::string unit;             // unit of the values: "s", "B/s", "B", "tokens", "requests/s"
  Location where;               // the sweep, for errors found later (a swept prompt beyond the context)
};

// `configs: auto` (splits.hpp): every split of the platform's GPUs, optionally crossed with
// engine knobs; `fewest_gpus` answers "the fewest GPUs that meet the SLOs at this rate".
struct SearchSpec {
  std::vector<int> max_num_seqs;     // values to try (empty: the scheduler's)
  std::vector<bool> chunked_prefill; // values to try (empty: the scheduler's)
  bool fewest_gpus = false;          // also splits of fewer GPUs; recommend the fewest meeting the SLOs
  bool disaggregation = false;       // also prefill/decode pools (xPyD splits): opt-in, each costs a PD run
  Location where;                    // `configs: auto`, for errors found later
};

// `what_would_change:` — which inputs the runner probes for the value at which the winner changes
// (engine/what_would_change.hpp). Without the key: the inputs that decide the verdict, over
// default ranges; `what_would_change: off` skips it; a list names the parameters (any sweepable
// one, `objective`, `collectives.p2p`) and optionally how far to search each way.
struct ProbeSpec {
  std::string parameter;
  std::optional<double> down_to, up_to;  // SI; nullopt = the default range
  Location where;
};
struct WhatWouldChangeSpec {
  bool enabled = true;
  std::vector<ProbeSpec> probes;  // empty: the defaults
};

struct Scenario {
  std::string file;
  std::string name;
  std::string description;
  std::string platform_path;       // resolved against the scenario's folder
  std::string model_path;
  std::string calibration_path;    // "" = datasheet defaults
  std::string dtype;               // "" = model card's
  std::string kv_cache_dtype;      // "" = model card's (auto, fp8, ...: vLLM's --kv-cache-dtype)
  std::uint64_t seed = 1;
  std::vector<ConfigSpec> configs;  // empty until expanded when `search` is set
  std::optional<SearchSpec> search; // `configs: auto`
  WorkloadSpec workload;
  SchedulerSpec scheduler;
  EngineSpec engine;
  CollectiveSpec collectives;
  HardwareSpec hardware;
  Objective objective = Objective::latency;
  SloSpec slo;
  std::optional<SweepSpec> sweep;
  std::optional<double> model_weight_bytes;  // `model.weight_bytes`: the card's layers scaled to about this many bytes of weights
  WhatWouldChangeSpec what_would_change;
};

Scenario load_scenario(const std::string& path);

// Applies one value of a swept parameter to a scenario (the registry of sweepable parameters).
void apply_sweep_value(Scenario& s, const std::string& parameter, double value);
// Names of the parameters a sweep may vary, and their unit.
const std::vector<std::pair<std::string, std::string>>& sweepable_parameters();

}  // namespace tpsim
