// Engine tests: each test case runs in its own process (one SimGrid Engine per process).
#include <doctest/doctest.h>

#include <algorithm>
#include <fmt/format.h>

#include "config/gpu_catalog.hpp"
#include "config/model_card.hpp"
#include "config/scenario.hpp"
#include "engine/runner_parts.hpp"
#include "engine/scenario_eval.hpp"
#include "engine/scenario_runner.hpp"
#include "engine/sys_path.hpp"
#include "engine/workload_grounding.hpp"
#include "model/host_staging.hpp"
#include "engine/what_would_change.hpp"
#include "report/verdict.hpp"
#include "report/writers.hpp"
#include "model/trace.hpp"
#include "workloads/requests.hpp"
#include "workloads/step_ops.hpp"

using namespace tpsim;

namespace {
const std::string ROOT = TPSIM_SOURCE_DIR;

const ConfigResult& config(const ScenarioResult& r, const std::string& name) {
  for (const auto& c : r.configs)
    if (c.name == name) return c;
  FAIL("no config " << name);
  return r.configs.front();
}
}  // namespace

TEST_CASE("closed form and SimGrid flows give the same times where no link is shared") {
  const Scenario s = load_scenario(ROOT + "/scenarios/4gpu_nv12_sys.yaml");
  RunOptions closed, flows;
  flows.force_flows = true;
  const ScenarioResult a = run_scenario(s, closed), b = run_scenario(s, flows);
  // Replicas on their own NVLink pairs, TP=4 alone and TP=1 share nothing with another replica.
  for (const char* name : {"2xTP=2 NVLink pairs", "TP=4", "4xTP=1"}) {
    CAPTURE(name);
    if (std::string(name) != "4xTP=1") CHECK(config(b, name).flow_collectives > 0);
    // SimGrid moves whole bytes (a flow's bytes are rounded): each rounded byte costs 1 / rate, so
    // TP=4's decode all-reduces staged across the socket (1.44 GB/s, host_staging.cpp: 0.7 ns a byte,
    // some 10^5 flows over the run) differ by ~6e-8 of the e2e time; the rest agree to 1e-8.
    CHECK(config(a, name).ttft_s.p50 == doctest::Approx(config(b, name).ttft_s.p50).scale(0).epsilon(1e-8));
    CHECK(config(a, name).e2e_s.p50 == doctest::Approx(config(b, name).e2e_s.p50).scale(0).epsilon(1e-7));
  }
}

TEST_CASE("two replicas sharing switch uplinks are slower in prefill than the same replicas placed apart") {
  const ScenarioResult r = run_scenario(load_scenario(ROOT + "/tests/data/shared_uplinks.yaml"), {});
  const double apart = config(r, "apart").ttft_s.p50, shared = config(r, "shared").ttft_s.p50, alone = config(r, "alone").ttft_s.p50;
  CHECK(config(r, "shared").shared_links);
  // Apart, each replica runs as if alone; sharing, each uplink direction carries two flows and the
  // prefill all-reduces' bandwidth part takes twice as long.
  CHECK(apart == doctest::Approx(alone).scale(0).epsilon(1e-9));
  const double collectives = config(r, "alone").prefill.collectives;
  CHECK(shared > apart * 1.1);
  CHECK(shared - apart == doctest::Approx(collectives).scale(0).epsilon(0.1));
}

TEST_CASE("same scenario twice gives byte-identical JSON") {
  const Scenario s = load_scenario(ROOT + "/scenarios/4gpu_nv12_sys.yaml");
  CHECK(render_json(run_scenario(s, {}), "test") == render_json(run_scenario(s, {}), "test"));
}

TEST_CASE("light load: TTFT and TPOT equal the single-request step times") {
  const ScenarioResult r = run_scenario(load_scenario(ROOT + "/tests/data/light_load.yaml"), {});
  const ConfigResult& c = r.configs[0];
  CHECK(c.requests_completed == 5);
  // Alone, TTFT is one prefill of 2048 tokens (the reference prefill); TPOT is a decode step at
  // batch 1, whose context grows from 2048 to 2111 tokens (attention grows by a hair).
  CHECK(c.ttft_s.p50 == doctest::Approx(c.prefill.total()).scale(0).epsilon(1e-9));
  CHECK(c.tpot_s.p50 == doctest::Approx(c.decode_step.total()).scale(0).epsilon(0.01));
  CHECK(c.queue_s.p99 == 0.0);
}

TEST_CASE("light load, a mixed split: each replica runs its own TP (TP=2 + 2xTP=1's TP=1 requests take TP=1's prefill)") {
  const ScenarioResult r = run_scenario(load_scenario(ROOT + "/tests/data/light_load_mixed.yaml"), {});
  const auto named = [&](const std::string& name) -> const ConfigResult& {
    const auto it = std::find_if(r.configs.begin(), r.configs.end(), [&](const ConfigResult& c) { return c.name == name; });
    REQUIRE(it != r.configs.end());
    return *it;
  };
  const ConfigResult& mixed = named("TP=2 + 2xTP=1");
  const ConfigResult& one = named("4xTP=1");
  const ConfigResult& two = named("2xTP=2");
  // Round robin over TP=2, TP=1, TP=1: requests 1, 2 and 4 of 5 run alone on a TP=1 replica, 0 and 3 on the TP=2 one,
  // so the median TTFT is one TP=1 prefill of 2048 tokens and the mean (2 x TP=2's + 3 x TP=1's) / 5 (each replica was
  // timed as a TP=2 shard before, its collectives dropped: faster than either).
  CHECK(mixed.ttft_s.p50 == doctest::Approx(one.prefill.total()).scale(0).epsilon(1e-9));
  CHECK(mixed.ttft_s.mean == doctest::Approx((2 * two.prefill.total() + 3 * one.prefill.total()) / 5).scale(0).epsilon(1e-9));
  CHECK(one.prefill.total() > two.prefill.total());
}

TEST_CASE("the trace shows each GPU's ops and the 2L all-reduce seams of a step") {
  TraceLog trace;
  RunOptions opt;
  opt.trace = &trace;
  const ScenarioResult r = run_scenario(load_scenario(ROOT + "/tests/data/trace_small.yaml"), opt);
  int all_reduces_gpu0 = 0, gemms_gpu1 = 0, requests = 0;
  for (const auto& e : trace.events) {
    all_reduces_gpu0 += e.lane == "GPU 0" && e.name.rfind("all_reduce", 0) == 0;
    gemms_gpu1 += e.lane == "GPU 1" && e.name == "qkv_proj";
    requests += e.lane.rfind("requests", 0) == 0;
    CHECK(e.duration_s >= 0);
  }
  // 2 requests x 8 steps (1 prefill + 7 decode), each with 2L = 64 all-reduces and L = 32 QKV GEMMs.
  CHECK_FALSE(trace.truncated);
  CHECK(all_reduces_gpu0 == 2 * 8 * 64);
  CHECK(gemms_gpu1 == 2 * 8 * 32);
  CHECK(requests == 2);
  CHECK(r.configs[0].requests_completed == 2);
}

TEST_CASE("layout: auto puts two TP=2 groups on the NVLink pairs of the design exercise's box") {
  const ScenarioResult box = run_scenario(load_scenario(ROOT + "/tests/data/auto_layout.yaml"), {});
  CHECK(box.configs[0].layout == std::vector<std::vector<int>>{{0, 1}, {2, 3}});
}

TEST_CASE("layout: auto avoids the lesson's broken NVLink pair") {
  const ScenarioResult lesson = run_scenario(load_scenario(ROOT + "/scenarios/h100_nvlink_down.yaml"), {});
  CHECK(config(lesson, "TP=2 placed by tpsim").layout == std::vector<std::vector<int>>{{2, 3}});
}

TEST_CASE("below saturation: throughput equals the arrival rate and Little's law holds") {
  const ScenarioResult r = run_scenario(load_scenario(ROOT + "/tests/data/moderate_load.yaml"), {});
  const ConfigResult& c = r.configs[0];
  CHECK(c.requests_completed + c.requests_dropped == 600);
  CHECK_FALSE(c.saturated);
  // Little: L (time average in system, swept from arrival/completion events) = lambda x W, with
  // lambda the measured arrival rate and W the mean end-to-end time.
  CHECK(c.mean_in_system == doctest::Approx(c.offered_rate_req_s * c.e2e_s.mean).scale(0).epsilon(0.02));
  // Completions keep up: 600 requests over the arrival window plus one typical request time.
  CHECK(c.throughput_req_s == doctest::Approx(c.offered_rate_req_s).scale(0).epsilon(0.05));
}

TEST_CASE("KV-cache pressure: one GPU per replica preempts, TP=2 with twice the memory does not") {
  ScenarioResult r = run_scenario(load_scenario(ROOT + "/scenarios/kv_pressure_qwen32b.yaml"), {});
  explain(r);
  CHECK(config(r, "2xTP=1").preemptions > 0);
  CHECK(config(r, "TP=2 NVLink pair").preemptions == 0);
  // Weights per GPU: 65.5 GB at TP=1, half of the sharded part at TP=2: far more KV blocks.
  CHECK(config(r, "TP=2 NVLink pair").memory.kv_blocks > 5 * config(r, "2xTP=1").memory.kv_blocks);
  CHECK(r.reason.find("preempted") != std::string::npos);
}

TEST_CASE("a throughput objective under a load every configuration keeps up with says it compares the load, not capacity") {
  Scenario s = load_scenario(ROOT + "/tests/data/moderate_load.yaml");  // Poisson at 2 req/s, well below capacity
  s.objective = Objective::throughput;
  ConfigSpec singles = s.configs.at(0);
  singles.name = "4xTP=1", singles.tp = 1, singles.layout = {{0}, {1}, {2}, {3}};
  s.configs.push_back(singles);
  ScenarioResult r = run_scenario(s, {});
  explain(r);
  REQUIRE(r.configs.size() == 2);
  for (const auto& c : r.configs) CHECK_FALSE(c.saturated);
  CHECK(r.reason.find(". Every configuration that fits keeps up with the offered ") != std::string::npos);
  CHECK(r.reason.find(" requests/s, so each serves the load: their throughputs differ by how fast they drain the last requests, "
                      "not by capacity (a higher rate, or a closed batch, compares capacity)") != std::string::npos);
  // A closed batch measures capacity: nothing to say.
  ScenarioResult closed = run_scenario(load_scenario(ROOT + "/tests/data/closed_batch.yaml"), {});
  closed.objective = "throughput";
  explain(closed);
  CHECK(closed.reason.find("keeps up with the offered") == std::string::npos);
}

TEST_CASE("chunked prefill keeps decodes flowing: lower TPOT p99 than prefill-first under load") {
  Scenario s = load_scenario(ROOT + "/tests/data/moderate_load.yaml");
  s.workload.prompt = {LengthDist::fixed, 6144};
  s.workload.rate_per_s = 4;
  s.workload.requests = 200;
  const ScenarioResult first = run_scenario(s, {});
  s.scheduler.chunked_prefill = true;
  s.scheduler.max_batched_tokens = 2048;
  const ScenarioResult chunked = run_scenario(s, {});
  // Prefill-first stalls every running decode for a whole 6K-token prefill; chunks of 2048 tokens
  // share each step with the decodes, so the worst gap between tokens shrinks.
  CHECK(chunked.configs[0].tpot_s.p99 < first.configs[0].tpot_s.p99);
  CHECK(chunked.configs[0].requests_completed == 200);
}

TEST_CASE("a closed batch arrives together: its first step prefills all B prompts, so every TTFT is equal") {
  const ScenarioResult r = run_scenario(load_scenario(ROOT + "/tests/data/closed_batch.yaml"), {});
  const ConfigResult& c = r.configs[0];
  REQUIRE(c.requests_completed == 4);
  // B = 4 prompts of T_in = 512 tokens fit the 8192-token budget: TTFT = one prefill step of
  // B x T_in = 2048 tokens (the reference prefill) for every request, not 1 x 512 and then 3 x 512.
  for (const auto& rec : c.records) {
    CAPTURE(rec.id);
    CHECK(rec.first_token_s - rec.arrival_s == doctest::Approx(c.prefill.total()).scale(0).epsilon(1e-9));
    // Then 15 decode steps at batch 4 together: all finish at the same instant.
    CHECK(rec.finish_s == doctest::Approx(c.records.front().finish_s).scale(0).epsilon(1e-12));
  }
}

TEST_CASE("a closed batch above max_num_seqs runs at once, and the run says it raised the cap") {
  Scenario s = load_scenario(ROOT + "/tests/data/closed_batch.yaml");
  s.scheduler.max_num_seqs = 2;  // below the batch of 4
  const ScenarioResult r = run_scenario(s, {});
  const ConfigResult& c = r.configs[0];
  CHECK(c.scheduler.max_num_seqs == 4);
  CHECK(std::count(c.notes.begin(), c.notes.end(),
                   "the closed batch of 4 sequences runs at once: max_num_seqs 2 raised to 4 (an engine capped at 2 would run 2 at a "
                   "time and queue the rest; use arrivals with a rate for that)") == 1);
  // At the default cap (256) nothing is raised, nor said.
  const ScenarioResult d = run_scenario(load_scenario(ROOT + "/tests/data/closed_batch.yaml"), {});
  const ConfigResult& plain = d.configs[0];
  CHECK(std::none_of(plain.notes.begin(), plain.notes.end(), [](const std::string& n) { return n.find("closed batch") != std::string::npos; }));
}

TEST_CASE("a closed batch is per replica, and a run with several replicas says what each configuration serves") {
  Scenario s = load_scenario(ROOT + "/tests/data/closed_batch.yaml");
  const auto said = [](const ScenarioResult& r) {
    return std::count_if(r.grounding.begin(), r.grounding.end(), [](const std::string& g) { return g.rfind("workload: ", 0) == 0; });
  };
  // One replica: the batch is the configuration's, nothing to say.
  CHECK(said(run_scenario(s, {})) == 0);
  ConfigSpec pair = s.configs.front();
  pair.name = "2xTP=1", pair.tp = 1, pair.layout = {{0}, {1}};
  s.configs.push_back(pair);
  const ScenarioResult r = run_scenario(s, {});
  // 2 replicas x B = 4 sequences each: 8 requests run, as the line says.
  CHECK(r.configs.back().requests_completed == 8);
  CHECK(std::count(r.grounding.begin(), r.grounding.end(), "workload: a closed batch of 4 sequences per replica, started together (2xTP=1 serves 8)") == 1);
}

TEST_CASE("8-bit weights on a GPU without FP8 tensor cores are said to run weight-only") {
  Scenario s = load_scenario(ROOT + "/tests/data/closed_batch.yaml");  // A100-SXM4-80GB: no fp8 peak in the GPU table
  const auto said = [](const ScenarioResult& r) {
    const auto& n = r.configs.front().notes;
    return std::count_if(n.begin(), n.end(), [](const std::string& x) { return x.rfind("8-bit weights on A100-SXM4-80GB", 0) == 0; });
  };
  CHECK(said(run_scenario(s, {})) == 0);  // bf16: nothing to say
  s.dtype = "fp8";
  const ScenarioResult r = run_scenario(s, {});
  REQUIRE(said(r) == 1);
  // A100's dense bf16 peak, 312 TFLOPS, is the rate its GEMMs run at.
  CHECK(std::count(r.configs.front().notes.begin(), r.configs.front().notes.end(),
                   "8-bit weights on A100-SXM4-80GB, which has no FP8 tensor cores: read as 1 byte each and multiplied at bf16's peak "
                   "(312 TFLOPS), as weight-only kernels do (vLLM's FP8 Marlin on Ampere); int8 kernels on Ampere's INT8 tensor cores "
                   "(W8A8) would multiply faster") == 1);
}

TEST_CASE("a trace's reference step takes its mean lengths, and the run says so") {
  // Prompts 1000, 3000, 2000 tokens: mean (1000 + 3000 + 2000) / 3 = 2000; outputs 10, 30, 20: mean 20.
  const ScenarioResult r = run_scenario(load_scenario(ROOT + "/tests/data/trace_reference.yaml"), {});
  CHECK(r.configs.front().prompt_tokens == 2000);
  CHECK(r.configs.front().requests_completed == 3);
  CHECK(std::count(r.grounding.begin(), r.grounding.end(),
                   "workload: a trace of 3 requests, prompts 1000-3000 tokens: the reference step (prefill and decode columns, "
                   "breakdown) and the memory check take its mean prompt, 2000 tokens, and mean output, 20 tokens") == 1);
}

TEST_CASE("a batch whose KV cache misses the room by less than 0.05 GB says so in two decimals") {
  Scenario s = load_scenario(ROOT + "/tests/data/closed_batch.yaml");
  const ModelCard m = load_model_card(ROOT + "/workloads/models/llama-3.1-8b.yaml");
  const GpuSpec& gpu = *find_gpu("A100-SXM4-80GB");
  const ConfigSpec& c = s.configs.front();
  s.workload.batch = 64;
  const MemoryFit base = memory_fit(m, c, gpu, s);
  // Utilisation that leaves the KV cache 4 MB short: capacity = weights + activations + KV - 4 MB.
  s.scheduler.gpu_memory_utilization = (base.weights_B + base.activations_B + base.kv_B - 4e6) / gpu.memory_B;
  const MemoryFit f = memory_fit(m, c, gpu, s);
  REQUIRE_FALSE(f.fits);
  const double room = f.capacity_B - f.weights_B - f.activations_B;
  CHECK(f.why == fmt::format("the batch's KV cache needs {:.2f} GB per GPU, {:.2f} GB is left after the weights", f.kv_B / 1e9, room / 1e9));
}

TEST_CASE("expert parallelism with attention DP: memory and steps at its attention TP, each GPU holding its own sequences' KV") {
  const ScenarioResult r = run_scenario(load_scenario(ROOT + "/scenarios/qwen3_30b_a3b_4gpu_nv12_sys.yaml"), {});
  const ModelCard m = load_model_card(ROOT + "/workloads/models/qwen3-30b-a3b.yaml");
  const auto named = [&](const std::string& name) -> const ConfigResult& {
    const auto it = std::find_if(r.configs.begin(), r.configs.end(), [&](const ConfigResult& c) { return c.name == name; });
    REQUIRE(it != r.configs.end());
    return *it;
  };
  const ConfigResult& ep = named("EP4 attention DP4");
  // Attention whole on each of the 4 GPUs (TP=1), the experts a quarter each: weight_bytes_per_rank(m, 1, 1, 4), above
  // TP=4's; it was read as TP=4's (the replica's 4 GPUs taken for its TP).
  CHECK(ep.memory.weights_B == doctest::Approx(weight_bytes_per_rank(m, 1, 1, 4)).scale(0).epsilon(1e-12));
  CHECK(ep.memory.weights_B > named("TP=4").memory.weights_B);
  // 64 sequences over 4 attention groups: 16 a GPU, every KV head of 1024 + 256 tokens each.
  CHECK(ep.memory.kv_B == doctest::Approx(16 * kv_footprint_rank(m, 1, 1).sequence_B(1280)).scale(0).epsilon(1e-12));
  // The run steps at the same shapes: the batch decodes at its closed-form step (50.02 ms; at TP=4's shapes it ran 10% slower).
  CHECK(ep.tpot_s.p50 == doctest::Approx(ep.decode_step.total()).scale(0).epsilon(0.01));
}

TEST_CASE("a configuration with expert parallelism carries its all-to-all's notes; one without does not") {
  const ScenarioResult r = run_scenario(load_scenario(ROOT + "/scenarios/qwen3_30b_a3b_4gpu_nv12_sys.yaml"), {});
  const auto all_to_all_notes = [](const ConfigResult& c) {
    return std::count_if(c.notes.begin(), c.notes.end(),
                         [](const std::string& n) { return n.rfind("all-to-all within a node: two held-out alltoall_perf sweeps", 0) == 0; });
  };
  CHECK(all_to_all_notes(config(r, "2xEP2 NVLink pairs")) == 1);  // once, though two all-to-alls run a step
  CHECK(all_to_all_notes(config(r, "TP=4")) == 0);
  // The held-out sweeps ran on NVSwitch: an all-to-all that crosses the socket link is not said to be like them.
  CHECK(all_to_all_notes(config(r, "EP4 attention DP4")) == 0);
}

TEST_CASE("an engine's held-out TP check is said with every configuration of TP > 1, and only there") {
  // The NeMo H100 scenario runs TensorRT-LLM at TP 1/2/4/8; run as vLLM, the Argonne finding shows instead.
  Scenario s = load_scenario(ROOT + "/scenarios/nemo_llama2_7b_h100.yaml");
  s.sweep.reset();
  auto checks = [](const ConfigResult& c, const std::string& engine) {
    return std::count_if(c.notes.begin(), c.notes.end(), [&](const std::string& n) {
      return n.rfind(fmt::format("engine {} at TP={}: held out", engine, c.tp), 0) == 0;
    });
  };
  const ScenarioResult trt = run_scenario(s, {});
  CHECK(checks(config(trt, "TP=1"), "trtllm") == 0);
  CHECK(checks(config(trt, "TP=2"), "trtllm") == 1);
  CHECK(checks(config(trt, "TP=8"), "trtllm") == 1);
  s.engine.name = "vllm";
  const ScenarioResult vllm = run_scenario(s, {});
  CHECK(checks(config(vllm, "TP=1"), "vllm") == 0);
  const ConfigResult& tp4 = config(vllm, "TP=4");
  REQUIRE(checks(tp4, "vllm") == 1);
  CHECK(std::any_of(tp4.notes.begin(), tp4.notes.end(),
                    [](const std::string& n) { return n.find("read TP>1 as optimistic") != std::string::npos; }));
  // Plain NCCL (the profile the FasterTransformer check runs as) carries that set's finding.
  s.engine.name = "nccl";
  const ScenarioResult nccl = run_scenario(s, {});
  CHECK(checks(config(nccl, "TP=1"), "nccl") == 0);
  CHECK(checks(config(nccl, "TP=8"), "nccl") == 1);
}

TEST_CASE("a closed batch's activations are those of the largest forward pass the scheduler runs") {
  Scenario s = load_scenario(ROOT + "/scenarios/argonne_llama3_8b_a100.yaml");
  const ModelCard m = load_model_card(ROOT + "/workloads/models/llama-3.1-8b.yaml");
  const GpuSpec& a100_40 = *find_gpu("A100-SXM4-40GB");
  ConfigSpec tp1;
  s.workload.batch = 32, s.workload.prompt.value = 2048, s.workload.output.value = 2048;
  s.scheduler.max_batched_tokens = 8192, s.scheduler.chunked_prefill = false;
  // Per token 2 B x (2 x 4096 + (32 + 2 x 8) x 128 + 3 x 14336) = 114,688 B; one pass of prompts holds at most
  // max(8192, 2048) = 8192 tokens: 939.5 MB, and the 32 sequences' logits 32 x 128,256 x 4 B = 16.4 MB.
  const MemoryFit f = memory_fit(m, tp1, a100_40, s);
  CHECK(f.activations_B == doctest::Approx(8192.0 * 114688 + 32.0 * 128256 * 4).scale(0).epsilon(1e-12));
  // Their KV cache, 32 x 4096 tokens x 32 layers x 8 KV heads x 128 x 2 (K, V) x 2 B = 17.2 GB, fits beside the
  // 16.06 GB of weights in 0.9 x 40 GiB; 64 sequences (34.4 GB) do not.
  CHECK(f.fits);
  s.workload.batch = 64;
  CHECK_FALSE(memory_fit(m, tp1, a100_40, s).fits);
  // A prompt longer than the budget runs whole unless the engine chunks it: 16,384 tokens, else 8192.
  s.workload.batch = 2, s.workload.prompt.value = 16384;
  CHECK(memory_fit(m, tp1, a100_40, s).activations_B == doctest::Approx(16384.0 * 114688 + 2.0 * 128256 * 4).scale(0).epsilon(1e-12));
  s.scheduler.chunked_prefill = true;
  CHECK(memory_fit(m, tp1, a100_40, s).activations_B == doctest::Approx(8192.0 * 114688 + 2.0 * 128256 * 4).scale(0).epsilon(1e-12));
}

TEST_CASE("a probe's winner follows the base run's rule: the fewest GPUs within the SLOs, where the search asks for it") {
  // Three splits at a probe's point: 8 GPUs with the best goodput, 3 GPUs within the SLOs, 2 GPUs missing them.
  const auto split = [](const std::string& name, int gpus, double ttft_p99_s, double goodput) {
    ConfigResult c;
    c.name = name, c.requests_completed = 1;
    c.layout.assign(std::size_t(gpus), {0});
    c.ttft_s.p99 = ttft_p99_s, c.slo_attainment = ttft_p99_s <= 1.0 ? 1.0 : 0.5, c.goodput_req_s = goodput;
    return c;
  };
  const std::vector<ConfigResult> at{split("8 GPUs", 8, 0.2, 5.4), split("3 GPUs", 3, 0.8, 4.9), split("2 GPUs", 2, 3.0, 3.1)};
  Scenario s;
  s.objective = Objective::slo;
  s.slo.ttft_p99_s = 1.0;
  CHECK(probe_winner(s, at) == "8 GPUs");  // the objective alone: attainment, then goodput
  s.search = SearchSpec{};
  s.search->fewest_gpus = true;
  CHECK(probe_winner(s, at) == "3 GPUs");  // before, probes took the objective's best: every change "flipped" the winner
  // The verdict says why it won: the fewest GPUs meeting the SLOs, not the best SLO figures (8 GPUs has those).
  ScenarioResult r;
  r.objective = "slo";
  r.configs = at;
  for (auto& c : r.configs) c.memory.fits = true;
  r.recommendation = "3 GPUs";
  r.search = SearchSummary{};
  r.search->fewest_gpus_mode = true, r.search->fewest_gpus_config = "3 GPUs", r.search->fewest_gpus = 3;
  explain(r);
  CHECK(r.reason.rfind("3 GPUs is the fewest GPUs (3) meeting the SLOs (SLO attainment 100.0%, goodput 4.90 req/s) vs 8 GPUs", 0) == 0);
}

TEST_CASE("links.sys_path.bandwidth scales the SYS route as a whole: its value now is the platform itself") {
  // The main job's box: the pairs meet over SYS beyond Intel's P2P level, so a SYS route is host-staged
  // and its pace now is the slower copy through host memory, the default socket copy (1.44 GB/s),
  // below every PCIe (24 GB/s), host-bridge and socket link.
  const Scenario s = load_scenario(ROOT + "/scenarios/4gpu_nv12_sys.yaml");
  const Inputs in = load_inputs(s);
  const auto now = sys_path_bandwidth(s, in);
  REQUIRE(now);
  CHECK(*now == doctest::Approx(default_staging_rates().socket_copy_Bps));
  // At its value now nothing moves (before, every PCIe link was set to 1.44 GB/s: not the platform).
  Scenario same = s;
  apply_swept_value(same, in, "links.sys_path.bandwidth", *now);
  CHECK(same.hardware.sys_path_scale == doctest::Approx(1.0));
  CHECK_FALSE(same.hardware.sys_path_Bps);
  // At twice that, every stage runs twice as fast: the PCIe lanes 2 x 24 GB/s and the copies 2 x theirs.
  Scenario twice = s;
  apply_swept_value(twice, in, "links.sys_path.bandwidth", 2 * *now);
  CHECK(twice.hardware.sys_path_scale == doctest::Approx(2.0));
  CHECK(*sys_path_bandwidth(twice, in) == doctest::Approx(2 * *now));
  const Topology topo(in.platform, twice.hardware, twice.collectives.p2p_level);
  for (std::size_t i = 0; i < in.platform.links.size(); ++i) {
    const LinkDesc& l = in.platform.links[i];
    CHECK(topo.platform().links[i].bandwidth_Bps == doctest::Approx(on_sys_route(l.kind) ? 2 * l.bandwidth_Bps : l.bandwidth_Bps));
  }
  // The copies through host memory follow: an all-reduce across the pairs (GPUs 0 and 2, host-staged
  // across the sockets) runs at twice its bus bandwidth, the socket copy's pace doubled.
  const Topology base_topo(in.platform, s.hardware, s.collectives.p2p_level);
  const CollectiveModel base_cm(base_topo, s.collectives, nullptr), twice_cm(topo, twice.collectives, nullptr);
  const CollectivePlan& a = base_cm.plan(CollectiveOp::all_reduce, 64.0 * (1 << 20), {0, 2});
  const CollectivePlan& b = twice_cm.plan(CollectiveOp::all_reduce, 64.0 * (1 << 20), {0, 2});
  REQUIRE(a.staged);
  CHECK(b.bus_bw_Bps == doctest::Approx(2 * a.bus_bw_Bps));
}

TEST_CASE("TensorRT-LLM's KV cache takes its share of the memory the weights leave, vLLM's a share of the whole GPU") {
  // Llama-3.1-8B on one A100-80GB, batch 64 of the closed-batch scenario, utilisation 0.9:
  //   vllm:   KV room = 0.9 x 80 GB - weights - activations;
  //   trtllm: KV room = 0.9 x (80 GB - weights - activations) (kv_cache_free_gpu_memory_fraction), 0.1 x
  //           (weights + activations) more: TensorRT-LLM 0.9 ran Llama-2-70B fp16 at TP=2, batch 16,
  //           2048 + 128 tokens, where the whole-GPU share refused it (NVIDIA's published 0.9.0 data).
  Scenario s = load_scenario(ROOT + "/tests/data/closed_batch.yaml");
  const ModelCard m = load_model_card(ROOT + "/workloads/models/llama-3.1-8b.yaml");
  const GpuSpec& gpu = *find_gpu("A100-SXM4-80GB");
  s.workload.batch = 64;
  s.engine.name = "vllm";
  const MemoryFit vllm = memory_fit(m, s.configs.front(), gpu, s);
  s.engine.name = "trtllm";
  const MemoryFit trtllm = memory_fit(m, s.configs.front(), gpu, s);
  CHECK(vllm.capacity_B == doctest::Approx(0.9 * gpu.memory_B));
  CHECK(trtllm.capacity_B == doctest::Approx(gpu.memory_B));
  const double taken = vllm.weights_B + vllm.activations_B;
  CHECK(double(trtllm.kv_blocks) / double(vllm.kv_blocks) ==
        doctest::Approx(0.9 * (gpu.memory_B - taken) / (0.9 * gpu.memory_B - taken)).epsilon(1e-3));
  // Short of room, it says whose share it took.
  s.workload.batch = 4096;
  const MemoryFit short_of_room = memory_fit(m, s.configs.front(), gpu, s);
  REQUIRE_FALSE(short_of_room.fits);
  CHECK(short_of_room.why.find("(0.90 of the") != std::string::npos);
  CHECK(short_of_room.why.find("TensorRT-LLM's kv_cache_free_gpu_memory_fraction)") != std::string::npos);
}

TEST_CASE("a closed batch beyond the token budget says how many prefill steps it takes, and the budget of one pass") {
  // 64 prompts of 2048 tokens, budget 8192: whole prompts a step, 8192 / 2048 = 4 a step, 64 / 4 = 16
  // steps; with chunked prefill 64 x 2048 / 8192 = 16 as well; 2 prompts of 2048 fit one 8192-token step.
  Scenario s = load_scenario(ROOT + "/tests/data/closed_batch.yaml");
  s.workload.batch = 64;
  s.workload.prompt = {LengthDist::fixed, 2048};
  s.scheduler.max_batched_tokens = 8192;
  s.scheduler.chunked_prefill = false;
  const auto line = prefill_steps_grounding(s);
  REQUIRE(line);
  CHECK(*line == "workload: a replica's scheduler prefills the closed batch's 64 prompts of 2048 tokens over 16 steps of at most "
                 "8192 tokens (scheduler.max_batched_tokens, whole prompts a step; attention-DP groups each schedule their share); "
                 "a static batch prefilled in one pass needs max_batched_tokens 131072 or more");
  s.workload.prompt = {LengthDist::fixed, 3000};  // 2 whole prompts a step: 32 steps; chunked: ceil(192000 / 8192) = 24
  CHECK(prefill_steps_grounding(s)->find("over 32 steps") != std::string::npos);
  s.scheduler.chunked_prefill = true;
  CHECK(prefill_steps_grounding(s)->find("over 24 steps") != std::string::npos);
  s.workload.batch = 2;
  s.workload.prompt = {LengthDist::fixed, 2048};
  CHECK_FALSE(prefill_steps_grounding(s));
}

TEST_CASE("at a probe, a tie with the base run's winner is no change of winner") {
  // Two splits at 0% SLO attainment and no goodput: equal scores. The first of equals used to "win" and
  // the probe reported a change; the incumbent keeps it. A strictly better one still takes it.
  const auto split = [](const std::string& name, double attainment, double goodput) {
    ConfigResult c;
    c.name = name, c.requests_completed = 1, c.memory.fits = true;
    c.layout.assign(2, {0});
    c.slo_attainment = attainment, c.goodput_req_s = goodput;
    return c;
  };
  Scenario s;
  s.objective = Objective::slo;
  s.slo.ttft_p99_s = 1.0;
  const std::vector<ConfigResult> tied{split("TP=2", 0.0, 0.0), split("2xTP=1", 0.0, 0.0)};
  CHECK(probe_winner(s, tied) == "TP=2");             // no incumbent: the first of equals
  CHECK(probe_winner(s, tied, "2xTP=1") == "2xTP=1");  // the incumbent ties it: no change
  const std::vector<ConfigResult> better{split("TP=2", 0.5, 1.0), split("2xTP=1", 0.0, 0.0)};
  CHECK(probe_winner(s, better, "2xTP=1") == "TP=2");  // strictly better: a change
}

TEST_CASE("requests drawn past the model's context are refused, as an engine refuses them; the rest run") {
  // Prompts uniform on 120,000-180,000 tokens and 64 output tokens against Llama-3.1-8B's 131,072-token
  // context: the draws past 131,008 are refused (the whole run was refused before), counted as dropped,
  // and the note says how many of the 5 drawn.
  Scenario s = load_scenario(ROOT + "/tests/data/light_load.yaml");
  s.workload.prompt = {LengthDist::uniform, 120000, 180000};
  s.what_would_change.enabled = false;
  const std::vector<Request> drawn = generate_requests(s.workload, s.seed, 1);
  const long past = std::count_if(drawn.begin(), drawn.end(), [](const Request& r) { return r.prompt_tokens + r.output_tokens > 131072; });
  REQUIRE(past > 0);
  REQUIRE(past < 5);
  const ScenarioResult result = run_scenario(s, {});
  const ConfigResult& c = result.configs[0];
  CHECK(c.requests_dropped == past);
  CHECK(c.requests_completed == 5 - past);
  CHECK(std::count_if(c.notes.begin(), c.notes.end(), [&](const std::string& n) {
          return n == fmt::format("{} of the 5 requests drawn are longer than the 131072-token context of Llama-3.1-8B "
                                  "(max_position_embeddings): refused, as an engine refuses them, and counted as dropped", past);
        }) == 1);
}

TEST_CASE("a pipeline's all-reduce notes are its stage's: TP=8xPP=2 across 2 nodes all-reduces within a node") {
  // multinode_llama70b.yaml: TP=16 spans both nodes, TP=8xPP=2 puts one stage on each node (its replica lists
  // the stages one after the other), so only TP=16 carries the notes of an all-reduce across 2 nodes.
  const ScenarioResult r = run_scenario(load_scenario(ROOT + "/scenarios/multinode_llama70b.yaml"), {});
  const auto across_nodes = [](const ConfigResult& c) {
    return std::count_if(c.notes.begin(), c.notes.end(), [](const std::string& n) { return n.rfind("across 2 nodes:", 0) == 0; });
  };
  CHECK(across_nodes(config(r, "TP=16 across nodes")) == 1);
  CHECK(across_nodes(config(r, "TP=8xPP=2")) == 0);
  CHECK(across_nodes(config(r, "2xTP=8")) == 0);
}
