// Issue 11 item 6: over a direct NVLink mesh NCCL's search (search.cc, ncclTopoCompute) finds
// several rings (channels), each taking b from every directed link it crosses; the group's rings
// carry channels x b, not one ring's narrowest link. No engine.
#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

#include "config/platform_file.hpp"
#include "model/collective_model.hpp"
#include "model/mesh_rings.hpp"

using namespace tpsim;

namespace {

const std::string ROOT = TPSIM_SOURCE_DIR;
constexpr double GB = 1e9, US = 1e-6, MiB = 1024.0 * 1024.0;

// Every directed capacity a ring set takes, summed per directed link.
std::map<std::pair<int, int>, double> used(const MeshRingSet& s) {
  std::map<std::pair<int, int>, double> u;
  for (const auto& r : s.rings)
    for (std::size_t i = 0; i < r.size(); ++i) u[{r[i], r[(i + 1) % r.size()]}] += s.per_ring_Bps;
  return u;
}

CollectivePlan plan(const std::string& platform, const std::vector<int>& gpus, double size_B) {
  Topology topo(load_platform_file(ROOT + "/platforms/" + platform), {}, "");
  CollectiveModel model(topo, CollectiveSpec{}, nullptr);
  return model.plan(CollectiveOp::all_reduce, size_B, gpus);
}

}  // namespace

TEST_CASE("four GPUs with NV2 between every pair: six rings of half a bundle use every link") {
  // K4, 50 GB/s each way per pair: three Hamiltonian cycles, each in both directions, every
  // directed link crossed by two of them: 6 rings x 25 GB/s = 150 GB/s = each GPU's 3 x 50 out.
  const MeshRingSet s = mesh_rings({0, 1, 2, 3}, [](int, int) { return 50 * GB; });
  CHECK(s.rings.size() == 6);
  CHECK(s.per_ring_Bps == doctest::Approx(25 * GB).scale(0));
  CHECK(s.total_Bps() == doctest::Approx(150 * GB).scale(0));
  for (const auto& [link, Bps] : used(s)) CHECK(Bps <= 50 * GB * (1 + 1e-9));
}

TEST_CASE("a chain has no ring; a lone cycle is one ring at its narrowest link") {
  auto chain = [](int a, int b) { return std::abs(a - b) == 1 ? 50 * GB : 0.0; };
  CHECK(mesh_rings({0, 1, 2}, chain).rings.empty());
  auto cycle = [](int a, int b) { return (a + 1) % 3 == b ? 30 * GB : 0.0; };  // 0 -> 1 -> 2 -> 0 only
  const MeshRingSet s = mesh_rings({0, 1, 2}, cycle);
  CHECK(s.rings.size() == 1);
  CHECK(s.total_Bps() == doctest::Approx(30 * GB).scale(0));
}

TEST_CASE("DGX-1 hybrid cube mesh: the rings carry every GPU's six NVLinks") {
  // platforms/dgx1_hybrid_cube_mesh.xml: each GPU has NV2 to two peers and NV1 to two, 6 links of
  // 25 GB/s = 150 GB/s out. Simple at 64 MiB, 8 ranks: L = 8.4 + 14 x 8.8 = 131.6 us, bus bandwidth
  // 150 GB/s x 0.8 (NCCL's 20 of 25 GB/s per link); one ring would have 50 GB/s (its NV2 cycle
  // 0-3-2-1-5-6-7-4), 40 GB/s of bus bandwidth.
  const CollectivePlan p = plan("dgx1_hybrid_cube_mesh.xml", {0, 1, 2, 3, 4, 5, 6, 7}, 64 * MiB);
  CHECK(p.protocol == Protocol::Simple);
  CHECK(p.latency_s == doctest::Approx(131.6 * US).scale(0));
  CHECK(p.bus_bw_Bps == doctest::Approx(150 * GB * 0.8).scale(0));
  CHECK(p.time_s() == doctest::Approx(131.6 * US + 64 * MiB * 1.75 / (120 * GB)).scale(0));
  // GPUs 0-3: links 0-1 and 0-2 NV1, 0-3 NV2: GPU 0 has 100 GB/s out, every ring set is bound by it.
  CHECK(plan("dgx1_hybrid_cube_mesh.xml", {0, 1, 2, 3}, 64 * MiB).bus_bw_Bps == doctest::Approx(100 * GB * 0.8).scale(0));
}

TEST_CASE("NVSwitch boxes keep one ring: their ports are not a direct mesh") {
  // DGX H100: each GPU's one NVSwitch port (450 GB/s) carries the ring; mesh_rings sees no nvlink.
  const CollectivePlan p = plan("dgx_h100.xml", {0, 1, 2, 3, 4, 5, 6, 7}, 256 * MiB);
  CHECK(p.flows.size() == 8);  // one ring: 8 edges, one leg each (GPU port, switch, GPU port)
}

TEST_CASE("the run says when the rings go over a mesh") {
  // DGX-1, 8 GPUs: 150 GB/s out of each GPU, taken as 12 rings of 12.5 GB/s (the first per-ring
  // bandwidth, from the largest down, that reaches 150 GB/s in total).
  Topology topo(load_platform_file(ROOT + "/platforms/dgx1_hybrid_cube_mesh.xml"), {}, "");
  CollectiveModel model(topo, CollectiveSpec{}, nullptr);
  model.plan(CollectiveOp::all_reduce, 64 * MiB, {0, 1, 2, 3, 4, 5, 6, 7});
  const auto notes = model.engine_notes();
  REQUIRE(notes.size() == 1);
  CHECK(notes[0] == "collectives on 8 GPUs: 12 rings over the direct NVLink mesh, 12.5 GB/s of links each (NCCL's ring search, "
                    "search.cc), not one ring");
}
