#include "tpsim-calibrate/calib_csv.hpp"

#include <cstdio>

#include "tpsim-calibrate/calib_error.hpp"

namespace tpsim::calib {
namespace {

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

}  // namespace

int bytes_per_element(const std::string& dtype) {
  if (dtype == "bf16" || dtype == "fp16") return 2;
  if (dtype == "fp8" || dtype == "fp8_e4m3") return 1;
  if (dtype == "fp32") return 4;
  throw RunError("internal: unknown GEMM dtype \"" + dtype + "\"");
}

double gemm_tflops(const GemmResult& r) {
  return 2.0 * static_cast<double>(r.m) * static_cast<double>(r.n) * static_cast<double>(r.k) / (r.time_us * 1e-6) / 1e12;
}

double gemm_eff_bw_GBps(const GemmResult& r) {
  const double m = static_cast<double>(r.m), n = static_cast<double>(r.n), k = static_cast<double>(r.k);
  return (m * k + k * n + m * n) * bytes_per_element(r.dtype) / (r.time_us * 1e-6) / 1e9;
}

double copy_GBps(const HbmResult& r) { return 2.0 * static_cast<double>(r.bytes) / (r.time_us * 1e-6) / 1e9; }

std::string format_gemm_csv(const std::string& gpu, const std::vector<GemmResult>& rows) {
  std::string out = "# gpu: " + gpu + "\nop,m,n,k,dtype,time_us,tflops,eff_bw_GBps\n";
  for (const GemmResult& r : rows)
    out += r.op + "," + std::to_string(r.m) + "," + std::to_string(r.n) + "," + std::to_string(r.k) + "," + r.dtype +
           "," + fixed(r.time_us, 3) + "," + fixed(gemm_tflops(r), 3) + "," + fixed(gemm_eff_bw_GBps(r), 2) + "\n";
  return out;
}

std::string format_hbm_csv(const std::string& gpu, const std::vector<HbmResult>& rows) {
  std::string out =
      "# gpu: " + gpu + "\n"
      "# device-to-device cudaMemcpyAsync, median over iterations, L2 flushed before each; "
      "copy_GBps counts read + write: 2 * bytes / time (GB = 1e9 B)\n"
      "bytes,time_us,copy_GBps\n";
  for (const HbmResult& r : rows)
    out += std::to_string(r.bytes) + "," + fixed(r.time_us, 3) + "," + fixed(copy_GBps(r), 2) + "\n";
  return out;
}

std::string format_launch_csv(const std::vector<LaunchResult>& rows) {
  std::string out = "what,value_us\n";
  for (const LaunchResult& r : rows) out += r.what + "," + fixed(r.value_us, 3) + "\n";
  return out;
}

std::string format_step_csv(const std::vector<StepResult>& rows) {
  std::string out =
      "# TP=1 step proxy: per layer the cuBLAS bf16 GEMMs qkv, o_proj, gate_up, down (m = tokens) and, in decode, a read "
      "of the layer's KV cache (batch x context tokens); then lm_head on one token per sequence. No norms, rotary, "
      "softmax or sampling. Median over iterations, L2 flushed before each.\n"
      "phase,batch,context,tokens,time_us\n";
  for (const StepResult& r : rows)
    out += r.phase + "," + std::to_string(r.batch) + "," + std::to_string(r.context) + "," + std::to_string(r.tokens) + "," +
           fixed(r.time_us, 3) + "\n";
  return out;
}

}  // namespace tpsim::calib
