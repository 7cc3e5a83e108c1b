#include "scenario.hpp"

#include "p2p_policy.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <set>

#include "disaggregation.hpp"
#include "model_card.hpp"
#include "scenario_limits.hpp"
#include "scenario_search.hpp"
#include "scenario_sweep.hpp"
#include "util/nccl_terms.hpp"
#include "util/spelling.hpp"
#include "yaml_source.hpp"

namespace tpsim {

const std::vector<std::string>& collective_algorithm_names() {
  static const std::vector<std::string> names{"auto", "ring", "tree", "direct", "nvls"};
  return names;
}

const std::vector<std::string>& collective_protocol_names() {
  static const std::vector<std::string> names{"auto", "LL", "LL128", "Simple"};
  return names;
}

std::string algorithm_protocol_conflict(const std::string& algorithm, const std::string& protocol) {
  if (algorithm != "nvls" || protocol == "auto" || protocol == "Simple") return "";
  return "NVLS runs the Simple protocol only (NCCL has no NVLS with " + protocol +
         " and answers 'No algorithm/protocol available'): leave the protocol to NCCL (auto) or give Simple";
}

std::string fmt_list(const std::vector<std::string>& v);

const char* objective_name(Objective o) {
  switch (o) {
    case Objective::latency: return "latency";
    case Objective::ttft: return "ttft";
    case Objective::tpot: return "tpot";
    case Objective::throughput: return "throughput";
    case Objective::slo: return "slo";
  }
  return "?";
}

namespace {

using namespace scenario_limits;

std::string resolve(const std::string& scenario_file, const std::string& path) {
  namespace fs = std::filesystem;
  if (path.empty() || fs::path(path).is_absolute()) return path;
  return (fs::path(scenario_file).parent_path() / path).lexically_normal().string();
}

// A file the scenario names, resolved against the scenario's folder; it must exist.
std::string existing_file(const YamlMap& m, const std::string& key, const std::string& what) {
  const std::string path = resolve(m.file(), m.str(key));
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) m.fail(m.node(key), what + " '" + path + "' does not exist");
  return path;
}

double positive(const YamlMap& m, const std::string& key, double v) {
  if (!(v > 0)) m.fail(m.node(key), "'" + key + "' must be positive");
  return v;
}

// A key's value must not exceed `limit`; `why` says what grows with it.
double at_most(const YamlMap& m, const std::string& key, double v, double limit, const std::string& why) {
  if (v > limit) m.fail(m.node(key), "'" + key + "' is " + count(v) + "; tpsim refuses more than " + count(limit) + " " + why);
  return v;
}

LengthSpec read_length(const YamlMap& parent, const std::string& key, LengthSpec fallback) {
  if (!parent.has(key)) return fallback;
  YAML::Node n = parent.node(key);
  const std::string why = "tokens per request (longer than any model's context)";
  if (n.IsScalar()) return {LengthDist::fixed, at_most(parent, key, positive(parent, key, double(parent.integer(key))), MAX_TOKENS, why)};
  YamlMap m(parent.file(), n, "'" + key + "'");
  m.check_keys({"dist", "value", "low", "high", "mean", "sigma"});
  const std::string dist = m.str("dist");
  if (dist == "fixed") return {LengthDist::fixed, at_most(m, "value", positive(m, "value", m.number("value")), MAX_TOKENS, why)};
  if (dist == "uniform") {
    LengthSpec l{LengthDist::uniform, positive(m, "low", m.number("low")), at_most(m, "high", m.number("high"), MAX_TOKENS, why)};
    if (l.high < l.value) m.fail(m.node("high"), "'high' must be >= 'low'");
    return l;
  }
  if (dist == "lognormal")
    return {LengthDist::lognormal, at_most(m, "mean", positive(m, "mean", m.number("mean")), MAX_TOKENS, why), 0,
            at_most(m, "sigma", positive(m, "sigma", m.number("sigma")), MAX_SIGMA, "(wider than any measured length distribution)")};
  m.fail(m.node("dist"), "'dist' must be fixed, uniform or lognormal, not '" + dist + "'" +
                             did_you_mean(dist, {"fixed", "uniform", "lognormal"}));
}

WorkloadSpec read_workload(const YamlMap& m) {
  m.check_keys({"arrivals", "batch", "prompt_tokens", "output_tokens", "rate_per_s", "burstiness", "requests",
                "duration", "trace"});
  WorkloadSpec w;
  const std::string arrivals = m.str_or("arrivals", "closed");
  const std::vector<std::string> kinds{"closed", "poisson", "gamma", "constant", "trace"};
  auto it = std::find(kinds.begin(), kinds.end(), arrivals);
  if (it == kinds.end())
    m.fail(m.node("arrivals"), "'arrivals' must be one of closed, poisson, gamma, constant, trace" + did_you_mean(arrivals, kinds));
  w.arrivals = static_cast<ArrivalKind>(it - kinds.begin());
  const long batch = m.integer_or("batch", 1);
  if (batch < 1) m.fail(m.node("batch"), "'batch' must be at least 1");
  w.batch = static_cast<int>(at_most(m, "batch", double(batch), MAX_BATCH, "sequences per replica (memory grows with the batch)"));
  w.prompt = read_length(m, "prompt_tokens", w.prompt);
  w.output = read_length(m, "output_tokens", w.output);
  w.prompt_where = location_of(m.file(), m.has("prompt_tokens") ? m.node("prompt_tokens") : m.raw());
  w.output_where = location_of(m.file(), m.has("output_tokens") ? m.node("output_tokens") : m.raw());
  if (m.has("rate_per_s")) w.rate_per_s = positive(m, "rate_per_s", m.number("rate_per_s"));
  if (m.has("burstiness")) w.burstiness = positive(m, "burstiness", m.number("burstiness"));
  w.requests = m.integer_or("requests", 0);
  if (w.requests < 0) m.fail(m.node("requests"), "'requests' must be positive");
  if (w.requests > MAX_REQUESTS)
    m.fail(m.node("requests"), "'requests' is " + std::to_string(w.requests) + "; tpsim refuses more than 10000000 (memory grows with requests)");
  w.duration_s = m.quantity_or("duration", Quantity::time, 0);
  if (w.requests == 0 && w.rate_per_s * w.duration_s > MAX_REQUESTS)
    m.fail(m.node("duration"), "'duration' at 'rate_per_s' makes " + count(std::ceil(w.rate_per_s * w.duration_s)) +
                                   " requests; tpsim refuses more than 10000000 (memory grows with requests)");
  if (m.has("trace")) {
    w.trace_path = existing_file(m, "trace", "trace file");
    w.prompt_where = w.output_where = location_of(m.file(), m.node("trace"));
  }
  const bool open = w.arrivals != ArrivalKind::closed;
  if (open && w.arrivals != ArrivalKind::trace && w.rate_per_s <= 0)
    m.fail(m.raw(), "arrivals '" + arrivals + "' needs 'rate_per_s'");
  if (open && w.arrivals != ArrivalKind::trace && w.requests == 0 && w.duration_s == 0)
    m.fail(m.raw(), "open arrivals need 'requests' or 'duration'");
  if (w.arrivals == ArrivalKind::trace && w.trace_path.empty()) m.fail(m.raw(), "arrivals 'trace' needs 'trace: FILE'");
  return w;
}

// `base`: the defaults, or the engine profile's scheduling defaults.
SchedulerSpec read_scheduler(const YamlMap& m, SchedulerSpec s) {
  m.check_keys({"max_num_seqs", "max_batched_tokens", "chunked_prefill", "gpu_memory_utilization", "block_size", "router"});
  const long seqs = m.integer_or("max_num_seqs", s.max_num_seqs), budget = m.integer_or("max_batched_tokens", s.max_batched_tokens),
             block = m.integer_or("block_size", s.block_size);
  if (seqs < 1 || budget < 1 || block < 1) m.fail(m.raw(), "scheduler limits must be at least 1");
  s.max_num_seqs = static_cast<int>(at_most(m, "max_num_seqs", double(seqs), MAX_BATCH, "sequences per replica"));
  s.max_batched_tokens = static_cast<int>(at_most(m, "max_batched_tokens", double(budget), MAX_TOKENS, "tokens per step"));
  s.block_size = static_cast<int>(at_most(m, "block_size", double(block), MAX_TOKENS, "tokens per block"));
  s.chunked_prefill = m.boolean_or("chunked_prefill", s.chunked_prefill);
  s.gpu_memory_utilization = m.number_or("gpu_memory_utilization", s.gpu_memory_utilization);
  if (!(s.gpu_memory_utilization > 0 && s.gpu_memory_utilization <= 1))
    m.fail(m.node("gpu_memory_utilization"), "'gpu_memory_utilization' must be in (0, 1]");
  s.router = m.str_or("router", s.router);
  const std::vector<std::string> routers{"round_robin", "least_outstanding", "least_kv"};
  if (std::find(routers.begin(), routers.end(), s.router) == routers.end())
    m.fail(m.node("router"), "'router' must be round_robin, least_outstanding or least_kv" + did_you_mean(s.router, routers));
  return s;
}

// The profile's defaults (engine_profile.hpp) over `base`: its CUDA graphs and its all-reduce.
EngineSpec with_profile(const std::string& file, const YAML::Node& at, EngineSpec base) {
  const std::string name = scalar_of(file, at, "the engine's name");
  const EngineProfile* p = find_engine_profile(name);
  if (!p)
    throw InputError(location_of(file, at), "unknown engine '" + name + "' (known: " + fmt_list(engine_profile_names()) + ")" +
                                                did_you_mean(name, engine_profile_names()));
  base.name = p->name;
  base.cuda_graphs = p->cuda_graphs;
  base.cuda_graph_max_batch = p->cuda_graph_max_batch;
  base.all_reduce = p->custom_all_reduce ? "custom" : "nccl";
  base.all_reduce_jitter_s = p->all_reduce_jitter_s;
  return base;
}

// `engine: NAME` (a profile) or `engine: {name: NAME, ...}`: the profile's defaults, then the keys
// given, over `base` (the defaults, or the scenario's engine for a configuration's own).
EngineSpec read_engine(const std::string& file, const YAML::Node& node, const EngineSpec& base) {
  if (node.IsScalar()) return with_profile(file, node, base);
  const YamlMap m(file, node, "the engine");
  m.check_keys({"name", "host_overhead", "host_per_sequence", "host_overlap", "cuda_graphs", "cuda_graph_max_batch", "all_reduce",
                "all_reduce_jitter", "kernel_launch", "graph_kernel", "graph_launch"});
  EngineSpec e = m.has("name") ? with_profile(file, m.node("name"), base) : base;
  e.host_overhead_s = m.quantity_or("host_overhead", Quantity::time, e.host_overhead_s);
  e.host_per_sequence_s = m.quantity_or("host_per_sequence", Quantity::time, e.host_per_sequence_s);
  e.host_overlap = m.boolean_or("host_overlap", e.host_overlap);
  e.cuda_graphs = m.boolean_or("cuda_graphs", e.cuda_graphs);
  const long graph_batch = m.integer_or("cuda_graph_max_batch", e.cuda_graph_max_batch);
  if (graph_batch < 0) m.fail(m.node("cuda_graph_max_batch"), "'cuda_graph_max_batch' must be >= 0 (0: no limit)");
  e.cuda_graph_max_batch = static_cast<int>(at_most(m, "cuda_graph_max_batch", double(graph_batch), MAX_BATCH, "sequences"));
  if (m.has("all_reduce")) {
    e.all_reduce = m.str("all_reduce");
    const std::vector<std::string> kinds{"nccl", "custom"};
    if (std::find(kinds.begin(), kinds.end(), e.all_reduce) == kinds.end())
      m.fail(m.node("all_reduce"), "'all_reduce' must be nccl or custom" + did_you_mean(e.all_reduce, kinds));
    const EngineProfile* p = find_engine_profile(e.name);
    if (e.all_reduce == "custom" && !(p && p->custom_all_reduce))
      m.fail(m.node("all_reduce"), "'all_reduce: custom' needs an engine with its own all-reduce kernel (name: vllm, sglang or trtllm)");
  }
  e.all_reduce_jitter_s = m.quantity_or("all_reduce_jitter", Quantity::time, e.all_reduce_jitter_s);
  if (m.has("kernel_launch")) e.kernel_launch_s = m.quantity("kernel_launch", Quantity::time);
  if (m.has("graph_kernel")) e.graph_kernel_s = m.quantity("graph_kernel", Quantity::time);
  if (m.has("graph_launch")) e.graph_launch_s = m.quantity("graph_launch", Quantity::time);
  return e;
}

CollectiveSpec read_collectives(const YamlMap& m) {
  m.check_keys({"fixed_latency", "algorithm", "protocol", "p2p_level", "p2p", "sequence_parallel", "host_copy_bandwidth",
                "socket_copy_bandwidth", "nccl_version"});
  CollectiveSpec c;
  // The NCCL release simulated (as `tpsim collective --nccl-version`): its default P2P level, what it offers.
  c.nccl_version = m.str_or("nccl_version", "");
  if (m.has("nccl_version") && !nccl_release(c.nccl_version))
    m.fail(m.node("nccl_version"), "'nccl_version' must be a NCCL release such as 2.21.5 (got '" + c.nccl_version + "')");
  c.sequence_parallel = m.boolean_or("sequence_parallel", false);
  if (m.has("fixed_latency")) c.fixed_latency_s = m.quantity("fixed_latency", Quantity::time);
  for (auto [key, out] : {std::pair{"host_copy_bandwidth", &c.host_copy_Bps}, std::pair{"socket_copy_bandwidth", &c.socket_copy_Bps}})
    if (m.has(key)) *out = positive(m, key, m.quantity(key, Quantity::bandwidth));
  c.algorithm = m.one_of_or("algorithm", collective_algorithm_names(), c.algorithm);
  c.protocol = m.one_of_or("protocol", collective_protocol_names(), c.protocol);
  if (const std::string why = algorithm_protocol_conflict(c.algorithm, c.protocol); !why.empty())
    m.fail(m.node("protocol"), "'protocol: " + c.protocol + "' with 'algorithm: nvls': " + why);
  c.p2p_level = m.one_of_or("p2p_level", p2p_level_names(), c.p2p_level);
  // `p2p: off` is NCCL_P2P_DISABLE=1 (as `tpsim collective --p2p off`): every path staged.
  std::string p2p = "on";
  p2p = m.one_of_or("p2p", {"off", "on"}, p2p);
  if (p2p == "off" && m.has("p2p_level"))
    m.fail(m.node("p2p_level"), "'p2p_level' has no effect with 'p2p: off' (NCCL_P2P_DISABLE=1 stages every path through host memory); remove one of them");
  if (p2p == "off") c.p2p_level = "OFF";
  return c;
}

HardwareSpec read_hardware(const YamlMap& m) {
  m.check_keys({"hbm_bandwidth", "matmul_efficiency", "links"});
  HardwareSpec h;
  if (m.has("hbm_bandwidth")) h.hbm_bandwidth_Bps = positive(m, "hbm_bandwidth", m.quantity("hbm_bandwidth", Quantity::bandwidth));
  if (m.has("matmul_efficiency")) {
    double e = m.number("matmul_efficiency");
    if (!(e > 0 && e <= 1)) m.fail(m.node("matmul_efficiency"), "'matmul_efficiency' must be in (0, 1]");
    h.matmul_efficiency = e;
  }
  if (m.has("links")) {
    YamlMap links = m.map("links");
    const std::vector<std::string> kinds{"nvlink", "nvswitch", "pcie", "pcie_switch", "host_bridge", "upi", "nic", "fabric"};
    links.check_keys(kinds);
    for (const auto& k : kinds) {
      if (!links.has(k)) continue;
      YamlMap l = links.map(k);
      l.check_keys({"bandwidth", "latency"});
      if (l.has("bandwidth")) h.links[k].bandwidth_Bps = positive(l, "bandwidth", l.quantity("bandwidth", Quantity::bandwidth));
      if (l.has("latency")) h.links[k].latency_s = l.quantity("latency", Quantity::time);
    }
  }
  return h;
}

SloSpec read_slo(const YamlMap& m) {
  m.check_keys({"ttft_p99", "tpot_p99", "e2e_p99"});
  SloSpec s;
  if (m.has("ttft_p99")) s.ttft_p99_s = m.quantity("ttft_p99", Quantity::time);
  if (m.has("tpot_p99")) s.tpot_p99_s = m.quantity("tpot_p99", Quantity::time);
  if (m.has("e2e_p99")) s.e2e_p99_s = m.quantity("e2e_p99", Quantity::time);
  return s;
}


std::vector<int> read_gpu_list(const YamlMap& m, const YAML::Node& n) {
  if (!n.IsSequence() || n.size() == 0) m.fail(n, "each replica in 'layout' must be a non-empty list of GPU indices");
  std::vector<int> g;
  for (const auto& x : n) {
    long v = integer_of(m.file(), x, "GPU index");
    if (v < 0) m.fail(x, "GPU index must be >= 0");
    if (v > MAX_GPU_INDEX) m.fail(x, "GPU index " + std::to_string(v) + " is not in any platform (at most " + count(MAX_GPU_INDEX) + ")");
    g.push_back(static_cast<int>(v));
  }
  return g;
}

// `ep` beside tp (vLLM's --enable-expert-parallel with DP x TP = EP; SGLang's --ep-size with
// --enable-dp-attention): ep a multiple of tp, within one pipeline stage.
void read_expert_parallel(const YamlMap& m, ConfigSpec& c) {
  if (m.has("moe_imbalance")) {
    const double f = m.number("moe_imbalance");
    if (!(f >= 1) || f > 1000) m.fail(m.node("moe_imbalance"), "'moe_imbalance' (busiest EP rank's tokens over the mean) must be between 1 and 1000");
    c.moe_imbalance = f;
  }
  if (!m.has("ep")) {
    if (c.moe_imbalance)
      m.fail(m.node("moe_imbalance"), "'moe_imbalance' applies to expert parallelism: set ep > 1, or leave it out (TP-sharded experts are on every GPU)");
    return;
  }
  c.ep_where = location_of(m.file(), m.node("ep"));
  const long ep = m.integer("ep");
  if (ep < 1) m.fail(m.node("ep"), "'ep' must be at least 1");
  c.ep = static_cast<int>(at_most(m, "ep", double(ep), MAX_GPU_INDEX, "GPUs per expert-parallel group"));
  if (c.ep > 1 && c.ep % c.tp != 0)
    m.fail(m.node("ep"), "ep " + std::to_string(c.ep) + " is not a multiple of tp " + std::to_string(c.tp) + " (EP spans attention groups of tp GPUs)");
  if (c.ep > 1 && c.pp > 1) m.fail(m.node("ep"), "ep with pp > 1 is not modelled: tpsim spreads experts within one pipeline stage");
  if (c.ep == 1 && c.moe_imbalance)
    m.fail(m.node("moe_imbalance"), "'moe_imbalance' applies to expert parallelism: set ep > 1, or leave it out (TP-sharded experts are on every GPU)");
}

ConfigSpec read_config(const YamlMap& m, const EngineSpec& scenario_engine) {
  m.check_keys({"name", "tp", "pp", "ep", "moe_imbalance", "layout", "replicas", "engine", "disaggregation"});
  if (m.has("disaggregation")) return read_disaggregated_config(m);
  ConfigSpec c;
  c.where = location_of(m.file(), m.raw());
  if (m.has("engine")) c.engine = read_engine(m.file(), m.node("engine"), scenario_engine);
  const long tp = m.integer("tp");
  if (tp < 1) m.fail(m.node("tp"), "'tp' must be at least 1");
  c.tp = static_cast<int>(at_most(m, "tp", double(tp), MAX_GPU_INDEX, "GPUs per replica"));
  const long pp = m.integer_or("pp", 1);
  if (pp < 1) m.fail(m.node("pp"), "'pp' must be at least 1");
  c.pp = static_cast<int>(at_most(m, "pp", double(pp), MAX_GPU_INDEX, "pipeline stages"));
  read_expert_parallel(m, c);
  YAML::Node layout = m.node("layout");
  if (layout.IsScalar() && layout.Scalar() == "auto") {
    if (c.pp > 1) m.fail(layout, "'layout: auto' places tensor-parallel groups only; list the GPUs of a pipeline-parallel layout");
    if (c.ep > 1) m.fail(layout, "'layout: auto' places tensor-parallel groups only; list the GPUs of an expert-parallel layout");
    const long replicas = m.integer_or("replicas", 0);
    if (replicas < 0 || (m.has("replicas") && replicas == 0)) m.fail(m.node("replicas"), "'replicas' must be at least 1");
    c.auto_replicas = static_cast<int>(at_most(m, "replicas", double(replicas), MAX_GPU_INDEX, "replicas"));
    c.name = m.str_or("name", "");
    if (c.name.empty()) c.name = "auto TP=" + std::to_string(c.tp);
    return c;
  }
  if (m.has("replicas")) m.fail(m.node("replicas"), "'replicas' goes with 'layout: auto'; an explicit layout lists its replicas");
  if (!layout.IsSequence() || layout.size() == 0) m.fail(layout, "'layout' must be a list of replicas, each a list of GPUs");
  std::set<int> seen;
  for (const auto& replica : layout) {
    auto gpus = read_gpu_list(m, replica);
    if (c.ep > 1 && long(gpus.size()) != c.ep)
      m.fail(replica, "replica has " + std::to_string(gpus.size()) + " GPUs but ep is " + std::to_string(c.ep) + " (an EP replica spans its ep GPUs)");
    if (c.ep == 1 && long(gpus.size()) != long(c.tp) * c.pp)  // long: tp x pp may exceed an int
      m.fail(replica, "replica has " + std::to_string(gpus.size()) + " GPUs but tp" + (c.pp > 1 ? " x pp is " + std::to_string(long(c.tp) * c.pp) : " is " + std::to_string(c.tp)));
    for (int g : gpus)
      if (!seen.insert(g).second) m.fail(replica, "GPU " + std::to_string(g) + " is used twice in this configuration");
    c.layout.push_back(gpus);
  }
  c.name = m.str_or("name", "");
  if (c.name.empty() && c.ep > 1)
    c.name = (c.layout.size() > 1 ? std::to_string(c.layout.size()) + "x" : "") + "EP=" + std::to_string(c.ep) +
             (c.ep > c.tp ? " (attention DP=" + std::to_string(c.ep / c.tp) + (c.tp > 1 ? "xTP=" + std::to_string(c.tp) : "") + ")" : " (TP=" + std::to_string(c.tp) + ")");
  if (c.name.empty())
    c.name = (c.layout.size() > 1 ? std::to_string(c.layout.size()) + "xTP=" : "TP=") + std::to_string(c.tp) +
             (c.pp > 1 ? "xPP=" + std::to_string(c.pp) : "");
  return c;
}

}  // namespace


Scenario load_scenario(const std::string& path) {
  YamlMap m(path, load_yaml_file(path), "a scenario");
  m.check_keys({"name", "description", "platform", "model", "calibration", "dtype", "kv_cache_dtype", "seed", "configs", "workload",
                "scheduler", "engine", "collectives", "hardware", "objective", "slo", "sweep", "search", "what_would_change"});
  Scenario s;
  s.file = path;
  s.name = m.str_or("name", std::filesystem::path(path).stem().string());
  s.description = m.str_or("description", "");
  s.platform_path = existing_file(m, "platform", "platform file");
  s.model_path = existing_file(m, "model", "model card");
  if (m.has("calibration")) s.calibration_path = existing_file(m, "calibration", "calibration file");
  s.dtype = m.str_or("dtype", "");
  s.kv_cache_dtype = m.str_or("kv_cache_dtype", "");
  for (auto [key, bytes] : {std::pair{"dtype", &dtype_bytes}, std::pair{"kv_cache_dtype", &kv_cache_dtype_bytes}}) {
    if (!m.has(key)) continue;
    try {
      bytes(m.str(key));
    } catch (const ValueError& e) {
      m.fail(m.node(key), e.what());
    }
  }
  const long seed = m.integer_or("seed", 1);
  if (seed < 0) m.fail(m.node("seed"), "'seed' must be >= 0");
  s.seed = static_cast<std::uint64_t>(seed);
  if (m.has("engine")) s.engine = read_engine(path, m.node("engine"), s.engine);
  if (const EngineProfile* p = find_engine_profile(s.engine.name)) {
    s.scheduler.max_num_seqs = p->max_num_seqs;
    s.scheduler.max_batched_tokens = p->max_batched_tokens;
    s.scheduler.chunked_prefill = p->chunked_prefill;
  }
  if (m.has("scheduler")) s.scheduler = read_scheduler(m.map("scheduler"), s.scheduler);
  s.search = read_configs_auto(m);
  YAML::Node configs = m.node("configs");
  if (!s.search && (!configs.IsSequence() || configs.size() == 0))
    m.fail(configs, "'configs' must be a non-empty list of configurations, or 'auto' (every split of the GPUs)");
  std::set<std::string> names;
  for (std::size_t i = 0; !s.search && i < configs.size(); ++i) {
    const YAML::Node c = configs[i];
    s.configs.push_back(read_config(YamlMap(path, c, "a configuration"), s.engine));
    if (!names.insert(s.configs.back().name).second) m.fail(c, "two configurations are named '" + s.configs.back().name + "'");
  }
  if (m.has("workload")) s.workload = read_workload(m.map("workload"));
  else s.workload.prompt_where = s.workload.output_where = location_of(path, m.raw());
  if (m.has("collectives")) s.collectives = read_collectives(m.map("collectives"));
  if (m.has("hardware")) s.hardware = read_hardware(m.map("hardware"));
  if (m.has("slo")) s.slo = read_slo(m.map("slo"));
  if (m.has("objective")) {
    const std::string o = m.str("objective");
    const std::vector<std::string> all{"latency", "ttft", "tpot", "throughput", "slo"};
    auto it = std::find(all.begin(), all.end(), o);
    if (it == all.end()) m.fail(m.node("objective"), "'objective' must be latency, ttft, tpot, throughput or slo" + did_you_mean(o, all));
    s.objective = static_cast<Objective>(it - all.begin());
    if (s.objective == Objective::slo && !m.has("slo")) m.fail(m.node("objective"), "objective 'slo' needs an 'slo' section");
  }
  if (m.has("sweep")) s.sweep = read_sweep(m.map("sweep"));
  if (m.has("what_would_change")) s.what_would_change = read_what_would_change(m);
  const WorkloadSpec& w = s.workload;
  if (s.sweep && s.sweep->parameter == "workload.rate" && w.requests == 0 && s.sweep->values.back() * w.duration_s > MAX_REQUESTS)
    m.fail(m.map("sweep").raw(), "sweep rate " + count(s.sweep->values.back()) + "/s over 'duration' makes " +
                                     count(std::ceil(s.sweep->values.back() * w.duration_s)) + " requests; tpsim refuses more than 10000000");
  return s;
}

std::string fmt_list(const std::vector<std::string>& v) {
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + v[i];
  return out;
}

}  // namespace tpsim
