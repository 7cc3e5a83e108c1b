// What a serving engine does around the model's kernels, as a named profile (`engine: vllm`):
// its all-reduce (NCCL, or its own one-shot / two-shot kernels within size, rank and topology
// limits), CUDA graphs, how its host work is organised, and its scheduling defaults. Every value
// cites its source (the engines' code and published measurements); a scenario overrides any of
// them under `engine:`.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tpsim {

// vLLM's torch symmetric-memory tier (on by default since vllm#24111) on GPUs with NVSwitch multicast: the
// custom kernel stops at custom_max_B, torch's symmetric-memory all-reduce runs up to max_B (multimem, the
// switch reducing, on the ranks listed; its two-shot on the others), NCCL beyond. Keyed by compute
// capability (90, 100, 103) and ranks, as vLLM's all_reduce_utils.py and symm_mem.py key them.
struct SymmMemTier {
  std::map<int, std::map<int, double>> custom_max_B, max_B;
  std::map<int, std::vector<int>> multimem_ranks;
};

// An engine's own all-reduce kernel for small messages (vLLM's custom_all_reduce, TensorRT-LLM's
// ONESHOT/TWOSHOT). One-shot: every rank reads the whole tensor from each peer and reduces it
// (one barrier); two-shot: reduce-scatter then all-gather through peer buffers (two barriers).
struct CustomAllReduce {
  std::vector<int> world_sizes;       // ranks it runs on
  double max_bytes = 0;               // larger tensors go to NCCL
  double one_shot_max_4_B = 0;        // up to 4 ranks: one-shot below this size, two-shot (or NCCL) above
  double one_shot_max_8_B = 0;        // 5 to 8 ranks; 2 ranks always run one-shot
  bool pcie_two_gpus = false;         // also 2 GPUs over PCIe with P2P (more ranks need all-NVLink)
  bool two_shot = true;               // above the one-shot limit: two-shot (false: NCCL there)
  std::vector<double> latency_s;      // small-message time at 2, 4 and 8 ranks (interpolated by ranks)
  std::optional<SymmMemTier> symm_mem;  // vLLM: torch symmetric memory above the custom kernel's limit
  std::string source;
};

struct EngineProfile {
  std::string name;                   // vllm | sglang | trtllm | tgi | nccl
  std::string description;
  std::optional<CustomAllReduce> custom_all_reduce;
  bool cuda_graphs = true;
  int cuda_graph_max_batch = 0;       // decode batches above this run without graphs (0: no limit)
  double all_reduce_jitter_s = 0;     // spread of the ranks' arrival at a collective (ENGINE_ARRIVAL_SPREAD_S)
  int max_num_seqs = 256;
  int max_batched_tokens = 8192;
  bool chunked_prefill = false;
  // The scheduler's gpu_memory_utilization is a share of the memory the weights and activations leave
  // (TensorRT-LLM's kv_cache_free_gpu_memory_fraction, 0.9), not of the whole GPU (vLLM's
  // gpu_memory_utilization, SGLang's mem_fraction_static): the KV cache gets that share of what is left.
  bool kv_share_of_free = false;
  // What held-out TP-scaling measurements of this engine showed (README "Validation"); said with every
  // configuration of TP > 1. Empty where none was checked.
  std::string tp_check = "";
  std::string source;
};

// The spread (standard deviation) of the ranks' arrival at a collective inside a serving framework,
// derived from published small all-reduce times on 8x H100 measured through PyTorch against
// nccl-tests' on the same kind of box (calibrate/recorded/dgx-h100-8gpu-nvswitch.log: 15.9 us at
// 128 B, 17.4 us at 8 KB): the framework's time exceeds nccl-tests' by the wait for the last of 8
// ranks, 1.42 sigma. Triton-distributed#57 (NCCL via torch.distributed, 19.2 us at 128 B): sigma
// 2.3 us; symm-mem-recipes#3 (NCCL, 8 KB bf16: 21.8 us): 3.1 us; kraken#6 (NCCL ring, 10 KB: 30.3
// us; GPU not stated): 9.1 us. The median, 3.1 us, is the default of every engine profile but
// `nccl` (nccl-tests' ranks run in step). Derived, not measured inside an engine.
constexpr double ENGINE_ARRIVAL_SPREAD_S = 3.1e-6;

const std::vector<EngineProfile>& engine_profiles();
// nullptr when unknown.
const EngineProfile* find_engine_profile(const std::string& name);
std::vector<std::string> engine_profile_names();

}  // namespace tpsim
