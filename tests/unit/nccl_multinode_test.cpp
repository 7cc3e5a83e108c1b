// Collectives across nodes as NCCL's tuner costs them (src/graph/tuning.cc): only the steps that
// cross nodes pay the network's hop, a tree's chain inside each node pays the NVLink tree hop, and
// LL's bus bandwidth is capped by host CPU and node count. No engine.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "config/platform_file.hpp"
#include "model/collective_defaults.hpp"
#include "model/collective_model.hpp"

using namespace tpsim;

namespace {
constexpr double US = 1e-6;
const std::string ROOT = TPSIM_SOURCE_DIR;
}  // namespace

TEST_CASE("a tree across 2 nodes: base + 2 ((N / nodes - 1) x NVLink tree hop + log2(nodes) x network tree hop)") {
  // 16 ranks on 2 nodes, LL: 6.8 + 2 x (7 x 0.6 + 1 x 5.0) = 25.2 us (the 2x HGX H100 log's floor
  // is 25-34 us); Simple: 8.4 + 2 x (7 x 4.0 + 14) = 92.4 us.
  const auto tree = [](Protocol p) {
    return default_latency_s(p, Algorithm::tree, CollectiveOp::all_reduce, 16, PathClass::NET, false, 2, PathClass::NVL);
  };
  CHECK(tree(Protocol::LL) == doctest::Approx(25.2 * US));
  CHECK(tree(Protocol::Simple) == doctest::Approx(92.4 * US));
  // 32 ranks on 4 nodes: log2(4) = 2 network steps each way: 6.8 + 2 x (7 x 0.6 + 2 x 5.0) = 35.2 us.
  CHECK(default_latency_s(Protocol::LL, Algorithm::tree, CollectiveOp::all_reduce, 32, PathClass::NET, false, 4) ==
        doctest::Approx(35.2 * US));
}

TEST_CASE("a ring across 2 nodes pays the network hop on its 2 (nodes - 1) crossing steps only") {
  // 16 ranks, all-reduce: 30 steps, 2 cross. LL: 6.8 + 28 x max(0.6, 1.0 us post overhead) + 2 x 2.7
  // = 40.2 us; on an AMD host (2.0 us overhead): 6.8 + 28 x 2.0 + 5.4 = 68.2 us; Simple (overhead
  // x 3): 8.4 + 28 x max(3.4, 3.0) + 2 x 14 = 131.6 us. All-gather: 15 steps, 1 crossing.
  const auto ring = [](Protocol p, CollectiveOp op, bool amd) {
    return default_latency_s(p, Algorithm::ring, op, 16, PathClass::NET, false, 2, PathClass::NVL, amd);
  };
  CHECK(ring(Protocol::LL, CollectiveOp::all_reduce, false) == doctest::Approx(40.2 * US));
  CHECK(ring(Protocol::LL, CollectiveOp::all_reduce, true) == doctest::Approx(68.2 * US));
  CHECK(ring(Protocol::Simple, CollectiveOp::all_reduce, false) == doctest::Approx(131.6 * US));
  CHECK(ring(Protocol::LL, CollectiveOp::all_gather, false) == doctest::Approx((6.8 + 14 * 1.0 + 2.7) * US));
  // One node: every step pays the NVLink ring hop, as before: 6.8 + 14 x 0.6 = 15.2 us at 8 ranks.
  CHECK(default_latency_s(Protocol::LL, Algorithm::ring, CollectiveOp::all_reduce, 8, PathClass::NVL, false) == doctest::Approx(15.2 * US));
}

TEST_CASE("LL's bus bandwidth across nodes: NCCL's cap by host CPU and node count, and a tree keeps 0.92 / 3.8 of its links") {
  CHECK(ll_max_bus_Bps(90, 1, false) == doctest::Approx(141e9));
  CHECK(ll_max_bus_Bps(90, 2, false) == doctest::Approx(39e9));
  CHECK(ll_max_bus_Bps(90, 4, false) == doctest::Approx(20.4e9));
  CHECK(ll_max_bus_Bps(80, 2, true) == doctest::Approx(22.5e9));
  CHECK(ll_max_bus_Bps(80, 8, true) == doctest::Approx(19.0e9));
  // On 2x DGX H100 (Intel hosts, 8 x 50 GB/s NICs per node): tree LL 400 x 0.92 / 3.8 = 96.8 GB/s,
  // capped at 39 GB/s.
  Topology topo(load_platform_file(ROOT + "/platforms/2x_dgx_h100_ib.xml"), {}, "");
  CollectiveSpec spec;
  spec.protocol = "LL";
  spec.algorithm = "tree";
  CollectiveModel model(topo, spec, nullptr);
  std::vector<int> gpus;
  for (int g = 0; g < 16; ++g) gpus.push_back(g);
  const CollectivePlan& p = model.plan(CollectiveOp::all_reduce, 1 << 20, gpus);
  CHECK(p.bus_bw_Bps == doctest::Approx(39e9));
  CHECK(p.latency_s == doctest::Approx(25.2 * US));
}
