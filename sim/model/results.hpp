// Metric records of a scenario run: what the report layer renders. Filled by the engine's
// scenario runner from request records; nothing here knows about SimGrid.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "scheduler.hpp"
#include "step_cost.hpp"

namespace tpsim {

struct Percentiles {
  double p50 = 0, p90 = 0, p99 = 0, mean = 0;
};
// Nearest-rank percentiles (p-th value of the sorted sample at index ceil(p·n)−1).
Percentiles percentiles(std::vector<double> values);

struct MemoryFit {
  bool fits = true;
  double weights_B = 0;       // per GPU
  double activations_B = 0;   // per GPU, peak of the reference step
  double kv_B = 0;            // KV cache the reference workload needs per GPU
  double capacity_B = 0;      // GPU memory x utilisation (the whole GPU where the KV cache takes a share of what is left)
  long kv_blocks = 0;         // blocks the scheduler may use per replica
  std::string why;            // when it does not fit
};

// A disaggregated (xPyD) configuration's pools and KV transfers (engine/pd_runner.cpp).
struct DisaggregationResult {
  std::vector<std::vector<int>> prefill, decode;  // instances' GPUs
  int prefill_tp = 1, decode_tp = 1;
  MemoryFit prefill_memory, decode_memory;        // per GPU of each pool
  double kv_bytes_per_token = 0;    // moved per prompt token, all shards (model/kv_transfer.hpp)
  double reference_kv_B = 0;        // the reference prompt's KV
  double reference_transfer_s = 0;  // its transfer from the first prefill to the first decode instance, alone
  PathClass path_class = PathClass::NVL;  // worst path a transfer takes (first instances)
  bool staged = false;
  Percentiles kv_transfer_s;        // per request: the transfer (latency + flows)
  Percentiles kv_wait_s;            // per request: end of prefill until the decode instance had room
};

// A figure's interval: the figure recomputed with the GPU time and the collective time of its
// reference step each moved by their documented spread (model/intervals.hpp).
struct Interval {
  double low = 0, high = 0;
};
struct FigureBounds {
  Interval decode_step_s, prefill_s;
  Interval prefill_ratio, decode_ratio;  // low and high over the figure itself
  Interval ttft_p50_s, tpot_p50_s, e2e_p50_s;
  Interval throughput_tok_s_per_gpu;
  double gpu_spread = 0;                                       // relative, e.g. 0.017
  double collective_spread_down = 0, collective_spread_up = 0;  // relative; unequal for host-staged defaults
};

struct ConfigResult {
  std::string name;
  std::vector<std::vector<int>> layout;
  int tp = 1;
  int pp = 1;
  int ep = 1;                            // expert parallelism (routed experts spread over ep GPUs)
  int attention_dp = 1;                  // attention data-parallel groups per replica (ep / tp with EP)
  std::optional<double> moe_imbalance;   // with EP: the busiest rank's routed tokens over the mean
  std::string gpu_model;
  MemoryFit memory;
  std::vector<std::string> notes;        // e.g. "KV heads replicated"
  // Reference steps (uncontended): a decode step of the reference batch and its prefill.
  Breakdown decode_step, prefill;
  int decode_batch = 1;
  long prompt_tokens = 0;
  std::optional<CollectivePlan> decode_collective;   // one layer all-reduce of the decode step
  std::optional<CollectivePlan> prefill_collective;  // one layer all-reduce of the prefill
  std::optional<CollectivePlan> decode_all_to_all;   // one MoE dispatch of the decode step (EP with attention DP)
  int collectives_per_step = 0;
  SchedulerSpec scheduler;               // what the serving run used (the scenario's, with the configuration's knobs)
  // Serving metrics (from request records).
  Percentiles ttft_s, tpot_s, e2e_s, queue_s, itl_max_s;
  double throughput_tok_s = 0;           // output tokens per second, all replicas
  double throughput_req_s = 0;
  double throughput_tok_s_per_gpu = 0;
  double slo_attainment = 0;             // fraction of requests meeting every SLO (1 without SLOs)
  double goodput_req_s = 0;
  double kv_peak_usage = 0;
  double mean_in_system = 0;             // time-average number of requests in the system
  double offered_rate_req_s = 0;
  long requests_completed = 0, requests_dropped = 0, preemptions = 0;
  bool saturated = false;
  bool shared_links = false;
  long flow_collectives = 0;
  long events = 0;                       // SimGrid waits of the serving run (its cost: what_would_change's budget)
  std::optional<DisaggregationResult> disaggregation;  // set for an xPyD configuration
  std::vector<RequestRecord> records;
  std::optional<FigureBounds> bounds;    // set by the runner when the configuration fits
};

struct SweepPoint {
  double value = 0;
  std::vector<ConfigResult> configs;
  std::string winner;
};

struct Crossover {
  double value = 0;
  std::string from, to;
};

// `configs: auto` (search_summary.hpp): one operating point per configuration and load.
struct ParetoPoint {
  std::string config;
  std::optional<double> rate_req_s;  // the swept arrival rate, when the scenario sweeps workload.rate
  double tok_s_per_gpu = 0;          // output tokens per second per GPU
  double tok_s_per_user = 0;         // 1 / TPOT p50: output tokens per second one request sees
  int gpus = 0;
};

struct SearchSummary {
  std::vector<std::size_t> ranking;  // indices into ScenarioResult::configs, best first
  std::vector<std::string> status;   // per configuration: does not fit, saturated, misses / meets the SLOs, keeps up
  std::vector<ParetoPoint> pareto;   // the non-dominated points, by tok_s_per_user
  std::vector<ParetoPoint> points;   // every point the frontier was drawn from
  std::string pareto_basis;          // which points: within the SLOs, or (none within) all that fit
  std::vector<std::string> notes;    // degrees left out, and why; what the ranking means
  bool fewest_gpus_mode = false;
  std::string fewest_gpus_config;    // "" = no split meets the SLOs
  int fewest_gpus = 0;
};

// One answer to "what would change the answer": the value of one input at which the winner
// changes, and to what — or that it does not change within the searched range.
struct Change {
  std::string parameter = {};               // a sweepable parameter, "objective" or "collectives.p2p"
  std::string unit = {};                    // of base, threshold and searched_to (SI); "" for named values
  std::optional<double> base = {};          // the scenario's value
  std::optional<double> threshold = {};     // first value (from the base) with another winner
  std::string threshold_name = {};          // the objective or P2P level, for named values
  std::string from = {}, to = {};                // winners; `to` empty: no change
  std::string direction = {};               // "above" | "below" | "" (named values)
  std::optional<double> searched_to = {};   // the end of the searched range
  std::string why = {};                     // what happens at the threshold, in numbers
  int evaluations = 0;                 // scenario evaluations the search took
};

// The model's shapes the exercises need (report/exercises.hpp).
struct ModelShape {
  int hidden_size = 0, num_layers = 0;
  double activation_bytes = 2;         // bytes per activation value (bf16)
  double weight_bytes = 0;
  int collectives_per_layer = 2;
  double hbm_Bps = 0;                  // achievable HBM bandwidth of the GPUs (datasheet or calibration)
};

struct ScenarioResult {
  std::string scenario;
  std::string model_name;
  std::string platform_file;
  std::uint64_t seed = 1;
  std::string objective;
  std::vector<ConfigResult> configs;
  std::string recommendation;
  std::string reason;
  std::vector<std::string> derivation;   // lines explaining the numbers that decide it
  // What the calibration's collective entries did (CollectiveModel::calibration_notes), sorted.
  std::vector<std::string> calibration_use;
  std::optional<std::string> sweep_parameter;
  std::string sweep_unit;
  std::vector<SweepPoint> sweep_points;
  std::vector<Crossover> crossovers;
  // With SLOs: per configuration, the highest swept value at which it meets every SLO at p99
  // and is not saturated (nullopt: at none).
  std::vector<std::pair<std::string, std::optional<double>>> highest_within_slo;
  std::optional<SearchSummary> search;   // `configs: auto`
  // How sure: the winner across every figure's interval ("robust" | "too close to call"), and why.
  std::string confidence, confidence_why;
  std::vector<std::string> grounding;     // what the numbers rest on: calibration file and sources, or datasheet defaults
  std::vector<Change> what_would_change;  // empty when the scenario turns it off
  std::string what_would_change_scope;    // which configurations its probes re-ran, when not all
  ModelShape model_shape;
};

// The objective's metric of a configuration, with its unit ("TTFT p50 312.0 ms").
std::string objective_metric(const ConfigResult& c, const std::string& objective);
// A value in one of the sweep units ("B/s", "s", "B", "tokens", ...), written for people: "40 GB/s".
std::string format_in_unit(double v, const std::string& unit);

// Whether a configuration meets every SLO at p99 and keeps up with its arrivals.
bool within_slo(const ConfigResult& c, const SloSpec& slo);

// The objective's value of a configuration, lower is better; infinity when it does not fit or
// completed nothing.
double objective_score(const ConfigResult& r, Objective o);

// GPUs a configuration uses (all replicas).
int gpus_of(const ConfigResult& c);

}  // namespace tpsim
