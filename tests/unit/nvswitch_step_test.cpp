// A Simple ring step over NVLink costs 8.8 us (HOP_LAT_NVL) (the median of the recorded NVSwitch
// boxes' ring Simple lines per step, collective_defaults.cpp), through a switch or on a direct mesh,
// where NCCL's tuner counts 3.4; LL and LL128, and pairwise sends keep NCCL's figures. No engine.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "config/platform_file.hpp"
#include "model/collective_model.hpp"

using namespace tpsim;

namespace {

const std::string ROOT = TPSIM_SOURCE_DIR;
constexpr double US = 1e-6;
const std::vector<int> EIGHT{0, 1, 2, 3, 4, 5, 6, 7};

// The default latency of one collective on `gpus` of `platform` with a forced protocol.
double latency_s(const std::string& platform, const std::string& protocol, CollectiveOp op, const std::vector<int>& gpus) {
  Topology topo(load_platform_file(ROOT + "/" + platform), {}, "");
  CollectiveSpec spec;
  spec.protocol = protocol;
  spec.algorithm = "ring";
  CollectiveModel model(topo, spec, nullptr);
  return model.plan(op, 64 << 20, gpus).latency_s;
}

}  // namespace

TEST_CASE("a Simple ring all-reduce step over NVLink costs 8.8 us, through NVSwitch or on a direct mesh") {
  // DGX A100, 8 ranks: base 8.4 + 2 (8 - 1) = 14 steps x 8.8 = 131.6 us.
  CHECK(latency_s("platforms/dgx_a100.xml", "Simple", CollectiveOp::all_reduce, EIGHT) == doctest::Approx((8.4 + 14 * 8.8) * US).scale(0));
  // The same 14 steps over the 8x V100 hybrid cube mesh (no switch): the same 131.6 us.
  CHECK(latency_s("tests/data/measured/nccl/platforms/8xv100-sxm2-nv1-nv2-mesh.xml", "Simple", CollectiveOp::all_reduce, EIGHT) ==
        doctest::Approx((8.4 + 14 * 8.8) * US).scale(0));
  // A 4-GPU board, every pair NV4: 6 steps, 8.4 + 6 x 8.8 = 61.2 us.
  CHECK(latency_s("tests/data/measured/nccl/platforms/4xa100-sxm4-hgx4-nv4.xml", "Simple", CollectiveOp::all_reduce, {0, 1, 2, 3}) ==
        doctest::Approx((8.4 + 6 * 8.8) * US).scale(0));
  // An all-gather ring has 8 - 1 = 7 steps: 8.4 + 7 x 8.8 = 70 us on the DGX H100.
  CHECK(latency_s("platforms/dgx_h100.xml", "Simple", CollectiveOp::all_gather, EIGHT) == doctest::Approx((8.4 + 7 * 8.8) * US).scale(0));
}

TEST_CASE("LL and LL128 steps through NVSwitch and pairwise sends keep NCCL's latencies") {
  // LL: 6.8 + 14 x 0.6 = 15.2 us; LL128: 14 + 14 x 1.9 = 40.6 us (tuning.cc baseLat + hwLat NVLINK ring).
  CHECK(latency_s("platforms/dgx_a100.xml", "LL", CollectiveOp::all_reduce, EIGHT) == doctest::Approx((6.8 + 14 * 0.6) * US).scale(0));
  CHECK(latency_s("platforms/dgx_a100.xml", "LL128", CollectiveOp::all_reduce, EIGHT) == doctest::Approx((14 + 14 * 1.9) * US).scale(0));
  // An all-to-all's sends wait on no neighbour: one step of 3.4 us after the 8.4 us base.
  CHECK(latency_s("platforms/dgx_a100.xml", "Simple", CollectiveOp::all_to_all, EIGHT) == doctest::Approx((8.4 + 3.4) * US).scale(0));
}
