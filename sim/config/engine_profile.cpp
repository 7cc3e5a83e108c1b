#include "engine_profile.hpp"

namespace tpsim {

namespace {

constexpr double KiB = 1024, MiB = 1024 * 1024, US = 1e-6;

// vLLM's custom_all_reduce (SGLang runs the same kernel since sglang#5080).
CustomAllReduce vllm_custom_all_reduce() {
  CustomAllReduce c;
  c.world_sizes = {2, 4, 6, 8};
  c.max_bytes = 8 * MiB;
  c.one_shot_max_4_B = 512 * KiB;
  c.one_shot_max_8_B = 256 * KiB;
  c.pcie_two_gpus = true;
  c.latency_s = {9.5 * US, 9.1 * US, 10.1 * US};
  // vllm/distributed/device_communicators/all_reduce_utils.py (CUSTOM_ALL_REDUCE_MAX_SIZES,
  // SYMM_MEM_ALL_REDUCE_MAX_SIZES) and symm_mem.py (_WORLD_SIZES_MULTIMEM), SM 9.0, 10.0 and 10.3 (vllm#37756).
  c.symm_mem = SymmMemTier{
      .custom_max_B = {{90, {{2, 64 * MiB}, {4, 32 * MiB}, {6, MiB / 2}, {8, MiB / 4}}},
                       {100, {{2, 2 * MiB}, {4, 2 * MiB}, {6, 1 * MiB}, {8, 1 * MiB}}},
                       {103, {{2, 4 * MiB}, {4, 4 * MiB}, {6, 8 * MiB}, {8, 4 * MiB}}}},
      .max_B = {{90, {{2, 64 * MiB}, {4, 32 * MiB}, {6, 64 * MiB}, {8, 64 * MiB}}},
                {100, {{2, 8 * MiB}, {4, 32 * MiB}, {6, 128 * MiB}, {8, 128 * MiB}}},
                {103, {{2, 4 * MiB}, {4, 32 * MiB}, {6, 32 * MiB}, {8, 64 * MiB}}}},
      .multimem_ranks = {{90, {4, 6, 8}}, {100, {6, 8}}, {103, {6, 8}}}};
  c.source =
      "vllm distributed/device_communicators/custom_all_reduce.py @00d618aa (_SUPPORTED_WORLD_SIZES, max_size 8 MiB, "
      "full NVLink above 2 GPUs) and csrc/custom_all_reduce.cuh @c9eabec7 (1-stage below 512 KiB up to 4 ranks, 256 KiB "
      "up to 8); latency: vLLM's kernel on H100 at 512 fp32 elements (2 KiB), TP 2/4/8, sglang#2904 (without CUDA graphs, so an "
      "upper bound); with NVSwitch multicast (Hopper on) torch symmetric memory above its limit: all_reduce_utils.py "
      "CUSTOM_ALL_REDUCE_MAX_SIZES / SYMM_MEM_ALL_REDUCE_MAX_SIZES, symm_mem.py _WORLD_SIZES_MULTIMEM";
  return c;
}

// SGLang: vLLM's kernel (sglang#5080), without vLLM's symmetric-memory tier (SGLang's torch symmetric-memory
// all-reduce, sglang#10571, is opt-in: --enable-torch-symm-mem).
CustomAllReduce sglang_custom_all_reduce() {
  CustomAllReduce c = vllm_custom_all_reduce();
  c.symm_mem.reset();
  c.source += "; SGLang: no symmetric-memory tier unless --enable-torch-symm-mem (sglang#10571)";
  return c;
}

// TensorRT-LLM's allreduce plugin: ONESHOT below its size limits, NCCL above them (its AUTO has TWOSHOT
// off, "a temporary measure", nvbug 4718747) and without NVLink and P2P.
CustomAllReduce trtllm_custom_all_reduce() {
  CustomAllReduce c;
  c.world_sizes = {2, 4, 8};
  c.max_bytes = 8e6;  // workspace: 16 MB up to 2 ranks, 8 MB beyond
  c.one_shot_max_4_B = 1e6;
  c.one_shot_max_8_B = 500e3;
  c.pcie_two_gpus = false;
  c.two_shot = false;
  c.latency_s = {3.7 * US, 4.8 * US, 5.9 * US};
  c.source =
      "TensorRT-LLM plugins/ncclPlugin/allreducePlugin.cpp @005b299b selectImplementation (<= 2 ranks one-shot, <= 4 "
      "ranks one-shot below 1 MB, else below 500 kB, NCCL above: two-shot off in AUTO; no NVLink or P2P: NCCL) and "
      "common/customAllReduceUtils.h @005b299b (workspace 16 MB / 8 MB); latency: the TensorRT-LLM kernel on H100 at 512 "
      "fp32 elements (2 KiB), TP 2/4/8, sglang#2904";
  return c;
}

std::vector<EngineProfile> build() {
  const double spread = ENGINE_ARRIVAL_SPREAD_S;
  return {
      {.name = "vllm",
       .description = "vLLM (V1): one scheduler process, a worker per GPU, custom all-reduce (torch symmetric memory above it on NVSwitch from "
                      "Hopper), CUDA graphs up to 512 sequences",
       .custom_all_reduce = vllm_custom_all_reduce(), .cuda_graph_max_batch = 512, .all_reduce_jitter_s = spread,
       .max_num_seqs = 256, .max_batched_tokens = 8192, .chunked_prefill = true,
       .tp_check = "held out, vLLM ~0.5 (before V1) on H100 ran all 120 TP=2/4 batches of three models up to 25% slower than this "
                   "model (12.0% median; on A100 40 GB 4.5%, 78 of 110 slower; Argonne LLM-Inference-Bench, README \"Validation\"): before "
                   "V1 the driver worker broadcast each step's inputs to the others, which is not modelled; for such a version read TP>1 "
                   "as optimistic. gpt-fast's batch-1 decode in CUDA graphs with PyTorch's intra-node all-reduce, which this profile "
                   "stands in for, on 8x A100: within 0.9-8.4% at TP=2-8",
       .source = "vllm config: cudagraph capture sizes up to min(2 x max_num_seqs, 512); chunked prefill on in V1; "
                 "max_num_seqs 256, max_num_batched_tokens 8192 (engine/arg_utils.py)"},
      {.name = "sglang",
       .description = "SGLang: a scheduler per TP rank, vLLM's custom all-reduce, CUDA graphs up to 256 sequences",
       .custom_all_reduce = sglang_custom_all_reduce(), .cuda_graph_max_batch = 256, .all_reduce_jitter_s = spread,
       .max_num_seqs = 256, .max_batched_tokens = 8192, .chunked_prefill = true,
       .source = "sglang server_args.py: cuda_graph_max_bs 256 below TP 4 on 80-160 GB GPUs, chunked_prefill_size 8192; "
                 "custom_all_reduce.py @004e6561 adapted from vLLM"},
      {.name = "trtllm",
       .description = "TensorRT-LLM: an executor process per rank (MPI), one-shot all-reduce on NVLink (NCCL above its limits), CUDA graphs up to 128",
       .custom_all_reduce = trtllm_custom_all_reduce(), .cuda_graph_max_batch = 128, .all_reduce_jitter_s = spread,
       .max_num_seqs = 2048, .max_batched_tokens = 8192, .chunked_prefill = false, .kv_share_of_free = true,
       .tp_check = "held out, TensorRT-LLM 0.11 (its runner without CUDA graphs) on H100 and A100 40 GB within 2.6% and 4.9% at TP=2/4 "
                   "(medians over 15 groups; Argonne LLM-Inference-Bench) and NeMo/TensorRT-LLM on DGX A100 and H100 within 3.4% and 3.3% "
                   "at TP=2/4/8 (README \"Validation\")",
       .source = "TensorRT-LLM llmapi/llm_args.py: max_batch_size 2048, max_num_tokens 8192, CUDA graph batch sizes up to 128, "
                 "KvCacheConfig free_gpu_memory_fraction 0.9 (of the memory free after the model loads)"},
      {.name = "tgi",
       .description = "Text Generation Inference: a Rust router, a Python process per shard, NCCL all-reduce, CUDA graphs up to 32",
       .custom_all_reduce = std::nullopt, .cuda_graph_max_batch = 32, .all_reduce_jitter_s = spread, .max_num_seqs = 128, .max_batched_tokens = 4096,
       .chunked_prefill = true,
       .source = "text-generation-inference launcher/src/main.rs @db931fcf: --cuda-graphs 1,2,4,8,16,32, max_concurrent_requests 128, "
                 "max_batch_prefill_tokens 4096, PREFILL_CHUNKING 1; layers/tensor_parallel.py: torch.distributed.all_reduce (NCCL)"},
      {.name = "nccl",
       .description = "plain NCCL for every collective (the baseline: what nccl-tests measures), CUDA graphs on",
       .custom_all_reduce = std::nullopt,
       .tp_check = "held out, FasterTransformer 5.0 (NCCL all-reduce, no CUDA graphs) on 8x A100 ran all 134 TP=2/4/8 rows "
                   "slower than this profile predicts (12.3% median, worst 24.3%; README \"Validation\"): for an engine that calls "
                   "NCCL per collective, read TP>1 as optimistic",
       .source = "tpsim's collective model alone"},
  };
}

}  // namespace

const std::vector<EngineProfile>& engine_profiles() {
  static const std::vector<EngineProfile> all = build();
  return all;
}

const EngineProfile* find_engine_profile(const std::string& name) {
  for (const auto& p : engine_profiles())
    if (p.name == name) return &p;
  return nullptr;
}

std::vector<std::string> engine_profile_names() {
  std::vector<std::string> names;
  for (const auto& p : engine_profiles()) names.push_back(p.name);
  return names;
}

}  // namespace tpsim
