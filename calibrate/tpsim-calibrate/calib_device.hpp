// CUDA helpers shared by the single-GPU measurements (exe only, needs the CUDA runtime).
#pragma once
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <vector>

#include "tpsim-calibrate/calib_measure.hpp"
#include "tpsim-calibrate/calib_stats.hpp"

namespace tpsim::calib {

// Fills `elements` bf16 values with a deterministic hash of (index, seed) in [-1, 1):
// zeros would make the GEMMs draw less power and run faster than with real weights.
void fill_random_bf16(void* p, size_t elements, unsigned seed, cudaStream_t stream);

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

}  // namespace tpsim::calib
