// Every importable `nvidia-smi topo -m` matrix in tests/data/topo: the simulated 64 MiB
// all-reduce between two GPUs ranks pairs in the order their codes imply,
// NV# <= PIX <= PXB <= PHB/NODE <= SYS in time. (The 8xH100 matrix with only GPU0's row is refused
// on import, see topo_import_test.cpp.)
#include <doctest/doctest.h>

#include "../scratch_dir.hpp"
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "model/collective_model.hpp"
#include "topo/topo_gpu_links.hpp"
#include "topo/topo_matrix.hpp"
#include "topo/topo_platform.hpp"

using namespace tpsim;

namespace {

int rank_of(PathCode c) {
  switch (c) {
    case PathCode::NV: return 0;
    case PathCode::PIX: return 1;
    case PathCode::PXB: return 2;
    case PathCode::PHB:
    case PathCode::NODE: return 3;
    default: return 4;  // SYS
  }
}

}  // namespace

TEST_CASE("imported boxes rank GPU pairs by their topo codes") {
  const std::string dir = std::string(TPSIM_SOURCE_DIR) + "/tests/data/topo/";
  const std::map<std::string, std::string> boxes{{"2xrtx2080ti-pix-no-p2p", "RTX2080Ti-11GB"},
                                                 {"2xrtx5090-phb-threadripper", "RTX5090-32GB"},
                                                 {"8xa100-nv12-pairs-dual-socket", "A100-SXM4-80GB"},
                                                 {"8xb200-nv18-8nic-gke-a4", "B200-SXM-180GB"},
                                                 {"4gpu-nv12-pairs-sys-design-exercise", "A100-SXM4-80GB"},
                                                 {"1xgh200-4nic-bluefield3", "GH200-96GB"},
                                                 {"8xa100-dgx-nv12-10nic-pxb", "A100-SXM4-80GB"},
                                                 {"8xa100-hgx-nv12-epyc-nps4-1nic", "A100-SXM4-80GB"},
                                                 {"8xh20-hgx-nv18-8nic-pix", "H20-96GB"},
                                                 {"8xh20-nv18-5nic-ib-roce-mixed", "H20-96GB"},
                                                 {"8xl4-pcie-2socket-phb-sys", "L4-24GB"},
                                                 {"8xrtx4090-pcie-all-sys-tabs-2nic", "RTX4090-24GB"},
                                                 {"8xrtx4090-pcie-2socket-node-sys", "RTX4090-24GB"},
                                                 {"8xrtxa5000-pcie-switch-pxb-pix-2nic", "RTXA5000-24GB"},
                                                 {"8xrtxa6000-nv4-bridge-pairs-2nic", "RTXA6000-48GB"},
                                                 {"8xv100-dgx1-hybrid-cube-4nic", "V100-SXM2-32GB"}};
  for (const auto& [name, gpu] : boxes) {
    CAPTURE(name);
    std::ifstream in(dir + name + ".txt");
    std::stringstream text;
    text << in.rdbuf();
    const TopoMatrix m = parse_topo_matrix(text.str(), name);
    const std::string xml = (tpsim::test::scratch_dir() / (name + ".xml")).string();
    std::ofstream(xml) << platform_xml(m, gpu_link_spec(gpu));
    Topology topo(load_platform_file(xml), {}, "");
    CollectiveModel cm(topo, {}, nullptr);
    // Slowest time seen per code rank, and fastest: a better code's slowest must beat a worse code's fastest.
    std::map<int, std::pair<double, double>> span;  // rank -> (min, max) time
    for (int a = 0; a < m.gpu_count; ++a)
      for (int b = a + 1; b < m.gpu_count; ++b) {
        const double t = cm.plan(CollectiveOp::all_reduce, 64.0 * 1024 * 1024, {a, b}).time_s();
        auto [it, fresh] = span.emplace(rank_of(m.path(a, b).code), std::pair{t, t});
        if (!fresh) it->second = {std::min(it->second.first, t), std::max(it->second.second, t)};
      }
    for (auto it = span.begin(); it != span.end() && std::next(it) != span.end(); ++it) {  // a 1-GPU box has no pair
      CAPTURE(it->first);
      // Never slower for a better code; PIX and PXB pairs can tie (both run at the GPUs' own
      // x16 lanes when the switches above have room: the 8x RTX A5000 box).
      CHECK(it->second.second <= std::next(it)->second.first);
    }
    std::filesystem::remove(xml);
  }
}

TEST_CASE("2-rank all-reduce: an NV12 pair against a SYS pair shows the textbook's gap") {
  // Design exercise box: GPU0-GPU1 NV12 (300 GB/s wire, 80% of it for NCCL's rings: 240 GB/s),
  // GPU0-GPU2 across sockets, staged through host memory over 24 GB/s PCIe lanes. A 33.6 MB
  // all-reduce (a 4096-token prefill) moves S per rank: on NVLink, direct/Simple: NCCL's base
  // 8.4 us + 2 steps x 8.8 us (a Simple NVLink step) + 33.6 MB / 240 GB/s = 166 us; over SYS, PCIe at a third: ~4 ms.
  Topology topo(load_platform_file(std::string(TPSIM_SOURCE_DIR) + "/platforms/4gpu_nv12_sys.xml"), {}, "");
  CollectiveModel cm(topo, {}, nullptr);
  const double S = 4096.0 * 4096 * 2;
  const double nv = cm.plan(CollectiveOp::all_reduce, S, {0, 1}).time_s(), sys = cm.plan(CollectiveOp::all_reduce, S, {0, 2}).time_s();
  CHECK(nv == doctest::Approx(8.4e-6 + 2 * 8.8e-6 + S / (0.8 * 300e9)).scale(0).epsilon(0.001));
  CHECK(sys / nv > 10);
}

TEST_CASE("a ring of GPUs below one PCIe switch runs at their lanes: the switch's crossbar is non-blocking") {
  // 4 GPUs, every pair PIX (one switch, as the 4x V100 PCIe with bus IDs 3d-40 of
  // tests/data/measured/nccl/4x-v100-pcie-one-switch-*.log). Each GPU's lane carries one ring flow
  // each way, the crossbar 4 (2 x 4 members x 12 GB/s Gen3 lanes, never binding): a large all-reduce's
  // bus bandwidth is the lane's 12 GB/s. (With the switch's uplink standing for the crossbar, 2 x 12
  // GB/s shared by the ring's 8 flows, it read 6 GB/s; the published runs reach 9.4 and 11.2.)
  const std::string text =
      "        GPU0    GPU1    GPU2    GPU3    CPU Affinity    NUMA Affinity\n"
      "GPU0     X      PIX     PIX     PIX     0-19            0\n"
      "GPU1    PIX      X      PIX     PIX     0-19            0\n"
      "GPU2    PIX     PIX      X      PIX     0-19            0\n"
      "GPU3    PIX     PIX     PIX      X      0-19            0\n";
  const std::string xml = (tpsim::test::scratch_dir() / "4xpix.xml").string();
  std::ofstream(xml) << platform_xml(parse_topo_matrix(text, "4xpix.txt"), gpu_link_spec("V100-PCIe-32GB"));
  Topology topo(load_platform_file(xml), {}, "");
  CollectiveModel cm(topo, {}, nullptr);
  const double S = 1024.0 * 1024 * 1024;
  CHECK(cm.plan(CollectiveOp::all_reduce, S, {0, 1, 2, 3}).busbw_Bps() == doctest::Approx(12e9).scale(0).epsilon(0.002));
  std::filesystem::remove(xml);
}

TEST_CASE("NCCL enables LL128 from Volta (sm_70) on: an NVLink pair of Pascal P100s never runs it") {
  // tuning.cc: pEnable &= !(minCompCap < 70 || ...). The same NV4 pair of V100s has it.
  const TopoMatrix m = parse_topo_matrix("\tGPU0\tGPU1\tCPU Affinity\nGPU0\t X \tNV4\t0-19\nGPU1\tNV4\t X \t0-19\n", "pair");
  for (const auto& [gpu, ll128] : std::map<std::string, bool>{{"P100-SXM2-16GB", false}, {"V100-SXM2-16GB", true}}) {
    CAPTURE(gpu);
    const std::string xml = (tpsim::test::scratch_dir() / "pair.xml").string();
    std::ofstream(xml) << platform_xml(m, gpu_link_spec(gpu));
    Topology topo(load_platform_file(xml), {}, "");
    const CollectiveModel cm(topo, {}, nullptr);
    CHECK(cm.summary(CollectiveOp::all_reduce, {0, 1}).ll128_enabled == ll128);
    std::filesystem::remove(xml);
  }
}
