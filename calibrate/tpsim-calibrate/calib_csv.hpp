// CSV files of the single-GPU measurements. Every value is a median over iterations.
//
// Both start with "# gpu: NAME" (the device's name as CUDA reports it): tpsim fit records it, and a
// run on another GPU carries the efficiencies through that GPU's rates.
// gemm.csv   op,m,n,k,dtype,time_us,tflops,eff_bw_GBps
//            tflops      = 2*m*n*k / time_s / 1e12
//            eff_bw_GBps = (m*k + k*n + m*n) * bytes_per_element / time_s / 1e9
//                          (bf16: 2 bytes; each operand read or written once)
// hbm.csv    bytes,time_us,copy_GBps, after one "#" line saying that
//            copy_GBps = 2 * bytes / time_s / 1e9 (the copy reads and writes every byte)
// launch.csv what,value_us
// step.csv   phase,batch,context,tokens,time_us: the model's TP=1 decode or prefill step as a
//            chain of its GEMMs and KV-cache reads (calib_model.hpp, StepProxy)
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace tpsim::calib {

struct GemmResult {
  std::string op;
  int64_t m = 0, n = 0, k = 0;
  std::string dtype = "bf16";
  double time_us = 0;
};

struct HbmResult {
  uint64_t bytes = 0;
  double time_us = 0;
};

struct StepResult {
  std::string phase;  // decode | prefill
  int64_t batch = 0, context = 0, tokens = 0;
  double time_us = 0;
};

struct LaunchResult {
  std::string what;
  double value_us = 0;
};

int bytes_per_element(const std::string& dtype);  // bf16, fp16: 2; fp8: 1; fp32: 4
double gemm_tflops(const GemmResult& r);
double gemm_eff_bw_GBps(const GemmResult& r);
double copy_GBps(const HbmResult& r);

std::string format_gemm_csv(const std::string& gpu, const std::vector<GemmResult>& rows);
std::string format_hbm_csv(const std::string& gpu, const std::vector<HbmResult>& rows);
std::string format_launch_csv(const std::vector<LaunchResult>& rows);
std::string format_step_csv(const std::vector<StepResult>& rows);

}  // namespace tpsim::calib
