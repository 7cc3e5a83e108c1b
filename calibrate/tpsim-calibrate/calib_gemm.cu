// bf16 GEMM sweep with cuBLAS (gemm_bf16: a PyTorch Linear's layout, fp32 accumulation).
// Inputs hold random values; the L2 is flushed before every timed iteration so that small
// decode GEMMs read their weights from HBM, as they do in a model with many layers.
#include <algorithm>
#include <set>
#include <tuple>

#include "tpsim-calibrate/calib_device.hpp"
#include "tpsim-calibrate/cuda_check.hpp"

namespace tpsim::calib {
namespace {

// A device buffer that only grows; freeing first keeps the peak at the new size.
class GrowBuffer {
public:
  ~GrowBuffer() { cudaFree(ptr_); }
  size_t capacity() const { return bytes_; }
  void* ensure(size_t bytes) {
    if (bytes <= bytes_) return ptr_;
    CUDA_CHECK(cudaFree(ptr_));
    ptr_ = nullptr;
    bytes_ = 0;
    CUDA_CHECK(cudaMalloc(&ptr_, bytes));
    bytes_ = bytes;
    return ptr_;
  }

private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

}  // namespace

void gemm_bf16(cublasHandle_t handle, const void* w, const void* x, void* y, int64_t m, int64_t n, int64_t k) {
  const float alpha = 1.0f, beta = 0.0f;
  CUBLAS_CHECK(cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(n), static_cast<int>(m), static_cast<int>(k),
                            &alpha, w, CUDA_R_16BF, static_cast<int>(k), x, CUDA_R_16BF, static_cast<int>(k), &beta, y,
                            CUDA_R_16BF, static_cast<int>(n), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

std::vector<GemmResult> run_gemm_sweep(int device, const GemmPlan& plan, const Options& opt, Manifest& manifest) {
  CUDA_CHECK(cudaSetDevice(device));
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cublasHandle_t handle = nullptr;
  CUBLAS_CHECK(cublasCreate(&handle));
  CUBLAS_CHECK(cublasSetStream(handle, stream));
  GrowBuffer workspace, w_buf, x_buf, y_buf;
  const size_t workspace_bytes = size_t{32} << 20;  // cuBLAS's recommendation for Hopper
  CUBLAS_CHECK(cublasSetWorkspace(handle, workspace.ensure(workspace_bytes), workspace_bytes));
  L2Flusher flusher(device);
  EventTimer timer(opt.iters);
  std::vector<GemmResult> rows;
  std::set<std::tuple<std::string, int64_t, int64_t, int64_t>> done;
  std::vector<std::string> too_big;
  for (const GemmShape& s : plan.shapes) {
    if (!done.insert({s.op, s.m, s.n, s.k}).second) continue;  // same shape at another TP
    const size_t w_bytes = static_cast<size_t>(s.n * s.k) * 2, x_bytes = static_cast<size_t>(s.m * s.k) * 2,
                 y_bytes = static_cast<size_t>(s.m * s.n) * 2;
    size_t free_b = 0, total_b = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    const size_t grow = (w_bytes > w_buf.capacity() ? w_bytes : 0) + (x_bytes > x_buf.capacity() ? x_bytes : 0) +
                        (y_bytes > y_buf.capacity() ? y_bytes : 0);
    if (grow + memory_reserve_bytes(total_b) > free_b) {
      too_big.push_back(s.op + " m=" + std::to_string(s.m) + " n=" + std::to_string(s.n) + " k=" + std::to_string(s.k));
      continue;
    }
    void* w = w_buf.ensure(w_bytes);
    void* x = x_buf.ensure(x_bytes);
    void* y = y_buf.ensure(y_bytes);
    fill_random_bf16(w, w_bytes / 2, 1, stream);
    fill_random_bf16(x, x_bytes / 2, 2, stream);
    const double us = median_time_us(stream, flusher, timer, opt.warmup, opt.iters,
                                     [&] { gemm_bf16(handle, w, x, y, s.m, s.n, s.k); });
    rows.push_back({s.op, s.m, s.n, s.k, "bf16", us});
  }
  for (const std::string& why : plan.skipped) manifest.skipped("gemm " + why.substr(0, why.find(':')), why);
  if (!too_big.empty()) {
    std::string list;
    for (const std::string& t : too_big) list += (list.empty() ? "" : "; ") + t;
    manifest.skipped("gemm shapes beyond free memory",
                     std::to_string(too_big.size()) + " shape(s) need more than the free device memory: " + list);
  }
  manifest.skipped("gemm fp8", "not implemented in tpsim-calibrate 0.1.0: the sweep is bf16 only");
  CUBLAS_CHECK(cublasDestroy(handle));
  CUDA_CHECK(cudaStreamDestroy(stream));
  return rows;
}

}  // namespace tpsim::calib
