// The measuring side of tpsim-calibrate (CUDA, NCCL, cuBLAS). Each function measures one
// part on real devices and returns rows for the writers; none of them writes a row it did
// not time. Parts that cannot run (memory, shapes) are reported through the Manifest.
#pragma once
#include <string>
#include <vector>

#include "tpsim-calibrate/calib_csv.hpp"
#include "tpsim-calibrate/calib_manifest.hpp"
#include "tpsim-calibrate/calib_model.hpp"
#include "tpsim-calibrate/calib_options.hpp"
#include "tpsim-calibrate/calib_topo.hpp"

namespace tpsim::calib {

// Bytes left free on a device after an allocation must stay above this: NCCL, cuBLAS and
// the CUDA context allocate on their own. max(512 MiB, 5% of the device memory).
size_t memory_reserve_bytes(size_t total_bytes);

struct NcclSweepSet {
  std::vector<int> gpus;     // CUDA ordinals
  std::string description;   // "pair class NV18 (...)" or "full set of 4 GPUs (...)"
};

// Sweeps all_reduce, all_gather and reduce_scatter on each set and writes
// nccl/<coll>_gpus<label>_<route>.log under out_dir; route is "p2p" or "p2p-off".
// Each log written, and each set or size skipped, is recorded in the manifest.
void run_nccl_sweeps(const Options& opt, const std::vector<NcclSweepSet>& sets, bool p2p_off,
                     const std::string& out_dir, Manifest& manifest);

std::vector<GemmResult> run_gemm_sweep(int device, const GemmPlan& plan, const Options& opt, Manifest& manifest);
std::vector<HbmResult> run_hbm_sweep(int device, const Options& opt, Manifest& manifest);
std::vector<LaunchResult> run_launch_overhead(int device, const Options& opt);
// The model's TP=1 decode and prefill steps as GEMM chains with KV-cache reads (step.csv).
std::vector<StepResult> run_step_proxy(int device, const ModelShape& model, const Options& opt, Manifest& manifest);

// Versions, devices, environment: the body of system.txt (without nvidia-smi parts).
std::string describe_system(const std::vector<int>& gpus);
std::string device_name(int device);
std::string nccl_library_version();

}  // namespace tpsim::calib
