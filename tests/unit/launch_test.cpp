// --launch (sim/report/launch.hpp): the serve and bench scripts of a configuration, for every
// engine; each must pass `shellcheck -S error` (shellcheck is in .ci/packages.txt).
#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <regex>

#include "../scratch_dir.hpp"
#include "config/model_card.hpp"
#include "report/launch.hpp"

using namespace tpsim;

namespace {
const std::string ROOT = TPSIM_SOURCE_DIR;

// Two TP=2 replicas on GPUs 0,1 and 2,3 serving the design exercise's 6,144 + 300 tokens.
ScenarioResult two_pairs() {
  ScenarioResult r;
  ConfigResult c;
  c.name = "2xTP=2 NVLink pairs";
  c.layout = {{0, 1}, {2, 3}};
  c.tp = 2;
  c.requests_completed = 2;
  c.ttft_s.p50 = 0.2;
  r.configs = {c};
  r.recommendation = c.name;
  return r;
}

Scenario design_exercise() {
  Scenario s;
  s.name = "design exercise";
  s.file = "scenarios/x.yaml";
  s.platform_path = "platforms/4gpu_nv12_sys.xml";
  s.workload.prompt = {LengthDist::fixed, 6144};
  s.workload.output = {LengthDist::fixed, 300};
  s.collectives.p2p_level = "SYS";
  return s;
}

std::string text_of(const std::vector<std::pair<std::string, std::string>>& files, const std::string& name) {
  for (const auto& [f, t] : files)
    if (f == name) return t;
  FAIL("no file " << name);
  return "";
}
}  // namespace

TEST_CASE("launch scripts pin each replica to its GPUs with the engine's TP flag and pass shellcheck") {
  const ModelCard m = load_model_card(ROOT + "/workloads/models/llama-3.1-8b.yaml");
  CHECK(m.hf_id == "meta-llama/Llama-3.1-8B");
  const std::vector<std::pair<std::string, std::string>> tp_flag{
      {"vllm", "--tensor-parallel-size 2"}, {"sglang", "--tp-size 2"}, {"trtllm", "--tp_size 2"}, {"tgi", "--num-shard 2"}};
  for (const auto& [engine, flag] : tp_flag) {
    CAPTURE(engine);
    const auto files = launch_files(design_exercise(), m, two_pairs(), {}, engine);
    const std::string serve = text_of(files, "serve-2xtp-2-nvlink-pairs.sh"), bench = text_of(files, "bench-2xtp-2-nvlink-pairs.sh");
    for (const char* gpus : {"0,1", "2,3"})
      CHECK(std::regex_search(serve, std::regex(std::string("CUDA_VISIBLE_DEVICES=") + gpus + " [^\n]*" + flag)));
    CHECK(serve.find("export NCCL_P2P_LEVEL=SYS") != std::string::npos);
    CHECK(serve.find("MODEL=${MODEL:-meta-llama/Llama-3.1-8B}") != std::string::npos);
    CHECK(serve.find("--worker-urls http://127.0.0.1:8001 http://127.0.0.1:8002") != std::string::npos);
    CHECK(bench.find("--random-input-len 6144 --random-output-len 300") != std::string::npos);
    for (const auto& [file, text] : files) {
      if (file.size() < 3 || file.substr(file.size() - 3) != ".sh") continue;
      const auto path = test::scratch_dir() / (engine + "-" + file);
      std::ofstream(path) << text;
      CAPTURE(file);
      CHECK(std::system(("shellcheck -S error " + path.string() + " > /dev/null").c_str()) == 0);
    }
  }
}

TEST_CASE("the serve scripts pin the P2P level the simulation assumed: the platform's, or a named release's default") {
  Scenario s = design_exercise();
  s.collectives.p2p_level.clear();
  // The platform's level first.
  CHECK(pinned_p2p_level(s, "PHB", "amd").level == "PHB");
  // NCCL 2.9-2.22 default to SYS on AMD at any GPU count (paths.cc), which 2.23 on does not: pinned.
  s.collectives.nccl_version = "2.17";
  const PinnedP2pLevel amd = pinned_p2p_level(s, "", "amd");
  CHECK(amd.level == "SYS");
  const ModelCard m = load_model_card(ROOT + "/workloads/models/llama-3.1-8b.yaml");
  CHECK(text_of(launch_files(s, m, two_pairs(), {}, "vllm", amd), "serve-2xtp-2-nvlink-pairs.sh")
            .find("export NCCL_P2P_LEVEL=SYS   # NCCL 2.17's default on this platform's CPUs (collectives.nccl_version), as "
                  "simulated; 2.23 and later choose by GPU count") != std::string::npos);
  CHECK(pinned_p2p_level(s, "", "intel").level == "PXB");
  // A current release (or none named): NCCL chooses as simulated, nothing pinned.
  s.collectives.nccl_version = "2.26.2";
  CHECK(pinned_p2p_level(s, "", "amd").level.empty());
  s.collectives.nccl_version.clear();
  CHECK(pinned_p2p_level(s, "", "amd").level.empty());
}

TEST_CASE("launch refuses an engine it cannot write for, and a configuration that is not there") {
  const ModelCard m = load_model_card(ROOT + "/workloads/models/llama-3.1-8b.yaml");
  CHECK_THROWS_WITH(launch_files(design_exercise(), m, two_pairs(), {}, "deepspeed"),
                    "scenarios/x.yaml: error: --launch cannot write commands for engine 'deepspeed' (it writes for vllm, sglang, trtllm, tgi)");
  CHECK_THROWS_WITH(launch_files(design_exercise(), m, two_pairs(), {"2xTP=2 NVLink pair"}, "vllm"),
                    "--launch-config: error: no configuration named '2xTP=2 NVLink pair'; did you mean '2xTP=2 NVLink pairs'?");
}

TEST_CASE("expert parallelism: each engine's flags; disaggregation and a replica across nodes get a script that says why") {
  const ModelCard m = load_model_card(ROOT + "/workloads/models/llama-3.1-8b.yaml");
  ScenarioResult r = two_pairs();
  ConfigResult& c = r.configs[0];
  // EP8 with data-parallel attention over 8 GPUs: vLLM's EP spans tp x dp = 1 x 8, and each DP rank schedules its share,
  // 2048 / 8 = 256 sequences and 65536 / 8 = 8192 tokens (tpsim's scheduler holds the 8 ranks' budgets together).
  c.name = "EP8 attention DP8", c.layout = {{0, 1, 2, 3, 4, 5, 6, 7}}, c.tp = 1, c.ep = 8, c.attention_dp = 8;
  c.scheduler.max_num_seqs = 2048, c.scheduler.max_batched_tokens = 65536;
  r.recommendation = c.name;
  const std::string vllm = text_of(launch_files(design_exercise(), m, r, {}, "vllm"), "serve-ep8-attention-dp8.sh");
  CHECK(vllm.find("--tensor-parallel-size 1 --enable-expert-parallel --data-parallel-size 8 --pipeline-parallel-size 1 "
                  "--max-num-seqs 256 --max-num-batched-tokens 8192 ") != std::string::npos);
  const std::string sglang = text_of(launch_files(design_exercise(), m, r, {}, "sglang"), "serve-ep8-attention-dp8.sh");
  CHECK(sglang.find("--tp-size 8 --ep-size 8 --enable-dp-attention --dp-size 8 ") != std::string::npos);
  const std::string trtllm = text_of(launch_files(design_exercise(), m, r, {}, "trtllm"), "serve-ep8-attention-dp8.sh");
  CHECK(trtllm.find("echo 'tpsim --launch writes expert parallelism for vllm and sglang, not trtllm' >&2\nexit 1\n") != std::string::npos);
  CHECK(trtllm.find("trtllm-serve") == std::string::npos);
  // The same GPUs on two nodes of 4: no one-host script starts it.
  const std::map<int, int> two_nodes{{0, 0}, {1, 0}, {2, 0}, {3, 0}, {4, 1}, {5, 1}, {6, 1}, {7, 1}};
  const auto files = launch_files(design_exercise(), m, r, {}, "vllm", {}, two_nodes);
  CHECK(text_of(files, "serve-ep8-attention-dp8.sh").find("echo 'a replica spans 2 nodes (GPUs 0,1,2,3,4,5,6,7)") != std::string::npos);
  CHECK(text_of(files, "README.md").find("; the serve script only says why it cannot start it: a replica spans 2 nodes") != std::string::npos);
  // Its message's apostrophe (SGLang's) is quoted for the shell: the script passes shellcheck.
  const auto path = test::scratch_dir() / "two-nodes-serve.sh";
  std::ofstream(path) << text_of(files, "serve-ep8-attention-dp8.sh");
  CHECK(std::system(("shellcheck -S error " + path.string() + " > /dev/null").c_str()) == 0);
  // xPyD: prefill and decode instances with a KV connector, which co-located replicas are not.
  c.ep = 1, c.attention_dp = 1, c.disaggregation = DisaggregationResult{};
  CHECK(text_of(launch_files(design_exercise(), m, r, {}, "vllm"), "serve-ep8-attention-dp8.sh")
            .find("echo 'tpsim --launch does not write disaggregated (xPyD) serving") != std::string::npos);
}
