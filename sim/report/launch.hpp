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

// (file name, text) of every file, for the recommendation and each of `extra` (configuration
// names); `platform_p2p_level`: the platform's NCCL P2P level ("" = NCCL's default). Throws InputError located at "--launch-config" for an unknown name or a configuration
// that does not fit, and at the scenario for an engine --launch cannot write for.
std::vector<std::pair<std::string, std::string>> launch_files(const Scenario& s, const ModelCard& model, const ScenarioResult& r,
                                                              const std::vector<std::string>& extra, const std::string& engine,
                                                              const std::string& platform_p2p_level = "");

}  // namespace tpsim
