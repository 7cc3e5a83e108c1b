// Single-GPU measurements that need kernels: HBM copy bandwidth, kernel and CUDA-graph
// launch overhead, and the helpers the GEMM sweep uses (random fill, L2 flush).
//
// HBM: cudaMemcpyAsync device to device, timed by CUDA events, with the L2 flushed before
// each iteration (a memset of twice the L2 size) so that no size is served from cache.
// Launch: host wall-clock (steady_clock) around N empty-kernel launches and a final stream
// synchronize, divided by N; graphs: a captured graph of K empty kernels launched G times.
#include <algorithm>
#include <chrono>

#include "tpsim-calibrate/calib_device.hpp"
#include "tpsim-calibrate/calib_stats.hpp"
#include "tpsim-calibrate/cuda_check.hpp"

namespace tpsim::calib {
namespace {

__global__ void empty_kernel() {}

__global__ void fill_bf16_kernel(__nv_bfloat16* p, size_t n, unsigned seed) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    unsigned x = static_cast<unsigned>(i) * 2654435761u ^ seed;  // integer hash -> [-1, 1)
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    p[i] = __float2bfloat16(static_cast<float>(x & 0xffffu) / 32768.0f - 1.0f);
  }
}

double now_us() {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

void fill_random_bf16(void* p, size_t elements, unsigned seed, cudaStream_t stream) {
  if (elements == 0) return;
  const unsigned blocks = static_cast<unsigned>(std::min<size_t>((elements + 255) / 256, 4096));
  fill_bf16_kernel<<<blocks, 256, 0, stream>>>(static_cast<__nv_bfloat16*>(p), elements, seed);
  CUDA_CHECK(cudaGetLastError());
}

L2Flusher::L2Flusher(int device) {
  int l2 = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
  bytes_ = std::max<size_t>(2 * static_cast<size_t>(l2), size_t{8} << 20);
  CUDA_CHECK(cudaMalloc(&buffer_, bytes_));
}

L2Flusher::~L2Flusher() { cudaFree(buffer_); }

void L2Flusher::flush(cudaStream_t stream) {
  CUDA_CHECK(cudaMemsetAsync(buffer_, ++value_ & 0xff, bytes_, stream));
}

EventTimer::EventTimer(int iters) {
  for (int i = 0; i < 2 * iters; ++i) {
    cudaEvent_t e = nullptr;
    CUDA_CHECK(cudaEventCreate(&e));
    events_.push_back(e);
  }
}

EventTimer::~EventTimer() {
  for (cudaEvent_t e : events_) cudaEventDestroy(e);
}

Summary EventTimer::summarize_us(cudaStream_t stream, int iters) {
  CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<double> samples;
  for (int i = 0; i < iters; ++i) {
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, events_[2 * i], events_[2 * i + 1]));
    samples.push_back(ms * 1000.0);
  }
  return summarize(samples);
}

std::vector<HbmResult> run_hbm_sweep(int device, const Options& opt, Manifest& manifest) {
  CUDA_CHECK(cudaSetDevice(device));
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  L2Flusher flusher(device);
  size_t free_b = 0, total_b = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  const size_t usable = free_b > memory_reserve_bytes(total_b) ? free_b - memory_reserve_bytes(total_b) : 0;
  std::vector<uint64_t> sizes = sweep_sizes(uint64_t{1} << 20, uint64_t{1} << 30, opt.quick ? 4 : 2);
  const size_t wanted = sizes.size();
  while (!sizes.empty() && 2 * sizes.back() > usable) sizes.pop_back();
  std::vector<HbmResult> rows;
  if (sizes.empty()) {
    manifest.skipped("hbm copy bandwidth", "not enough free device memory for two 1 MiB buffers beside the reserve");
    CUDA_CHECK(cudaStreamDestroy(stream));
    return rows;
  }
  if (sizes.size() < wanted)
    manifest.note("hbm copy sizes capped at " + std::to_string(sizes.back()) + " B by free device memory");
  void *src = nullptr, *dst = nullptr;
  CUDA_CHECK(cudaMalloc(&src, sizes.back()));
  CUDA_CHECK(cudaMalloc(&dst, sizes.back()));
  CUDA_CHECK(cudaMemsetAsync(src, 1, sizes.back(), stream));
  EventTimer timer(opt.iters);
  for (const uint64_t bytes : sizes) {
    rows.push_back({bytes, median_time_us(stream, flusher, timer, opt.warmup, opt.iters, [&] {
                      CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream));
                    })});
  }
  CUDA_CHECK(cudaFree(src));
  CUDA_CHECK(cudaFree(dst));
  CUDA_CHECK(cudaStreamDestroy(stream));
  return rows;
}

std::vector<LaunchResult> run_launch_overhead(int device, const Options& opt) {
  CUDA_CHECK(cudaSetDevice(device));
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const int reps = std::max(opt.iters, 5);
  const int n = opt.quick ? 500 : 2000;
  for (int i = 0; i < 200; ++i) empty_kernel<<<1, 1, 0, stream>>>();  // warm-up: module load, queues
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaStreamSynchronize(stream));

  std::vector<double> back_to_back, enqueue, roundtrip;
  for (int r = 0; r < reps; ++r) {
    const double t0 = now_us();
    for (int i = 0; i < n; ++i) empty_kernel<<<1, 1, 0, stream>>>();
    const double t1 = now_us();
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaStreamSynchronize(stream));
    const double t2 = now_us();
    back_to_back.push_back((t2 - t0) / n);
    enqueue.push_back((t1 - t0) / n);
  }
  for (int r = 0; r < 20 * reps; ++r) {
    const double t0 = now_us();
    empty_kernel<<<1, 1, 0, stream>>>();
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaStreamSynchronize(stream));
    roundtrip.push_back(now_us() - t0);
  }
  std::vector<LaunchResult> rows = {
      {"kernel_launch_back_to_back", summarize(back_to_back).median},
      {"kernel_launch_enqueue_host", summarize(enqueue).median},
      {"kernel_launch_sync_roundtrip", summarize(roundtrip).median},
  };

  for (const int k : {1, 16, 256}) {
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    for (int i = 0; i < k; ++i) empty_kernel<<<1, 1, 0, stream>>>();
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    const int g = std::max(20, (opt.quick ? 1000 : 4000) / k);
    for (int i = 0; i < 10; ++i) CUDA_CHECK(cudaGraphLaunch(exec, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::vector<double> per_graph;
    for (int r = 0; r < reps; ++r) {
      const double t0 = now_us();
      for (int i = 0; i < g; ++i) CUDA_CHECK(cudaGraphLaunch(exec, stream));
      CUDA_CHECK(cudaStreamSynchronize(stream));
      per_graph.push_back((now_us() - t0) / g);
    }
    const double median = summarize(per_graph).median;
    rows.push_back({"graph_launch_k" + std::to_string(k) + "_per_graph", median});
    rows.push_back({"graph_launch_k" + std::to_string(k) + "_per_kernel", median / k});
    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaGraphDestroy(graph));
  }
  CUDA_CHECK(cudaStreamDestroy(stream));
  return rows;
}

}  // namespace tpsim::calib
