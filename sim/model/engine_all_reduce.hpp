// All-reduces as a serving engine runs them, on top of NCCL's (collective_model.hpp):
//  * its own kernel where the profile's limits allow (engine_profile.hpp): one-shot, every rank
//    reads the whole tensor S from each of its N-1 peers (one barrier); two-shot, a reduce-scatter
//    and an all-gather through peer buffers, 2 S / N from each peer (two barriers). Time =
//    latency(N) (the profile's measured small-message time, linear in N between 2, 4 and 8 ranks;
//    two-shot pays TWO_SHOT_LATENCY_FACTOR of it) + the reads as flows on the platform's links at
//    CUSTOM_AR_WIRE_EFF of their rate; a profile without two-shot (TensorRT-LLM) runs NCCL above its
//    one-shot limit; vLLM on NVSwitch from Hopper runs torch's symmetric memory above its kernel's limit
//    (multimem: multimem_cost's fixed time + S each way on each port at its share of the port);
//  * the slowest rank: an all-reduce starts when the last rank arrives. With arrivals spread
//    with standard deviation sigma, the group waits sigma * E[max of N standard normals]
//    (0.56 sigma at 2 ranks, 1.03 at 4, 1.42 at 8), which nothing measured at TP=1 contains.
#pragma once
#include "collective_model.hpp"

namespace tpsim {

// Share of a link's wire rate the engines' one-shot / two-shot reads reach: the slope of the published
// H100 times of vLLM's kernel in sglang#2904 (calibrate/recorded/engine_all_reduce/, without CUDA graphs),
// 1-4 MiB, TP 2 (one-shot), 4 and 8 (two-shot): bytes each GPU reads over the time they add, 231, 240 and
// 262 GB/s of NVLink 4's 450 GB/s per direction, 0.512, 0.534 and 0.581; their mean, 0.54 (derived).
// That table's sizes are fp32 element counts (its test allocates torch.float32 tensors of that many
// elements), 4 B each: read as bytes before session 43, they gave 0.25, and every kernel above 1 MiB
// ran about twice as long as measured.
constexpr double CUSTOM_AR_WIRE_EFF = 0.54;
// A two-shot kernel's fixed cost over a one-shot's: one launch, two barriers. The same table's two-shot
// intercepts (13.95 us at TP 4, 16.8 at TP 8) over its small-size times (9.1, 10.1): 1.53 and 1.66,
// 1.6 (derived).
constexpr double TWO_SHOT_LATENCY_FACTOR = 1.6;

// torch's symmetric-memory multimem all-reduce (vLLM's tier above its custom kernel on NVSwitch boxes):
// each GPU sends its whole tensor S into the switch, which reduces it, and takes S back, so its port
// carries S each way whatever the rank count: fixed + S / (port_eff x the GPU's NVLink port). Least
// squares over published CUDA-graph times (calibrate/recorded/engine_all_reduce/): Hopper, vllm#42324
// (512 KiB-64 MiB, TP 8 inferred): 8.33 us + S / 214 GB/s, 0.477 of NVLink 4's 450 GB/s; Blackwell,
// vllm#37756's B300 (16 KiB-128 MiB, TP 6 or 8): 11.82 us + S / 256 GB/s, 0.284 of NVLink 5's 900 GB/s
// (the kernel does not keep pace with the wider port); B200 taken as B300 (no B200 multimem table at 6
// or 8 ranks found). Both derived.
struct MultimemCost {
  double latency_s = 0, port_eff = 0;
};
MultimemCost multimem_cost(int compute_capability);

// E[max of n independent standard normal variables] (0 for n < 2), by numerical integration.
double expected_max_of_normals(int n);

// Whether the engine's kernel runs this all-reduce on this group, and why not (for notes).
struct CustomAllReduceFit {
  bool applies = false;
  std::string kernel;   // one-shot | two-shot | multimem | symmetric-memory two-shot
  std::string why_not;  // "" when it applies
};
CustomAllReduceFit custom_all_reduce_fit(const CustomAllReduce& c, const GroupSummary& g, double size_B);

// The engine kernel's plan (see the preamble) on `gpus`, whose summary is `g`; `fit.applies` must hold.
CollectivePlan custom_all_reduce_plan(const CollectiveModel& cm, const CustomAllReduce& c, const CustomAllReduceFit& fit,
                                      const GroupSummary& g, double size_B, const std::vector<int>& gpus);

}  // namespace tpsim
