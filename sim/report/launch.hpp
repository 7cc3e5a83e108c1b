// `--launch DIR`: what runs a simulated configuration on the real box. Per configuration:
//   serve-<slug>.sh  one serve command per replica, pinned by CUDA_VISIBLE_DEVICES to the GPUs of
//                    the placement (physical indices, as nvidia-smi numbers them), with TP/PP, max
//                    sequences, batched tokens, dtype, ports and the NCCL environment the
//                    simulation assumed, and a router across the replicas;
//   bench-<slug>.sh  `vllm bench serve` replaying the scenario's workload (lengths, rate, requests)
//                    against it, with tpsim's prediction beside it;
// and README.md naming the winner and what the commands assume. Engines: vLLM (default), SGLang,
// TensorRT-LLM (trtllm-serve), TGI.
#pragma once
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "config/model_card.hpp"
#include "config/scenario.hpp"
#include "model/results.hpp"

namespace tpsim {

// The serving engine the scenario's engine profile names ("" = none). The one place that reads
// it: when EngineSpec::name lands, this returns s.engine.name.
std::string scenario_engine_name(const Scenario& s);

// Engines --launch writes commands for.
const std::vector<std::string>& launch_engines();

// The NCCL P2P level the serve scripts pin (NCCL_P2P_LEVEL) and why: the platform's p2p_level, or
// the default of the release the scenario names where releases differ (pinned_p2p_level); "" = none.
struct PinnedP2pLevel {
  std::string level, source;
};
// The platform's p2p_level; else, when the scenario's collectives.nccl_version is before 2.23, that
// release's default on the platform's CPU vendor (the same at every GPU count then, unlike 2.23 on).
PinnedP2pLevel pinned_p2p_level(const Scenario& s, const std::string& platform_p2p_level, const std::string& cpu_vendor);

// (file name, text) of every file, for the recommendation and each of `extra` (configuration
// names). Throws InputError located at "--launch-config" for an unknown name or a configuration
// that does not fit, and at the scenario for an engine --launch cannot write for. `node_of_gpu`: the
// platform's node of each GPU (none: one node). A configuration the one-host scripts cannot start as
// simulated (xPyD disaggregation, a replica across nodes, expert parallelism on an engine whose flags
// are not written) gets a serve script that says why and exits 1, and the README says so.
std::vector<std::pair<std::string, std::string>> launch_files(const Scenario& s, const ModelCard& model, const ScenarioResult& r,
                                                              const std::vector<std::string>& extra, const std::string& engine,
                                                              const PinnedP2pLevel& p2p = {}, const std::map<int, int>& node_of_gpu = {});

}  // namespace tpsim
