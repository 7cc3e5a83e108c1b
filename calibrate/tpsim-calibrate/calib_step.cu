// The TP=1 step proxy (step.csv): a model's decode or prefill step as the chain of its
// GEMMs, with every layer's own weights (so a decode step streams them all from HBM, as a
// real model does) and, in decode, a read of every layer's own KV cache. This is what tpsim's
// decode-step and prefill predictions are compared with. Not run: norms, rotary, softmax,
// sampling (each well under 1% of a step at these sizes) and attention's arithmetic in
// prefill (at 512-2048 tokens, 1-4% of the GEMMs' flops).
#include <algorithm>

#include "tpsim-calibrate/calib_device.hpp"
#include "tpsim-calibrate/cuda_check.hpp"

namespace tpsim::calib {
namespace {

// Reads `bytes` (a multiple of 16) and keeps one value per block so the loads are not elided.
__global__ void read_kernel(const uint4* data, size_t n, unsigned* sink) {
  unsigned acc = 0;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const uint4 v = data[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x9e3779b9u) sink[blockIdx.x] = acc;  // almost never true; the compiler cannot know
}

struct Layer {
  void* w[4];  // qkv, o_proj, gate_up, down
};

}  // namespace

std::vector<StepResult> run_step_proxy(int device, const ModelShape& model, const Options& opt, Manifest& manifest) {
  CUDA_CHECK(cudaSetDevice(device));
  const std::vector<StepCase> cases = step_cases();
  // Shapes at TP=1, in layer order; m is set per step.
  const GemmPlan plan = plan_gemm_shapes(model, {1}, {1});
  if (plan.shapes.size() != 5) {
    manifest.skipped("step proxy", "the model card's TP=1 shapes are incomplete");
    return {};
  }
  int64_t max_m = 1, max_kv = 0, max_n = 0, max_k = 0;
  for (const StepCase& c : cases) {
    max_m = std::max(max_m, c.tokens);
    max_kv = std::max(max_kv, kv_cache_bytes(model, c.batch, c.context));
  }
  for (const GemmShape& s : plan.shapes) max_n = std::max(max_n, s.n), max_k = std::max(max_k, s.k);
  const size_t need = static_cast<size_t>(weight_bytes(model)) + static_cast<size_t>(max_kv) * model.num_hidden_layers +
                      static_cast<size_t>(max_m * (max_n + max_k)) * 2;
  size_t free_b = 0, total_b = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  if (need + memory_reserve_bytes(total_b) + (size_t{256} << 20) > free_b) {  // + the L2 flusher and cuBLAS workspace
    manifest.skipped("step proxy", "the model's weights and KV caches need " + std::to_string(need >> 20) + " MiB; " +
                                       std::to_string(free_b >> 20) + " MiB are free");
    return {};
  }

  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cublasHandle_t handle = nullptr;
  CUBLAS_CHECK(cublasCreate(&handle));
  CUBLAS_CHECK(cublasSetStream(handle, stream));
  const size_t workspace_bytes = size_t{32} << 20;
  std::vector<void*> owned;
  const auto alloc = [&](size_t bytes) {
    void* p = nullptr;
    CUDA_CHECK(cudaMalloc(&p, bytes));
    owned.push_back(p);
    return p;
  };
  CUBLAS_CHECK(cublasSetWorkspace(handle, alloc(workspace_bytes), workspace_bytes));
  std::vector<Layer> layers(model.num_hidden_layers);
  for (Layer& l : layers)
    for (int i = 0; i < 4; ++i) {
      const size_t elements = static_cast<size_t>(plan.shapes[i].n * plan.shapes[i].k);
      l.w[i] = alloc(elements * 2);
      fill_random_bf16(l.w[i], elements, 11 + i, stream);
    }
  const GemmShape& head = plan.shapes[4];
  void* lm_head = alloc(static_cast<size_t>(head.n * head.k) * 2);
  fill_random_bf16(lm_head, static_cast<size_t>(head.n * head.k), 17, stream);
  std::vector<void*> kv(layers.size(), nullptr);
  for (void*& p : kv) {
    p = alloc(static_cast<size_t>(max_kv));
    CUDA_CHECK(cudaMemsetAsync(p, 1, static_cast<size_t>(max_kv), stream));
  }
  void* x = alloc(static_cast<size_t>(max_m * std::max(max_n, max_k)) * 2);
  void* y = alloc(static_cast<size_t>(max_m * std::max(max_n, max_k)) * 2);
  fill_random_bf16(x, static_cast<size_t>(max_m * std::max(max_n, max_k)), 3, stream);
  unsigned* sink = static_cast<unsigned*>(alloc(1024 * sizeof(unsigned)));

  const auto gemm = [&](const void* w, int64_t m, int64_t n, int64_t k) { gemm_bf16(handle, w, x, y, m, n, k); };
  L2Flusher flusher(device);
  EventTimer timer(opt.iters);
  std::vector<StepResult> rows;
  for (const StepCase& c : cases) {
    const int64_t m = c.tokens;
    const size_t kv_bytes = static_cast<size_t>(kv_cache_bytes(model, c.batch, c.context));
    const auto step = [&] {
      for (size_t l = 0; l < layers.size(); ++l) {
        gemm(layers[l].w[0], m, plan.shapes[0].n, plan.shapes[0].k);
        if (kv_bytes > 0) {
          read_kernel<<<1024, 256, 0, stream>>>(static_cast<const uint4*>(kv[l]), kv_bytes / 16, sink);
          CUDA_CHECK(cudaGetLastError());
        }
        for (int i = 1; i < 4; ++i) gemm(layers[l].w[i], m, plan.shapes[i].n, plan.shapes[i].k);
      }
      gemm(lm_head, c.batch, head.n, head.k);  // the last token of each sequence
    };
    rows.push_back({c.phase, c.batch, c.context, c.tokens, median_time_us(stream, flusher, timer, opt.warmup, opt.iters, step)});
  }
  CUBLAS_CHECK(cublasDestroy(handle));
  for (void* p : owned) CUDA_CHECK(cudaFree(p));
  CUDA_CHECK(cudaStreamDestroy(stream));
  return rows;
}

}  // namespace tpsim::calib
