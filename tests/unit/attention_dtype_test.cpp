// Attention runs at the KV cache's element type, GEMMs at the weights' compute type. No engine.
#include <doctest/doctest.h>

#include "config/gpu_catalog.hpp"
#include "config/scenario.hpp"
#include "model/step_cost.hpp"

using namespace tpsim;

TEST_CASE("fp8 (W8A8) weights run their GEMMs at the fp8 peak and attention over a 16-bit KV cache at the 16-bit one") {
  // H100 SXM: dense bf16 989 TFLOPS, fp8 1979 (the GPU table). A long prefill's attention of F = 1e15 FLOP,
  // compute-bound, takes F / (peak x efficiency): at bf16's peak with a bf16 cache, at fp8's with an fp8 cache.
  const GpuSpec& h100 = *find_gpu("H100-SXM5-80GB");
  const Scenario s;
  const GpuModel bf16_cache = gpu_model(h100, s, nullptr, 1, 2), fp8_cache = gpu_model(h100, s, nullptr, 1, 1);
  CHECK(bf16_cache.peak_flops == doctest::Approx(1979e12).scale(0));
  CHECK(bf16_cache.attention_peak_flops == doctest::Approx(989e12).scale(0));
  CHECK(fp8_cache.attention_peak_flops == doctest::Approx(1979e12).scale(0));
  Op attention;
  attention.kind = OpKind::attention;
  attention.flops = 1e15;
  attention.bytes = 1e6;
  CHECK(op_time(attention, bf16_cache) == doctest::Approx(1e15 / (989e12 * bf16_cache.matmul_efficiency)).scale(0));
  CHECK(op_time(attention, fp8_cache) == doctest::Approx(1e15 / (1979e12 * fp8_cache.matmul_efficiency)).scale(0));
  // A GPU without an fp8 peak (A100) runs both at bf16's, 312 TFLOPS.
  CHECK(gpu_model(*find_gpu("A100-SXM4-80GB"), s, nullptr, 1, 1).attention_peak_flops == doctest::Approx(312e12).scale(0));
}
