// CUDA helpers shared by the single-GPU measurements (exe only, needs the CUDA runtime).
#pragma once
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <vector>

#include "tpsim-calibrate/calib_measure.hpp"
#include "tpsim-calibrate/calib_stats.hpp"
#include "tpsim-calibrate/cuda_check.hpp"

namespace tpsim::calib {

// Fills `elements` bf16 values with a deterministic hash of (index, seed) in [-1, 1):
// zeros would make the GEMMs draw less power and run faster than with real weights.
void fill_random_bf16(void* p, size_t elements, unsigned seed, cudaStream_t stream);

// Y[m,n] = X[m,k] * W[n,k]^T in bf16 with fp32 accumulation, the layout of a PyTorch Linear
// (weights stored [out, in]): cublasGemmEx(OP_T, OP_N, n, m, k, W (lda k), X (ldb k), Y (ldc n)).
void gemm_bf16(cublasHandle_t handle, const void* w, const void* x, void* y, int64_t m, int64_t n, int64_t k);

// A buffer of twice the L2 size; flush() overwrites it, evicting whatever the L2 held.
class L2Flusher {
public:
  explicit L2Flusher(int device);
  ~L2Flusher();
  L2Flusher(const L2Flusher&) = delete;
  L2Flusher& operator=(const L2Flusher&) = delete;
  void flush(cudaStream_t stream);

private:
  void* buffer_ = nullptr;
  size_t bytes_ = 0;
  int value_ = 0;
};

// A start and a stop event per iteration.
class EventTimer {
public:
  explicit EventTimer(int iters);
  ~EventTimer();
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;
  cudaEvent_t start(int i) const { return events_[2 * i]; }
  cudaEvent_t stop(int i) const { return events_[2 * i + 1]; }
  // Waits for the stream, then the median and p99 of stop - start over `iters`, in us.
  Summary summarize_us(cudaStream_t stream, int iters);

private:
  std::vector<cudaEvent_t> events_;
};

// Runs `work` `warmup` times, then `iters` times between a timer's events with the L2 flushed
// before each, and returns the median in us.
template <class Work>
double median_time_us(cudaStream_t stream, L2Flusher& flusher, EventTimer& timer, int warmup, int iters, Work&& work) {
  for (int i = 0; i < warmup; ++i) work();
  for (int i = 0; i < iters; ++i) {
    flusher.flush(stream);
    CUDA_CHECK(cudaEventRecord(timer.start(i), stream));
    work();
    CUDA_CHECK(cudaEventRecord(timer.stop(i), stream));
  }
  return timer.summarize_us(stream, iters).median;
}

}  // namespace tpsim::calib
