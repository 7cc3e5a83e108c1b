// NCCL's P2P level follows the CPU vendor (config/p2p_policy.hpp, NCCL paths.cc
// ncclTopoCheckP2p): `tpsim topo import --cpu` writes the vendor, the platform reader validates it
// and p2p_level, and the topology stages or not a pair beyond PXB by the communicator's size.
// Also: `--gpu` accepts the names nvidia-smi prints, and the GPU table's new rows.
#include <doctest/doctest.h>

#include "topo_test_files.hpp"

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../scratch_dir.hpp"
#include "config/gpu_catalog.hpp"
#include "config/p2p_policy.hpp"
#include "config/platform_file.hpp"
#include "model/topology.hpp"
#include "topo/topo_gpu_links.hpp"
#include "topo/topo_matrix.hpp"
#include "topo/topo_platform.hpp"
#include "util/error.hpp"

using namespace tpsim;

namespace {

// The design exercise (NV12 0-1 and 2-3, SYS between the pairs) imported with a CPU vendor.
PlatformDesc exercise(const std::string& cpu_vendor) {
  const std::string name = "4gpu-nv12-pairs-sys-design-exercise.txt";
  const TopoMatrix m = parse_topo_matrix(test::read_topo_text(name), name);
  const auto path = test::scratch_dir() / ("exercise-" + (cpu_vendor.empty() ? std::string("none") : cpu_vendor) + ".xml");
  std::ofstream(path) << platform_xml(m, gpu_link_spec("A100-SXM4-80GB"), cpu_vendor);
  return load_platform_file(path.string());
}

std::string load_error(const std::string& zone_prop) {
  const auto path = test::scratch_dir() / "prop.xml";
  std::ofstream(path) << "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
                         "<platform version=\"4.1\">\n  <zone id=\"box\" routing=\"Full\">\n    "
                      << zone_prop
                      << "\n    <host id=\"gpu0\" speed=\"312Tf\"><prop id=\"gpu_model\" value=\"A100-SXM4-80GB\"/>"
                         "<prop id=\"index\" value=\"0\"/></host>\n  </zone>\n</platform>\n";
  try {
    load_platform_file(path.string());
  } catch (const InputError& e) {
    const std::string msg = e.what();
    return msg.substr(msg.find(':') + 1);  // without the scratch folder's name
  }
  return "no error";
}

}  // namespace

TEST_CASE("NCCL's default P2P level: SYS on AMD for at most 2 GPUs per node, PXB otherwise") {
  // paths.cc: p2pLevel = PATH_PXB; AMD x86 and nodes[GPU].count <= 2 -> PATH_SYS.
  CHECK(nccl_default_p2p_level("amd", 2) == "SYS");
  CHECK(nccl_default_p2p_level("amd", 1) == "SYS");
  CHECK(nccl_default_p2p_level("amd", 3) == "PXB");
  CHECK(nccl_default_p2p_level("intel", 2) == "PXB");
  CHECK(nccl_default_p2p_level("arm", 2) == "PXB");
  CHECK(nccl_default_p2p_level("", 2) == "PXB");  // not said: today's default, Intel's
}

TEST_CASE("NCCL's default P2P level by release: before 2.23 AMD hosts use P2P across SYS at any GPU count") {
  // paths.cc ncclTopoCheckP2p at v2.9.9 ... v2.22.3: p2pLevel = PATH_SYS, lowered to PATH_PXB on ARM,
  // Intel and Zhaoxin only; v2.23.4 on: PATH_PXB, SYS on AMD for nodes[GPU].count <= 2.
  CHECK(nccl_default_p2p_level("amd", 4, "2.22.3") == "SYS");
  CHECK(nccl_default_p2p_level("amd", 8, "2.17") == "SYS");
  CHECK(nccl_default_p2p_level("power", 8, "2.19.3") == "SYS");
  CHECK(nccl_default_p2p_level("amd", 4, "2.23.4") == "PXB");
  CHECK(nccl_default_p2p_level("amd", 4, "") == "PXB");  // no release given: a current one
  CHECK(nccl_default_p2p_level("intel", 4, "2.19.3") == "PXB");
  CHECK(nccl_default_p2p_level("arm", 4, "2.19.3") == "PXB");
  CHECK(nccl_default_p2p_level("zhaoxin", 4, "2.12.12") == "PXB");
  // v2.7.8 and v2.8.4: Intel CPUs other than Broadwell stop at PATH_PHB; not said is Intel.
  CHECK(nccl_default_p2p_level("intel", 4, "2.8.3+cuda11.1") == "PHB");
  CHECK(nccl_default_p2p_level("", 4, "2.8.4") == "PHB");
  CHECK(nccl_default_p2p_level("amd", 4, "2.8.4") == "SYS");
  CHECK(describe_p2p_default("amd", "2.17") == "SYS at any GPU count (NCCL's default on amd CPUs in NCCL 2.17, before 2.23)");
  CHECK(describe_p2p_default("amd", "2.26.2") ==
        "SYS for communicators of up to 2 GPUs per node, PXB beyond (NCCL's default on AMD CPUs in NCCL 2.26.2)");
  // No release given (tpsim topo show): the current rule, and what the releases before it did.
  CHECK(describe_p2p_default("amd") ==
        "SYS for communicators of up to 2 GPUs per node, PXB beyond (NCCL's default on AMD CPUs from 2.23; 2.9-2.22: SYS at any GPU count)");
  CHECK(describe_p2p_default("", "2.8.4") ==
        "PHB at any GPU count (the platform does not say its cpu_vendor: Intel's default in NCCL 2.8.4 assumed)");
}

TEST_CASE("the topology follows the release's P2P rule: a 4-GPU group on AMD across SYS runs P2P before 2.23") {
  const PlatformDesc amd = exercise("amd");
  CHECK_FALSE(Topology(amd, {}, "", "2.17").path(1, 2, 4).staged);
  CHECK(Topology(amd, {}, "", "2.23.4").path(1, 2, 4).staged);
  CHECK(Topology(exercise("intel"), {}, "", "2.17").path(1, 2, 4).staged);
  // Not said: Intel's level, and the note says that an AMD host of this release would run P2P.
  const Topology unknown(exercise(""), {}, "", "2.17");
  CHECK(unknown.path(1, 2, 4).staged);
  CHECK(unknown.p2p_default_note({0, 1, 2, 3}) ==
        "the platform does not say its CPU vendor (zone property cpu_vendor): NCCL's P2P level is assumed PXB, as on "
        "Intel, so GPU 0 - GPU 2 (SYS) is staged through host memory; on an AMD host NCCL 2.17 uses P2P across SYS at "
        "any GPU count (paths.cc ncclTopoCheckP2p)");
  CHECK(describe_p2p_default("", "2.17") == "PXB at any GPU count (the platform does not say its cpu_vendor: Intel's default in NCCL 2.17 assumed)");
}

TEST_CASE("without a release, a group the release decides says so: AMD, more than 2 GPUs a node, beyond PXB") {
  const PlatformDesc amd = exercise("amd");
  const Topology current(amd, {}, "");
  CHECK(current.p2p_default_note({0, 1, 2, 3}) ==
        "GPU 0 - GPU 2 (SYS) is staged through host memory, as NCCL 2.23 and later do on amd hosts for a communicator of 4 GPUs "
        "a node (tpsim simulates a current NCCL); NCCL 2.9-2.22 run it P2P (paths.cc ncclTopoCheckP2p): give "
        "collectives.nccl_version (tpsim collective --nccl-version) for the release the engine ships");
  CHECK(current.p2p_default_note({1, 2}).empty());                   // 2 GPUs: P2P in every release
  CHECK(current.p2p_default_note({0, 1}).empty());                   // NVLink
  CHECK(Topology(amd, {}, "", "2.26.2").p2p_default_note({0, 1, 2, 3}).empty());  // the release is given
  CHECK(Topology(amd, {}, "PXB").p2p_default_note({0, 1, 2, 3}).empty());         // the level is given
  CHECK(Topology(exercise("intel"), {}, "").p2p_default_note({0, 1, 2, 3}).empty());  // Intel: PXB in every release
}

TEST_CASE("topo import --cpu writes cpu_vendor and the SYS pair follows NCCL's rule") {
  const PlatformDesc amd = exercise("amd");
  CHECK(amd.cpu_vendor == "amd");
  CHECK(amd.p2p_level.empty());
  const Topology on_amd(amd, {}, "");
  // GPU1-GPU2 is SYS: P2P for a 2-GPU communicator on AMD, staged for the whole box (4 GPUs).
  CHECK(on_amd.path(1, 2, 2).path_class == PathClass::SYS);
  CHECK_FALSE(on_amd.path(1, 2, 2).staged);
  CHECK(on_amd.path(1, 2, 4).staged);
  CHECK(on_amd.path(1, 2).staged);  // without a group size: every GPU of the node
  CHECK(on_amd.p2p_default_note({1, 2}).empty());

  const Topology on_intel(exercise("intel"), {}, "");
  CHECK(on_intel.path(1, 2, 2).staged);
  CHECK(on_intel.p2p_default_note({1, 2}).empty());

  // Not said: Intel's PXB, and the run says what it assumed where it matters (a 2-GPU group
  // across SYS); an NVLink pair or a 4-GPU group is the same on both vendors: no note.
  const Topology unknown(exercise(""), {}, "");
  CHECK(unknown.path(1, 2, 2).staged);
  CHECK(unknown.p2p_default_note({1, 2}) ==
        "the platform does not say its CPU vendor (zone property cpu_vendor): NCCL's P2P level is assumed PXB, as on "
        "Intel, so GPU 1 - GPU 2 (SYS) is staged through host memory; on an AMD host NCCL uses P2P across SYS for a "
        "communicator of at most 2 GPUs per node (paths.cc ncclTopoCheckP2p)");
  CHECK(unknown.p2p_default_note({0, 1}).empty());
  CHECK(unknown.p2p_default_note({0, 1, 2, 3}).empty());

  // An explicit level (scenario or platform) wins over the vendor: NCCL_P2P_LEVEL.
  const Topology forced(amd, {}, "PXB");
  CHECK(forced.path(1, 2, 2).staged);
  CHECK(Topology(amd, {}, "OFF").path(0, 1, 2).staged);  // p2p: off stages even NVLink
}

TEST_CASE("p2p_level, cpu_vendor and net_transport are validated with a located error and a did-you-mean") {
  CHECK(load_error("<prop id=\"p2p_level\" value=\"PXBB\"/>") ==
        "5:6: error: p2p_level 'PXBB' is not one of NVL, PIX, PXB, PHB or SYS; did you mean 'PXB'?");
  CHECK(load_error("<prop id=\"p2p_level\" value=\"NODE\"/>") ==
        "5:6: error: p2p_level 'NODE' is not one of NVL, PIX, PXB, PHB or SYS");
  CHECK(load_error("<prop id=\"cpu_vendor\" value=\"amdd\"/>") ==
        "5:6: error: cpu_vendor 'amdd' is not one of amd, intel, arm, power or zhaoxin; did you mean 'amd'?");
  CHECK(load_error("<prop id=\"cpu_vendor\" value=\"intel\"/>") == "no error");
  CHECK(load_error("<prop id=\"net_transport\" value=\"tcpx\"/>") ==
        "5:6: error: net_transport 'tcpx' is not one of rdma, tcp, efa or cxi; did you mean 'tcp'?");
  CHECK(load_error("<prop id=\"net_transport\" value=\"tcp\"/>") == "no error");
}

TEST_CASE("--gpu takes the names nvidia-smi prints, case-insensitively") {
  // nvidia-smi --query-gpu=name -> tpsim's row.
  CHECK(gpu_link_spec("NVIDIA A100 80GB PCIe").gpu_model == "A100-PCIe-80GB");
  CHECK(gpu_link_spec("Tesla V100-SXM2-32GB").gpu_model == "V100-SXM2-32GB");
  CHECK(gpu_link_spec("NVIDIA GeForce RTX 4090").gpu_model == "RTX4090-24GB");
  CHECK(gpu_link_spec("NVIDIA A40").gpu_model == "A40-48GB");
  CHECK(gpu_link_spec("NVIDIA H100 80GB HBM3").gpu_model == "H100-SXM5-80GB");
  CHECK(gpu_link_spec("nvidia l40s").gpu_model == "L40S-48GB");
  CHECK(gpu_link_spec("a100-sxm4-80gb").gpu_model == "A100-SXM4-80GB");  // tpsim's own, any case
  CHECK(normalise_gpu_name("NVIDIA GeForce RTX 2080 Ti") == "rtx2080ti");
  // An unknown name's hint is the nearest normalised name, never an unrelated one.
  CHECK_THROWS_WITH_AS(gpu_link_spec("Tesla V100-SXM2-16G"),
                       "unknown GPU model 'Tesla V100-SXM2-16G'; did you mean 'V100-SXM2-16GB'?", ValueError);
  // A GPU the table lacks is not offered its neighbour by number (the RTX 3070 is not the 3080 or 3090): the
  // message lists the models the table has instead.
  std::string known;
  for (const auto& name : gpu_names()) known += (known.empty() ? "" : ", ") + name;
  CHECK_THROWS_WITH_AS(gpu_link_spec("NVIDIA GeForce RTX 3070"),
                       ("unknown GPU model 'NVIDIA GeForce RTX 3070'; known models (by these names, or the names nvidia-smi prints for them): " + known).c_str(), ValueError);
}

TEST_CASE("GPU table rows from datasheets: A40 and L40") {
  // A40 datasheet: 48 GB GDDR6 at 696 GB/s, BF16 149.7 TFLOPS dense, NVLink bridge 112.5 GB/s
  // both ways over 4 links -> 14.0625 GB/s per link and direction.
  const GpuSpec& a40 = *find_gpu("A40-48GB");
  CHECK(a40.hbm_peak_Bps == doctest::Approx(696e9).scale(0));
  CHECK(a40.bf16_peak_flops == doctest::Approx(149.7e12).scale(0));
  CHECK(gpu_link_spec("A40-48GB").nvlink_bw_Bps * 4 * 2 == doctest::Approx(112.5e9).scale(0));
  // L40 datasheet: 864 GB/s, BF16 181.05 TFLOPS dense, no NVLink, PCIe Gen4 (24 GB/s achievable).
  const GpuSpec& l40 = *find_gpu("L40-48GB");
  CHECK(l40.bf16_peak_flops == doctest::Approx(181.05e12).scale(0));
  CHECK(gpu_link_spec("L40-48GB").nvlinks_per_gpu == 0);
  CHECK(gpu_link_spec("L40-48GB").pcie_bw_Bps == doctest::Approx(24e9).scale(0));
}
