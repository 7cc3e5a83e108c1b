#include "launch.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "config/p2p_policy.hpp"
#include "util/error.hpp"
#include "util/nccl_terms.hpp"
#include "util/spelling.hpp"

namespace tpsim {
namespace {

constexpr int FIRST_PORT = 8001;  // replica i listens on FIRST_PORT + i; the router on ROUTER_PORT
constexpr int ROUTER_PORT = 8000;

std::string slug(const std::string& name) {
  std::string out;
  for (char c : name) {
    const bool keep = std::isalnum(static_cast<unsigned char>(c));
    if (keep) out += char(std::tolower(static_cast<unsigned char>(c)));
    else if (!out.empty() && out.back() != '-') out += '-';
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "config" : out;
}

// The engine's own dtype flag value; fp8 weights are a quantization option on top of bf16 activations.
std::string torch_dtype(const ModelCard& m) {
  if (m.dtype == "bf16") return "bfloat16";
  if (m.dtype == "fp16") return "float16";
  if (m.dtype == "fp32") return "float32";
  return "auto";
}

struct Replica {
  std::vector<int> gpus;
  int tp = 1, pp = 1, port = 0;
  int dp = 1;          // attention data-parallel groups (expert parallelism over tp x dp GPUs)
  bool experts = false;  // expert parallelism: the engine's own flags spread the experts
};

// Expert parallelism as each engine spells it: vLLM's EP spans tp x dp (--enable-expert-parallel), each
// data-parallel rank scheduling its own share (--max-num-seqs is per rank); SGLang's --ep-size within
// --tp-size GPUs, --enable-dp-attention for data-parallel attention (its limits are the server's).
std::string expert_flags(const std::string& engine, const Replica& r) {
  if (!r.experts) return "";
  if (engine == "sglang")
    return fmt::format(" --ep-size {}{}", r.tp * r.dp, r.dp > 1 ? fmt::format(" --enable-dp-attention --dp-size {}", r.dp) : "");
  return fmt::format(" --enable-expert-parallel{}", r.dp > 1 ? fmt::format(" --data-parallel-size {}", r.dp) : "");
}

std::string serve_command(const std::string& engine, const ModelCard& m, const Scenario& s, const SchedulerSpec& sch, const Replica& r) {
  const std::string dtype = torch_dtype(m);
  if (engine == "sglang")
    return fmt::format("python3 -m sglang.launch_server --model-path \"$MODEL\" --tp-size {}{} --pp-size {} --max-running-requests {} "
                       "--chunked-prefill-size {} --max-prefill-tokens {} --dtype {}{} --mem-fraction-static {} --page-size {} "
                       "--random-seed {} --host 127.0.0.1 --port {}",
                       r.tp * r.dp, expert_flags(engine, r), r.pp, sch.max_num_seqs, sch.chunked_prefill ? sch.max_batched_tokens : -1, sch.max_batched_tokens, dtype,
                       m.dtype == "fp8" ? " --quantization fp8" : "", sch.gpu_memory_utilization, sch.block_size, s.seed, r.port);
  if (engine == "trtllm")
    return fmt::format("trtllm-serve \"$MODEL\" --backend pytorch --tp_size {} --pp_size {} --max_batch_size {} --max_num_tokens {} "
                       "--kv_cache_free_gpu_memory_fraction {} --host 127.0.0.1 --port {}",
                       r.tp, r.pp, sch.max_num_seqs, sch.max_batched_tokens, sch.gpu_memory_utilization, r.port);
  if (engine == "tgi")
    return fmt::format("text-generation-launcher --model-id \"$MODEL\" --num-shard {} --max-concurrent-requests {} "
                       "--max-batch-prefill-tokens {} --dtype {} --hostname 127.0.0.1 --port {}",
                       r.tp, sch.max_num_seqs, sch.max_batched_tokens, dtype == "auto" ? "bfloat16" : dtype, r.port);
  std::string kv = s.kv_cache_dtype.empty() || s.kv_cache_dtype == "auto" ? "" : " --kv-cache-dtype " + s.kv_cache_dtype;
  return fmt::format("vllm serve \"$MODEL\" --tensor-parallel-size {}{} --pipeline-parallel-size {} --max-num-seqs {} "
                     "--max-num-batched-tokens {} --{}enable-chunked-prefill --dtype {}{}{} --gpu-memory-utilization {} --block-size {} "
                     "--seed {} --host 127.0.0.1 --port {}",
                     r.tp, expert_flags(engine, r), r.pp, sch.max_num_seqs / r.dp, sch.max_batched_tokens / r.dp, sch.chunked_prefill ? "" : "no-", dtype,
                     m.dtype == "fp8" ? " --quantization fp8" : "", kv, sch.gpu_memory_utilization, sch.block_size, s.seed, r.port);
}

// The NCCL settings the simulation assumed, as the engine's processes must see them.
std::vector<std::string> nccl_environment(const Scenario& s, const PinnedP2pLevel& p2p) {
  std::vector<std::string> env;
  const CollectiveSpec& c = s.collectives;
  if (c.p2p_level == "OFF") env.push_back("export NCCL_P2P_DISABLE=1   # the scenario's p2p: off");
  else if (!c.p2p_level.empty()) env.push_back(fmt::format("export NCCL_P2P_LEVEL={}   # the scenario's p2p_level", c.p2p_level));
  else if (!p2p.level.empty()) env.push_back(fmt::format("export NCCL_P2P_LEVEL={}   # {}", p2p.level, p2p.source));
  if (c.algorithm != "auto") env.push_back(fmt::format("export NCCL_ALGO={}   # the scenario's collectives.algorithm", c.algorithm));
  if (c.protocol != "auto") env.push_back(fmt::format("export NCCL_PROTO={}   # the scenario's collectives.protocol", c.protocol));
  if (env.empty()) env.push_back("# NCCL: its defaults (P2P level from the topology, algorithm and protocol by its tuner), as simulated");
  return env;
}

std::string router_command(const std::string& engine, const std::vector<Replica>& replicas, const std::string& policy) {
  std::vector<std::string> urls;
  for (const auto& r : replicas) urls.push_back(fmt::format("http://127.0.0.1:{}", r.port));
  // tpsim's least_outstanding and least_kv have no exact peer: power of two choices is the nearest load-aware policy.
  const std::string p = policy == "round_robin" ? "round_robin" : "power_of_two";
  if (engine == "sglang")
    return fmt::format("python3 -m sglang_router.launch_router --worker-urls {} --policy {} --host 127.0.0.1 --port {}", fmt::join(urls, " "),
                       p, ROUTER_PORT);
  return fmt::format("vllm-router --worker-urls {} --policy {} --host 127.0.0.1 --port {}", fmt::join(urls, " "), p, ROUTER_PORT);
}

std::vector<Replica> replicas_of(const ConfigResult& c) {
  std::vector<Replica> out;
  const int dp = std::max(1, c.attention_dp);
  for (std::size_t i = 0; i < c.layout.size(); ++i)
    out.push_back({c.layout[i], int(c.layout[i].size()) / c.pp / dp, c.pp, FIRST_PORT + int(i), dp, c.ep > 1});
  return out;
}

// `text` as one shell word in single quotes (each ' written '\'').
std::string single_quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Why the serve script cannot start this configuration as simulated, or "" when it can: what an engine
// or these one-host scripts do not express (a script that served something else would be measured as it).
std::string cannot_serve(const ConfigResult& c, const std::string& engine, const std::map<int, int>& node_of_gpu) {
  if (c.disaggregation)
    return "tpsim --launch does not write disaggregated (xPyD) serving: prefill and decode instances joined by a KV connector "
           "and its proxy; serving these GPUs as co-located replicas would measure another system";
  if (c.ep > 1 && (engine == "trtllm" || engine == "tgi"))
    return fmt::format("tpsim --launch writes expert parallelism for vllm and sglang, not {}", engine);
  for (const auto& replica : c.layout) {
    std::set<int> nodes;
    for (int g : replica) nodes.insert(node_of_gpu.count(g) ? node_of_gpu.at(g) : 0);
    if (nodes.size() > 1)
      return fmt::format("a replica spans {} nodes (GPUs {}): these scripts start processes on one host; a multi-node engine launch "
                         "(vLLM over Ray, SGLang's --nnodes) is not written",
                         nodes.size(), fmt::join(replica, ","));
  }
  return "";
}

std::string header(const Scenario& s, const ConfigResult& c, const std::string& what) {
  return fmt::format("#!/usr/bin/env bash\n# {}: {} of \"{}\" ({} replica(s) on {}), written by tpsim --launch.\n", what, c.name, s.name,
                     c.layout.size(), s.platform_path);
}

std::string serve_script(const Scenario& s, const ModelCard& m, const ConfigResult& c, const std::string& engine,
                         const PinnedP2pLevel& p2p, const std::map<int, int>& node_of_gpu) {
  const SchedulerSpec& sch = c.scheduler;
  const std::vector<Replica> replicas = replicas_of(c);
  std::string out = header(s, c, "Serve");
  if (const std::string why = cannot_serve(c, engine, node_of_gpu); !why.empty()) return out + "echo " + single_quoted(why) + " >&2\nexit 1\n";
  out += "# GPU indices are physical, as nvidia-smi numbers them (CUDA_DEVICE_ORDER=PCI_BUS_ID makes CUDA agree).\n"
         "# A container renumbers its GPUs from 0: start it with the physical ones (docker run --gpus '\"device=0,1\"')\n"
         "# and set CUDA_VISIBLE_DEVICES=0,1 inside it.\n";
  if (!sch.chunked_prefill && engine == "vllm")
    out += "# tpsim simulated prefill-first scheduling (chunked_prefill: false); vLLM's V1 engine chunks prefills regardless.\n";
  out += "set -euo pipefail\n";
  out += fmt::format("MODEL=${{MODEL:-{}}}\n", m.hf_id.empty() ? m.name : m.hf_id);
  if (m.hf_id.empty()) out += "# The model card has no hf_id: set MODEL to the model's Hugging Face repository or local path.\n";
  out += "LOGS=${LOGS:-logs}\nmkdir -p \"$LOGS\"\nexport CUDA_DEVICE_ORDER=PCI_BUS_ID\n";
  for (const auto& line : nccl_environment(s, p2p)) out += line + "\n";
  out += "trap 'kill $(jobs -p) 2>/dev/null || true' EXIT INT TERM\n";
  for (std::size_t i = 0; i < replicas.size(); ++i) {
    const Replica& r = replicas[i];
    if (engine == "tgi" && r.pp > 1) {
      out += "echo 'TGI has no pipeline parallelism: this configuration (PP>1) cannot run on it' >&2; exit 1\n";
      break;
    }
    out += fmt::format("CUDA_VISIBLE_DEVICES={} {} > \"$LOGS/replica{}.log\" 2>&1 &\n", fmt::join(r.gpus, ","),
                       serve_command(engine, m, s, sch, r), i);
  }
  if (replicas.size() > 1) {
    out += fmt::format("# Router across the replicas (tpsim simulated '{}'): pip install {}\n", sch.router,
                       engine == "sglang" ? "sglang-router" : "vllm-router");
    out += router_command(engine, replicas, sch.router) + " > \"$LOGS/router.log\" 2>&1 &\n";
  }
  out += fmt::format("echo \"serving on http://127.0.0.1:{}; logs in $LOGS; Ctrl-C stops every process\"\nwait\n",
                     replicas.size() > 1 ? ROUTER_PORT : FIRST_PORT);
  return out;
}

std::string bench_script(const Scenario& s, const ModelCard& m, const ConfigResult& c, const std::string& engine) {
  const WorkloadSpec& w = s.workload;
  std::string out = header(s, c, "Benchmark");
  out += "# Replays the scenario's workload against the served configuration, to check tpsim's prediction on the box.\n";
  if (c.requests_completed > 0)
    out += fmt::format("# tpsim predicts: TTFT p50 {:.1f} ms (p99 {:.1f}), TPOT p50 {:.2f} ms (p99 {:.2f}), e2e p50 {:.1f} ms, "
                       "{:.1f} output tokens/s in all.\n",
                       c.ttft_s.p50 * 1e3, c.ttft_s.p99 * 1e3, c.tpot_s.p50 * 1e3, c.tpot_s.p99 * 1e3, c.e2e_s.p50 * 1e3, c.throughput_tok_s);
  double in = w.prompt.value, outlen = w.output.value, ratio = 0;
  if (w.prompt.dist == LengthDist::uniform) in = (w.prompt.value + w.prompt.high) / 2, ratio = (w.prompt.high - w.prompt.value) / (w.prompt.high + w.prompt.value);
  if (w.output.dist == LengthDist::uniform) outlen = (w.output.value + w.output.high) / 2;
  long prompts = w.requests > 0 ? w.requests : long(std::ceil(w.rate_per_s * w.duration_s));
  std::string rate = fmt::format("--request-rate {:g}", w.rate_per_s);
  if (w.arrivals == ArrivalKind::closed) {
    prompts = long(w.batch) * long(c.layout.size());
    rate = fmt::format("--request-rate inf --max-concurrency {}", prompts);
  } else if (w.arrivals == ArrivalKind::gamma) {
    rate += fmt::format(" --burstiness {:g}", 1 / w.burstiness);  // vLLM's gamma shape; tpsim's burstiness is the CV squared
  } else if (w.arrivals == ArrivalKind::constant) {
    rate += " --burstiness 1000";
    out += "# Constant arrivals: vLLM's bench draws gamma gaps; burstiness 1000 makes them nearly constant.\n";
  } else if (w.arrivals == ArrivalKind::trace && !c.records.empty()) {
    double p = 0, o = 0;
    for (const auto& q : c.records) p += double(q.prompt_tokens), o += double(q.output_tokens);
    in = p / double(c.records.size()), outlen = o / double(c.records.size()), prompts = long(c.records.size());
    rate = fmt::format("--request-rate {:.4g}", c.offered_rate_req_s);
    out += "# The trace's own timing and lengths are not replayed: its mean lengths at its mean rate.\n";
  }
  if (w.prompt.dist == LengthDist::lognormal || w.output.dist == LengthDist::lognormal)
    out += "# Lognormal lengths: replayed at their mean (vLLM's random dataset draws uniform lengths).\n";
  out += fmt::format("set -euo pipefail\nMODEL=${{MODEL:-{}}}\nURL=${{URL:-http://127.0.0.1:{}}}\n", m.hf_id.empty() ? m.name : m.hf_id,
                     c.layout.size() > 1 ? ROUTER_PORT : FIRST_PORT);
  out += fmt::format("vllm bench serve --backend {} --model \"$MODEL\" --base-url \"$URL\" --endpoint /v1/completions "
                     "--dataset-name random --random-input-len {} --random-output-len {} --random-range-ratio {:g} --num-prompts {} {} "
                     "--ignore-eos --seed {} --percentile-metrics ttft,tpot,itl,e2el --metric-percentiles 50,90,99 "
                     "--save-result --result-dir \"${{RESULTS:-results}}\"\n",
                     engine == "vllm" ? "vllm" : engine == "sglang" ? "sglang" : "openai", std::lround(in), std::lround(outlen), ratio,
                     prompts, rate, s.seed);
  return out;
}

const ConfigResult& named(const ScenarioResult& r, const std::string& name) {
  std::vector<std::string> names;
  for (const auto& c : r.configs) {
    if (c.name == name) {
      if (!c.memory.fits) throw InputError({"--launch-config"}, fmt::format("'{}' does not fit: {}", name, c.memory.why));
      return c;
    }
    names.push_back(c.name);
  }
  throw InputError({"--launch-config"}, fmt::format("no configuration named '{}'{}", name, did_you_mean(name, names)));
}

}  // namespace

std::string scenario_engine_name(const Scenario& s) {
  return s.engine.name == "nccl" ? "" : s.engine.name;  // nccl: the baseline, no engine of its own (vLLM then)
}

const std::vector<std::string>& launch_engines() {
  static const std::vector<std::string> engines{"vllm", "sglang", "trtllm", "tgi"};
  return engines;
}

PinnedP2pLevel pinned_p2p_level(const Scenario& s, const std::string& platform_p2p_level, const std::string& cpu_vendor) {
  if (!platform_p2p_level.empty()) return {platform_p2p_level, "the platform's p2p_level"};
  const std::string& release = s.collectives.nccl_version;
  if (!nccl_before(release, 2, 23)) return {};
  return {nccl_default_p2p_level(cpu_vendor, 2, release),
          fmt::format("NCCL {}'s default on this platform's CPUs (collectives.nccl_version), as simulated; 2.23 and later choose "
                      "by GPU count", release)};
}

std::vector<std::pair<std::string, std::string>> launch_files(const Scenario& s, const ModelCard& m, const ScenarioResult& r,
                                                              const std::vector<std::string>& extra, const std::string& engine_given,
                                                              const PinnedP2pLevel& p2p, const std::map<int, int>& node_of_gpu) {
  const std::string engine = engine_given.empty() || engine_given == "nccl" ? "vllm" : engine_given;
  const auto& known = launch_engines();
  if (std::find(known.begin(), known.end(), engine) == known.end())
    throw InputError({s.file}, fmt::format("--launch cannot write commands for engine '{}' (it writes for {})", engine, fmt::join(known, ", ")));
  if (r.recommendation.empty()) throw InputError({s.file}, "--launch: no configuration fits, so there is nothing to launch");
  std::vector<std::string> names{r.recommendation};
  for (const auto& n : extra)
    if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  std::vector<std::pair<std::string, std::string>> files;
  std::string readme = fmt::format("# Launch files for \"{}\"\n\nWritten by tpsim --launch for {} on `{}` ({}{}).\n\n", s.name,
                                   m.hf_id.empty() ? m.name : m.hf_id, s.platform_path, engine,
                                   engine_given.empty() ? ": no engine named in the scenario, vLLM assumed" : "");
  for (std::size_t i = 0; i < names.size(); ++i) {
    const ConfigResult& c = named(r, names[i]);
    files.emplace_back("serve-" + slug(c.name) + ".sh", serve_script(s, m, c, engine, p2p, node_of_gpu));
    files.emplace_back("bench-" + slug(c.name) + ".sh", bench_script(s, m, c, engine));
    const std::string why = cannot_serve(c, engine, node_of_gpu);
    readme += fmt::format("- `serve-{0}.sh`, `bench-{0}.sh`: {1}{2}, GPUs {3}{4}\n", slug(c.name), c.name, i == 0 ? " (the recommendation)" : "",
                          fmt::join(c.layout, " "), why.empty() ? "" : "; the serve script only says why it cannot start it: " + why);
  }
  readme += "\nRun `bash serve-X.sh` (Ctrl-C stops it), then `bash bench-X.sh` in another shell; the bench script's first lines\n"
            "carry tpsim's prediction. GPU indices are physical (nvidia-smi's); a container renumbers them from 0.\n";
  files.emplace_back("README.md", readme);
  return files;
}

}  // namespace tpsim
