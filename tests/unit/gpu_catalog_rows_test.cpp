// The GPU table's rows for multi-GPU boxes (issue 11): each resolves from the name
// `nvidia-smi --query-gpu=name` prints, in any case; a near misspelling names a near GPU; every
// row says where its figures come from and its figures are physically ordered. Sources of each
// figure: the comments next to the rows in sim/config/gpu_catalog.cpp.
#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <string>
#include <utility>
#include <vector>

#include "config/gpu_catalog.hpp"
#include "topo/topo_gpu_links.hpp"
#include "util/error.hpp"

using namespace tpsim;

namespace {

// nvidia-smi's spelling -> tpsim's row (where each spelling was seen: gpu_catalog.cpp smi_names()).
const std::vector<std::pair<std::string, std::string>> kIssue11Rows = {
    {"NVIDIA L20", "L20-48GB"},
    {"NVIDIA A30", "A30-24GB"},
    {"NVIDIA A800-SXM4-80GB", "A800-SXM4-80GB"},
    {"NVIDIA A800 80GB PCIe", "A800-PCIe-80GB"},
    {"NVIDIA H800", "H800-SXM5-80GB"},
    {"NVIDIA GeForce RTX 3090", "RTX3090-24GB"},
    {"NVIDIA RTX 6000 Ada Generation", "RTX6000Ada-48GB"},
    {"NVIDIA RTX PRO 6000 Blackwell Workstation Edition", "RTXPRO6000-WS-96GB"},
    {"NVIDIA RTX PRO 6000 Blackwell Server Edition", "RTXPRO6000-Server-96GB"},
    {"Tesla V100-SXM2-16GB", "V100-SXM2-16GB"},
    {"Tesla V100-SXM3-32GB", "V100-SXM3-32GB"},
    {"NVIDIA B300 SXM6 AC", "B300-SXM-288GB"},
    {"NVIDIA GB200", "GB200-185GB"},
    {"NVIDIA GB300", "GB300-278GB"},
    {"NVIDIA GeForce RTX 5080", "RTX5080-16GB"},
    {"NVIDIA GeForce RTX 5070 Ti", "RTX5070Ti-16GB"},
    {"NVIDIA GeForce RTX 5070", "RTX5070-12GB"},
    {"NVIDIA GeForce RTX 5060 Ti", "RTX5060Ti-16GB"},
    {"NVIDIA RTX A4000", "RTXA4000-16GB"},
    {"NVIDIA A10G", "A10G-24GB"},
    {"NVIDIA A100-PCIE-40GB", "A100-PCIe-40GB"},
    {"Tesla V100-PCIE-16GB", "V100-PCIe-16GB"},
    {"Tesla V100-PCIE-32GB", "V100-PCIe-32GB"},
};

// Session 31's boards (sim/config/gpu_catalog_boards.cpp), nvidia-smi's spelling -> tpsim's row; old
// drivers print TITAN and GeForce boards without "NVIDIA " (stored file ids 2492035710, 1250847716).
const std::vector<std::pair<std::string, std::string>> kMoreBoards = {
    {"Quadro RTX 8000", "QuadroRTX8000-48GB"},
    {"Quadro RTX 6000", "QuadroRTX6000-24GB"},
    {"NVIDIA TITAN RTX", "TITANRTX-24GB"},
    {"TITAN RTX", "TITANRTX-24GB"},
    {"NVIDIA TITAN V", "TITANV-12GB"},
    {"TITAN V", "TITANV-12GB"},
    {"NVIDIA GeForce RTX 3060", "RTX3060-12GB"},
    {"NVIDIA GeForce RTX 3080", "RTX3080-10GB"},
    {"NVIDIA GeForce RTX 3080 Ti", "RTX3080Ti-12GB"},
    {"NVIDIA GeForce RTX 3090 Ti", "RTX3090Ti-24GB"},
    {"NVIDIA GeForce RTX 4060 Ti", "RTX4060Ti-16GB"},
    {"NVIDIA GeForce RTX 4070 Ti SUPER", "RTX4070TiSuper-16GB"},
    {"NVIDIA GeForce RTX 4080", "RTX4080-16GB"},
    {"NVIDIA GeForce RTX 4080 SUPER", "RTX4080Super-16GB"},
    {"NVIDIA RTX A4500", "RTXA4500-20GB"},
    {"NVIDIA RTX A5500", "RTXA5500-24GB"},
    {"NVIDIA RTX 4500 Ada Generation", "RTX4500Ada-24GB"},
    {"NVIDIA RTX 5000 Ada Generation", "RTX5000Ada-32GB"},
    {"NVIDIA A16", "A16-16GB"},
    {"NVIDIA H200 NVL", "H200-NVL-141GB"},
    {"Tesla P4", "P4-8GB"},
    {"NVIDIA GeForce GTX 1080 Ti", "GTX1080Ti-11GB"},
    {"NVIDIA TITAN Xp", "TITANXp-12GB"},
};

std::string upper(std::string s) {
  for (char& c : s) c = char(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string resolved(const std::string& name) {
  const GpuSpec* g = find_gpu_any_name(name);
  return g ? g->name : "(unknown)";
}

}  // namespace

TEST_CASE("GPU table: every issue-11 row and session-31 board resolves from its nvidia-smi name, in any case") {
  for (const auto* rows : {&kIssue11Rows, &kMoreBoards})
    for (const auto& [smi, row] : *rows) {
      CAPTURE(smi);
      REQUIRE(find_gpu(row) != nullptr);
      CHECK(resolved(smi) == row);
      CHECK(resolved(upper(smi)) == row);
      CHECK(resolved(lower(smi)) == row);
      CHECK(resolved(lower(row)) == row);  // tpsim's own name, any case
      CHECK(gpu_link_spec(smi).gpu_model == row);
    }
  // Same chip, other board: the H200 NVL is not the SXM H200, the 4080 SUPER not the 4080.
  CHECK(resolved("NVIDIA H200") == "H200-SXM-141GB");
  CHECK(resolved("NVIDIA GeForce RTX 4080") != resolved("NVIDIA GeForce RTX 4080 SUPER"));
}

TEST_CASE("GPU table: session-31 datasheet figures and their arithmetic") {
  // Dense tensor peaks the sources do not print: tensor cores x boost clock x FLOP per core per clock,
  // 128 on GeForce Ampere/Ada (FP32 accumulate at half rate), 256 on workstation Ampere/Ada.
  auto tflops = [](const char* gpu) { return find_gpu(gpu)->bf16_peak_flops / 1e12; };
  CHECK(tflops("RTX3060-12GB") == doctest::Approx(112 * 1.777 * 128 / 1e3).scale(0).epsilon(0.002));
  CHECK(tflops("RTX3080-10GB") == doctest::Approx(272 * 1.71 * 128 / 1e3).scale(0).epsilon(0.002));
  CHECK(tflops("RTX3080Ti-12GB") == doctest::Approx(320 * 1.665 * 128 / 1e3).scale(0).epsilon(0.002));
  CHECK(tflops("RTX3090Ti-24GB") == doctest::Approx(336 * 1.86 * 128 / 1e3).scale(0).epsilon(0.002));    // llm.c's 80
  CHECK(tflops("RTX4060Ti-16GB") == doctest::Approx(136 * 2.535 * 128 / 1e3).scale(0).epsilon(0.002));
  CHECK(tflops("RTX4070TiSuper-16GB") == doctest::Approx(264 * 2.61 * 128 / 1e3).scale(0).epsilon(0.002));
  CHECK(tflops("RTX4080-16GB") == doctest::Approx(304 * 2.505 * 128 / 1e3).scale(0).epsilon(0.002));     // printed 97.5
  CHECK(tflops("RTX4080Super-16GB") == doctest::Approx(320 * 2.55 * 128 / 1e3).scale(0).epsilon(0.002));
  CHECK(tflops("RTXA4500-20GB") == doctest::Approx(189.2 / 2).scale(0));                                   // sparse / 2
  CHECK(tflops("RTXA5500-24GB") == doctest::Approx(320 * 1.665 * 256 / 1e3).scale(0).epsilon(0.002));
  CHECK(tflops("RTX4500Ada-24GB") == doctest::Approx(240 * 2.58 * 256 / 1e3).scale(0).epsilon(0.002));
  CHECK(tflops("RTX5000Ada-32GB") == doctest::Approx(1044.4 / 4).scale(0));       // FP8 sparse / 2 / 2
  CHECK(find_gpu("RTX5000Ada-32GB")->fp8_peak_flops == doctest::Approx(1044.4e12 / 2).scale(0));
  for (const char* ada : {"RTX4060Ti-16GB", "RTX4070TiSuper-16GB", "RTX4080-16GB", "RTX4080Super-16GB", "RTX4500Ada-24GB"})
    CHECK_MESSAGE(find_gpu(ada)->fp8_peak_flops == doctest::Approx(2 * find_gpu(ada)->bf16_peak_flops).scale(0).epsilon(0.002), ada);
  CHECK(find_gpu("H200-NVL-141GB")->fp8_peak_flops == doctest::Approx(3341e12 / 2).scale(0));
  CHECK(find_gpu("H200-NVL-141GB")->hbm_peak_Bps == doctest::Approx(4.8e12).scale(0));
  // Turing: 130.5 FP16 tensor TFLOPS with FP32 accumulate (no bf16); Pascal: the FP32 peak (FP16 at 1/64).
  for (const char* turing : {"QuadroRTX8000-48GB", "QuadroRTX6000-24GB", "TITANRTX-24GB"}) CHECK(tflops(turing) == doctest::Approx(130.5).scale(0));
  CHECK(tflops("GTX1080Ti-11GB") == doctest::Approx(11.3).scale(0));
  // Consumer boards: no PCIe P2P on the stock driver; workstation and data-center boards: P2P.
  for (const char* consumer : {"TITANRTX-24GB", "TITANV-12GB", "RTX3060-12GB", "RTX3090Ti-24GB", "RTX4080-16GB", "GTX1080Ti-11GB", "TITANXp-12GB"})
    CHECK_MESSAGE(!find_gpu(consumer)->pcie_p2p, consumer);
  for (const char* pro : {"QuadroRTX8000-48GB", "RTXA5500-24GB", "RTX5000Ada-32GB", "A16-16GB", "H200-NVL-141GB", "P4-8GB"})
    CHECK_MESSAGE(find_gpu(pro)->pcie_p2p, pro);
  for (const auto& [smi, row] : kMoreBoards) CHECK_MESSAGE(find_gpu(row)->source.find("derived") != std::string::npos, row);
}

TEST_CASE("GPU table: a near misspelling of an nvidia-smi name hints the near GPU") {
  // "PCle" (lower-case L for I) is one edit from the A800 PCIe's normalised name, two from the A100 PCIe's.
  CHECK(gpu_name_hint("A800 80GB PCle") == "; did you mean 'A800-PCIe-80GB' (nvidia-smi: NVIDIA A800 80GB PCIe)?");
  CHECK(gpu_name_hint("NVIDIA B300 SXM6") == "; did you mean 'B300-SXM-288GB' (nvidia-smi: NVIDIA B300 SXM6 AC)?");
  // The Max-Q edition (300 W) is a row of its own, by the name nvidia-smi prints.
  REQUIRE(find_gpu_any_name("NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition"));
  CHECK(find_gpu_any_name("NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition")->name == "RTXPRO6000-MaxQ-96GB");
  // Words left out: the models with the same numbers whose names hold the rest in order (a published
  // matrix's prose named its GPUs so): one, named with its nvidia-smi name; several, listed.
  CHECK(gpu_name_hint("RTX Pro 6000 Server") == "; did you mean 'RTXPRO6000-Server-96GB'?");
  CHECK(gpu_name_hint("RTX Pro 6000 Workstation") == "; did you mean one of 'RTXPRO6000-WS-96GB', 'RTXPRO6000-MaxQ-96GB'?");
  CHECK(gpu_name_hint("NVIDIA RTX 6000 Ada Generaton") ==
        "; did you mean 'RTX6000Ada-48GB' (nvidia-smi: NVIDIA RTX 6000 Ada Generation)?");
  // A name cut short (the "B" of 16GB lost) is one edit from the V100 PCIe 16GB's normalised names, two from
  // its 32GB sibling's.
  CHECK_THROWS_WITH_AS(gpu_link_spec("Tesla V100-PCIE-16G"),
                       "unknown GPU model 'Tesla V100-PCIE-16G'; did you mean 'V100-PCIe-16GB'?", ValueError);
}

TEST_CASE("GPU table: a short name several models contain hints those models, not a near other GPU") {
  // "h100" is part of three models' normalised names (and of their nvidia-smi names); by edit distance
  // alone it would be one edit from "h200", another GPU.
  CHECK(gpu_name_hint("H100") == "; did you mean one of 'H100-SXM5-80GB', 'H100-PCIe-80GB', 'H100-NVL-94GB'?");
  CHECK(gpu_name_hint("NVIDIA H100 SXM5") == "; did you mean 'H100-SXM5-80GB'?");  // "h100sxm5" in "h100sxm580gb"
  CHECK(gpu_name_hint("RTX2080") == "; did you mean 'RTX2080Ti-11GB'?");          // not the RTX 5080, one edit away
  // A name the table lacks gets no near other GPU (the caller then lists the models): a suggestion needs
  // the same model numbers and at most one edit in four characters.
  CHECK(gpu_name_hint("Tesla M60") == "");                // "m60": two edits from "h20"
  CHECK(gpu_name_hint("NVIDIA GB10") == "");              // "gb10": two edits from "a10", 4 characters
  CHECK(gpu_name_hint("NVIDIA GeForce GTX 1070") == "");  // "gtx1070": not the RTX 5070
  CHECK(gpu_name_hint("NVIDIA RTX 4000 Ada Generation") == "");  // no row (its bandwidth was not found): not the 4500 Ada
  CHECK(gpu_name_hint("H100 80GB HMB3") == "; did you mean 'H100-SXM5-80GB' (nvidia-smi: NVIDIA H100 80GB HBM3)?");
}

TEST_CASE("GPU table: every row has a source and physically ordered figures") {
  for (const GpuSpec& g : gpu_catalog()) {
    CAPTURE(g.name);
    CHECK_FALSE(g.source.empty());
    CHECK(g.compute_capability >= 37);  // Kepler GK210 (K80), the oldest GPU CUDA 11 and NCCL 2 still ran on
    CHECK(g.memory_B > 0);
    CHECK(g.bf16_peak_flops > 0);                              // the host speed of an imported platform
    if (g.fp8_peak_flops > 0) CHECK(g.fp8_peak_flops >= g.bf16_peak_flops);
    CHECK(g.hbm_achievable_Bps > 0);
    CHECK(g.hbm_achievable_Bps <= g.hbm_peak_Bps);             // achievable <= datasheet peak
    CHECK(g.matmul_efficiency > 0);
    CHECK(g.matmul_efficiency <= 1);
    CHECK((g.nvlink_generation > 0) == (g.nvlinks_per_gpu > 0));
    if (g.nvlink_link_Bps > 0) CHECK(g.nvlinks_per_gpu > 0);
    CHECK(g.graph_kernel_s <= g.kernel_launch_s);
  }
  // Names are unique, also after normalising (find_gpu_any_name compares normalised forms).
  std::vector<std::string> keys;
  for (const GpuSpec& g : gpu_catalog()) keys.push_back(normalise_gpu_name(g.name));
  std::sort(keys.begin(), keys.end());
  CHECK(std::adjacent_find(keys.begin(), keys.end()) == keys.end());
}

TEST_CASE("GPU table: NVLink of the issue-11 rows adds up to the published totals") {
  // Per link and direction: NVLink2-4 25 GB/s, NVLink5 50 GB/s (topo_gpu_links.hpp); a total is
  // links x per-link x 2 directions.
  auto both_ways = [](const std::string& gpu) {
    const GpuLinkSpec s = gpu_link_spec(gpu);
    return s.nvlinks_per_gpu * s.nvlink_bw_Bps * 2;
  };
  CHECK(both_ways("A800-SXM4-80GB") == doctest::Approx(400e9).scale(0));   // A800: NVLink cut from 600 to 400 GB/s: 8 x 25 x 2
  CHECK(both_ways("A800-PCIe-80GB") == doctest::Approx(400e9).scale(0));
  CHECK(both_ways("H800-SXM5-80GB") == doctest::Approx(400e9).scale(0));   // H800: 900 -> 400 GB/s, 8 NVLink4 links
  CHECK(both_ways("B300-SXM-288GB") == doctest::Approx(1.8e12).scale(0));  // 18 x 50 x 2
  CHECK(both_ways("GB200-185GB") == doctest::Approx(1.8e12).scale(0));     // 18 x 50 x 2: NVLink 5's 1.8 TB/s
  CHECK(both_ways("GB300-278GB") == doctest::Approx(1.8e12).scale(0));     // 18 x 50 x 2, as GB200
  CHECK(both_ways("V100-SXM2-16GB") == doctest::Approx(300e9).scale(0));   // 6 x 25 x 2
  CHECK(both_ways("V100-SXM3-32GB") == doctest::Approx(300e9).scale(0));
  CHECK(both_ways("RTX3090-24GB") == doctest::Approx(112.5e9).scale(0));   // the GA102 bridge, as the RTX A6000
  CHECK_FALSE(gpu_link_spec("RTX3090-24GB").p2p);                 // GeForce: no PCIe P2P
  // A30: the NV4 a published matrix prints between bridged A30s, NVLink 3's 25 GB/s a link: 4 x 25 x 2 (derived).
  CHECK(both_ways("A30-24GB") == doctest::Approx(200e9).scale(0));
  // Session 31: TU102's two NVLink2 x8 links, 25 GB/s each way: 100 GB/s; GA102's bridge 112.5 GB/s; the
  // H200 NVL's bridge 900 GB/s per GPU = 18 NVLink4 links.
  for (const char* tu102 : {"QuadroRTX8000-48GB", "QuadroRTX6000-24GB", "TITANRTX-24GB"})
    CHECK(both_ways(tu102) == doctest::Approx(100e9).scale(0));
  for (const char* ga102 : {"RTX3090Ti-24GB", "RTXA4500-20GB", "RTXA5500-24GB"}) CHECK(both_ways(ga102) == doctest::Approx(112.5e9).scale(0));
  CHECK(both_ways("H200-NVL-141GB") == doctest::Approx(900e9).scale(0));
  for (const char* pcie_only : {"RTX4080-16GB", "RTX5000Ada-32GB", "A16-16GB", "TITANV-12GB"})
    CHECK(gpu_link_spec(pcie_only).nvlinks_per_gpu == 0);
  for (const char* pcie_only : {"L20-48GB", "RTX6000Ada-48GB", "RTXPRO6000-WS-96GB", "RTXPRO6000-Server-96GB"})
    CHECK(gpu_link_spec(pcie_only).nvlinks_per_gpu == 0);
}

TEST_CASE("GPU table: issue-11 datasheet figures") {
  // Each number is the one its comment in gpu_catalog.cpp cites (dense, no sparsity).
  CHECK(find_gpu("A30-24GB")->hbm_peak_Bps == doctest::Approx(933e9).scale(0));
  CHECK(find_gpu("A30-24GB")->bf16_peak_flops == doctest::Approx(165e12).scale(0));
  CHECK(find_gpu("L20-48GB")->bf16_peak_flops == doctest::Approx(119.5e12).scale(0));
  CHECK(find_gpu("L20-48GB")->fp8_peak_flops == 0);                        // not found: left 0
  CHECK(find_gpu("H800-SXM5-80GB")->fp8_peak_flops == doctest::Approx(1979e12).scale(0));  // 3958 sparse / 2
  CHECK(find_gpu("RTX3090-24GB")->bf16_peak_flops == doctest::Approx(71e12).scale(0));
  CHECK(find_gpu("RTX6000Ada-48GB")->fp8_peak_flops == doctest::Approx(728e12).scale(0));  // datasheet 1457 sparse
  CHECK(find_gpu("RTXPRO6000-WS-96GB")->hbm_peak_Bps == doctest::Approx(1792e9).scale(0));
  CHECK(find_gpu("B300-SXM-288GB")->memory_B == doctest::Approx(288e9).scale(0));
  // GB200 at 1200 W: 2500 dense BF16, 5000 FP8 TFLOPS, 8 TB/s; nvidia-smi prints 189471 MiB.
  CHECK(find_gpu("GB200-185GB")->bf16_peak_flops == doctest::Approx(2500e12).scale(0));
  CHECK(find_gpu("GB200-185GB")->fp8_peak_flops == doctest::Approx(5000e12).scale(0));
  CHECK(find_gpu("GB200-185GB")->memory_B == doctest::Approx(189471.0 * 1024 * 1024).scale(0));
  CHECK(find_gpu("GB200-185GB")->compute_capability == 100);
  // GB300: the NVL72 rack's 360 PFLOPS BF16 with sparsity / 72 GPUs / 2 = 2500 TFLOPS; nvidia-smi prints 284208 MiB.
  CHECK(find_gpu("GB300-278GB")->bf16_peak_flops == doctest::Approx(360e15 / 72 / 2).scale(0));
  CHECK(find_gpu("GB300-278GB")->memory_B == doctest::Approx(284208.0 * 1024 * 1024).scale(0));
  CHECK(find_gpu("GB300-278GB")->compute_capability == 103);
  // GeForce Blackwell dense BF16 (FP32 accumulate) = AI TOPS (FP4, sparse) / 16: 1801/16, 1406/16, 759/16;
  // the 5070's 988/16 = 61.75 is the whitepaper's 61.7.
  CHECK(find_gpu("RTX5080-16GB")->bf16_peak_flops == doctest::Approx(1801e12 / 16).scale(0).epsilon(0.001));
  CHECK(find_gpu("RTX5070Ti-16GB")->bf16_peak_flops == doctest::Approx(1406e12 / 16).scale(0).epsilon(0.001));
  CHECK(find_gpu("RTX5070-12GB")->bf16_peak_flops == doctest::Approx(988e12 / 16).scale(0).epsilon(0.001));
  CHECK(find_gpu("RTX5060Ti-16GB")->bf16_peak_flops == doctest::Approx(759e12 / 16).scale(0).epsilon(0.001));
  for (const char* geforce : {"RTX5080-16GB", "RTX5070Ti-16GB", "RTX5070-12GB", "RTX5060Ti-16GB"})
    CHECK_MESSAGE(!find_gpu(geforce)->pcie_p2p, geforce);  // stock driver: no PCIe P2P, as the RTX5090 row
  CHECK(find_gpu("RTXA4000-16GB")->bf16_peak_flops == doctest::Approx(76.7e12).scale(0));  // 153.4 sparse / 2
  CHECK(find_gpu("RTXA4000-16GB")->hbm_peak_Bps == doctest::Approx(448e9).scale(0));
  CHECK(find_gpu("V100-SXM2-16GB")->memory_B == doctest::Approx(16384.0 * 1024 * 1024).scale(0));  // nvidia-smi: 16384 MiB
  // The A800 PCIe's achievable HBM is a measurement on that board (mli/transformers-benchmarks#4).
  CHECK(find_gpu("A800-PCIe-80GB")->hbm_achievable_Bps == doctest::Approx(1727e9).scale(0));
  // Derived rows say so.
  for (const char* derived : {"L20-48GB", "A30-24GB", "A800-SXM4-80GB", "H800-SXM5-80GB", "RTX3090-24GB",
                              "RTX6000Ada-48GB", "RTXPRO6000-WS-96GB", "RTXPRO6000-Server-96GB", "V100-SXM2-16GB",
                              "V100-SXM3-32GB", "B300-SXM-288GB", "GB200-185GB", "RTXA4000-16GB", "GB300-278GB",
                              "RTX5080-16GB", "RTX5070Ti-16GB", "RTX5070-12GB", "RTX5060Ti-16GB"})
    CHECK_MESSAGE(find_gpu(derived)->source.find("derived") != std::string::npos, derived);
}
