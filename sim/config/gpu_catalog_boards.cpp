// More of the boards people put in multi-GPU boxes (session 31): Turing Quadro and TITAN cards, GeForce
// Ampere and Ada below the flagships, RTX A-series and Ada workstation cards, and a few data-center PCIe
// boards. Each figure is cited beside its row (stored file ids are the search tool's index); "D" marks a
// figure derived here, with its arithmetic.
//
// Dense tensor rates the sources do not print are tensor cores x boost clock x FLOP per core per clock:
// 128 for GeForce Ampere and Ada with FP32 accumulate (NVIDIA's whitepaper figures as karpathy/llm.c
// llmc/mfu.h @0e69e3ae carries them: RTX 3090 Ti 80 TFLOPS = 336 x 1.86 GHz x 128; RTX 4090 165.2 =
// 512 x 2.52 x 128), 256 for workstation and data-center Ampere and Ada, which run FP32 accumulate at
// the full rate (A40 datasheet: "Peak BF16 Tensor TFLOPS with FP32 Accumulate 149.7"), FP8 twice the BF16
// rate. The rule gives NVIDIA's printed 97.5 (RTX 4080), 94.6 (RTX A4500) and 261.1 (RTX 5000 Ada).
// Achievable fractions are the GDDR rows' (85% memory, 70% matmul efficiency; derive_board_fractions), derived,
// not measured; a row that states its own keeps them.
// Not added (a figure not found): RTX 4000 Ada (memory bandwidth), A2 (memory bandwidth).
#include "gpu_catalog_boards.hpp"

namespace tpsim {
namespace {
constexpr double GB = 1e9, TF = 1e12, US = 1e-6;
const char* DERIVED = "derived: datasheet with 85% memory and 70% matmul efficiency (as the RTX4090 row)";
}  // namespace

void derive_board_fractions(GpuSpec& g) {
  constexpr double MEMORY_SHARE = 0.85, MATMUL = 0.7;
  if (!g.hbm_achievable_Bps) g.hbm_achievable_Bps = g.hbm_peak_Bps * MEMORY_SHARE;
  if (!g.matmul_efficiency) g.matmul_efficiency = MATMUL;
}

void add_more_boards(std::vector<GpuSpec>& t) {
  const std::string derived = DERIVED;
  const std::vector<GpuSpec> rows{
      // Quadro RTX 8000 / 6000 (TU102): 48 / 24 GB GDDR6, 672 GB/s, 130.5 FP16 tensor TFLOPS with FP16 or FP32
      // accumulate (no bf16), NVLink 100 GB/s, PCIe 3.0 x16 (Leadtek's RTX 8000 page, maychudoanhnghiep.vn; NVIDIA's
      // Turing in-depth blog Table 1, stored file id 61797758042: "two NVLink x8 links each capable of delivering up
      // to 25 Gigabytes/second in each direction"). The passive server RTX 6000 runs 624 GB/s and 119.4 TFLOPS
      // under the same name (Leadtek passive page). Compute capability 7.5.
      {.name = "QuadroRTX8000-48GB", .compute_capability = 75, .memory_B = 48 * GB, .hbm_peak_Bps = 672 * GB, .bf16_peak_flops = 130.5 * TF,
       .nvlink_generation = 2, .nvlinks_per_gpu = 2, .pcie_generation = 3,
       .source = derived + " (fp16 tensor peak, no bf16); NVLink bridge 100 GB/s both ways over 2 links"},
      {.name = "QuadroRTX6000-24GB", .compute_capability = 75, .memory_B = 24 * GB, .hbm_peak_Bps = 672 * GB, .bf16_peak_flops = 130.5 * TF,
       .nvlink_generation = 2, .nvlinks_per_gpu = 2, .pcie_generation = 3,
       .source = derived + " (fp16 tensor peak, no bf16; the passive server board: 624 GB/s, 119.4 TFLOPS); NVLink "
                           "bridge 100 GB/s both ways over 2 links"},
      // TITAN RTX (TU102): 24 GB GDDR6, 672 GB/s, NVLink 100 GB/s (tomshardware.com/news/nvidia-titan-rtx-specs-pricing,
      // dabio.net); 130.5 "Peak FP16 Tensor TFLOPS with FP32 Accumulate" (stored file id 66869711046, citing the
      // GA102 whitepaper); PCIe 3.0 and 2 links as the TU102 Quadro boards (D). TITAN V (GV100): 12 GB HBM2,
      // 653 GB/s (anandtech 12673), 110 tensor TFLOPS FP16 (geektopia.es); its NVLink and PCIe not found (PCIe 3.0
      // as the V100 PCIe, D). Consumer drivers: no PCIe P2P, as the GeForce rows.
      {.name = "TITANRTX-24GB", .compute_capability = 75, .memory_B = 24 * GB, .hbm_peak_Bps = 672 * GB, .bf16_peak_flops = 130.5 * TF,
       .nvlink_generation = 2, .nvlinks_per_gpu = 2, .pcie_generation = 3, .pcie_p2p = false,
       .source = derived + " (fp16 tensor peak, no bf16); NVLink bridge 100 GB/s both ways over 2 links"},
      {.name = "TITANV-12GB", .compute_capability = 70, .memory_B = 12 * GB, .hbm_peak_Bps = 653 * GB, .bf16_peak_flops = 110 * TF,
       .pcie_generation = 3, .pcie_p2p = false,
       .source = derived + " (fp16 tensor peak, no bf16; 85% HBM as the V100 rows); NVLink not found: none modelled"},
      // GeForce Ampere (no NVLink but the 3090 Ti's bridge, PCIe 4.0 x16, compute capability 8.6). RTX 3060: 12 GB,
      // 360 GB/s (guru3d 4060 Ti story's table), 112 TC x 1.777 GHz x 128 = 25.5 TFLOPS (D; the 8 GB board prints the
      // same name). RTX 3080: 10 GB, 760 GB/s (itcreations), 272 x 1.71 x 128 = 59.5 (D). RTX 3080 Ti: 12 GB, 912 GB/s
      // (wccftech; 19 Gbps x 384 bit / 8), 320 x 1.665 x 128 = 68.2 (D). RTX 3090 Ti: 24 GB, 1008 GB/s (tweaktown
      // 84164), 80 TFLOPS (llm.c), NVLink 3.0 x4 (sweclockers 35472), 112.5 GB/s both ways as the RTX 3090.
      {.name = "RTX3060-12GB", .compute_capability = 86, .memory_B = 12 * GB, .hbm_peak_Bps = 360 * GB, .bf16_peak_flops = 25.5 * TF,
       .pcie_generation = 4, .pcie_p2p = false, .source = derived + "; tensor peak from cores x clock"},
      {.name = "RTX3080-10GB", .compute_capability = 86, .memory_B = 10 * GB, .hbm_peak_Bps = 760 * GB, .bf16_peak_flops = 59.5 * TF,
       .pcie_generation = 4, .pcie_p2p = false, .source = derived + "; tensor peak from cores x clock"},
      {.name = "RTX3080Ti-12GB", .compute_capability = 86, .memory_B = 12 * GB, .hbm_peak_Bps = 912 * GB, .bf16_peak_flops = 68.2 * TF,
       .pcie_generation = 4, .pcie_p2p = false, .source = derived + "; tensor peak from cores x clock"},
      {.name = "RTX3090Ti-24GB", .compute_capability = 86, .memory_B = 24 * GB, .hbm_peak_Bps = 1008 * GB, .bf16_peak_flops = 80 * TF,
       .nvlink_generation = 3, .nvlinks_per_gpu = 4, .nvlink_link_Bps = 112.5 * GB / 8, .pcie_generation = 4,
       .pcie_p2p = false, .source = derived + "; NVLink bridge 112.5 GB/s both ways over 4 links"},
      // GeForce Ada (no NVLink, compute capability 8.9; FP8 twice BF16, D). RTX 4060 Ti 16 GB: 288 GB/s, PCIe 4.0 x8
      // (guru3d; cputronic), 136 x 2.535 x 128 = 44.1 (D; the 8 GB board prints the same name). RTX 4070 Ti SUPER:
      // 16 GB, 672 GB/s (VladislavDuma/gpu_specs README, stored file id 11617094636), 264 x 2.61 x 128 = 88.2 (D).
      // RTX 4080: 16 GB, 717 GB/s, 97.5 TFLOPS (holynerdvana's copy of Tom's Hardware's table; llm.c "4080: 304TCs,
      // 2505 GHz; 97.5TFlops"). RTX 4080 SUPER: 16 GB, 736 GB/s (cnews.cz), 320 x 2.55 x 128 = 104.4 (D).
      {.name = "RTX4060Ti-16GB", .compute_capability = 89, .memory_B = 16 * GB, .hbm_peak_Bps = 288 * GB,
       .bf16_peak_flops = 44.1 * TF, .fp8_peak_flops = 88.3 * TF,
       .pcie_generation = 4, .pcie_p2p = false,
       .source = derived + "; tensor peak from cores x clock; PCIe 4.0 x8 modelled as x16"},
      {.name = "RTX4070TiSuper-16GB", .compute_capability = 89, .memory_B = 16 * GB, .hbm_peak_Bps = 672 * GB,
       .bf16_peak_flops = 88.2 * TF, .fp8_peak_flops = 176.4 * TF,
       .pcie_generation = 4, .pcie_p2p = false,
       .source = derived + "; tensor peak from cores x clock"},
      {.name = "RTX4080-16GB", .compute_capability = 89, .memory_B = 16 * GB, .hbm_peak_Bps = 717 * GB,
       .bf16_peak_flops = 97.5 * TF, .fp8_peak_flops = 195 * TF,
       .pcie_generation = 4, .pcie_p2p = false, .source = derived},
      {.name = "RTX4080Super-16GB", .compute_capability = 89, .memory_B = 16 * GB, .hbm_peak_Bps = 736 * GB,
       .bf16_peak_flops = 104.4 * TF, .fp8_peak_flops = 208.9 * TF,
       .pcie_generation = 4, .pcie_p2p = false,
       .source = derived + "; tensor peak from cores x clock"},
      // RTX A4500: 20 GB, 640 GB/s, 189.2 tensor TFLOPS with sparsity (NVIDIA's Chinese datasheet text and cnBeta, as
      // search excerpts; cputronic), 94.6 dense; 2-way NVLink, its rate the GA102 bridge's (D). RTX A5500: 24 GB,
      // 768 GB/s, PCIe 4.0 x16, "112.5 GB/s bidirectional NVLink" (NVIDIA's A5500 datasheet as stored file id
      // 67150829151 quotes it), 320 x 1.665 GHz (34.1 FP32 TFLOPS / 2 / 10240 cores, tomshardware.fr) x 256 = 136.4 (D).
      {.name = "RTXA4500-20GB", .compute_capability = 86, .memory_B = 20 * GB, .hbm_peak_Bps = 640 * GB, .bf16_peak_flops = 94.6 * TF,
       .nvlink_generation = 3, .nvlinks_per_gpu = 4, .nvlink_link_Bps = 112.5 * GB / 8, .pcie_generation = 4,
       .source = derived + " (tensor peak / 2 for sparsity); NVLink bridge 112.5 GB/s both ways over 4 links (GA102's)"},
      {.name = "RTXA5500-24GB", .compute_capability = 86, .memory_B = 24 * GB, .hbm_peak_Bps = 768 * GB, .bf16_peak_flops = 136.4 * TF,
       .nvlink_generation = 3, .nvlinks_per_gpu = 4, .nvlink_link_Bps = 112.5 * GB / 8, .pcie_generation = 4,
       .source = derived + "; tensor peak from cores x clock; NVLink bridge 112.5 GB/s both ways over 4 links"},
      // RTX 4500 Ada: 24 GB, 432 GB/s, PCIe 4.0 x16 (askgeek.io), 240 TC (technicalcity) x 2.58 GHz x 256 = 158.5 (D).
      // RTX 5000 Ada: 32 GB, 576 GB/s, PCIe 4.0 x16, no NVLink, 1044.4 FP8 TFLOPS with sparsity (NVIDIA's datasheet as
      // atineoSE/coding-model-seeks-gpu pipeline/pipeline/sources/rtx5000ada_specs.md @ff052946 copies it): FP8 522.2
      // dense, BF16 261.1.
      {.name = "RTX4500Ada-24GB", .compute_capability = 89, .memory_B = 24 * GB, .hbm_peak_Bps = 432 * GB,
       .bf16_peak_flops = 158.5 * TF, .fp8_peak_flops = 317 * TF,
       .pcie_generation = 4, .source = derived + "; tensor peak from cores x clock"},
      {.name = "RTX5000Ada-32GB", .compute_capability = 89, .memory_B = 32 * GB, .hbm_peak_Bps = 576 * GB,
       .bf16_peak_flops = 261.1 * TF, .fp8_peak_flops = 522.2 * TF,
       .pcie_generation = 4, .source = derived + " (FP8 peak / 2 for sparsity, BF16 half of it)"},
      // A16: four GA107 GPUs on one board, each 16 GB GDDR6 at 200 GB/s and 17.9 FP16 tensor TFLOPS dense ("4 *
      // 16GB", "4 * 200GB/s", "4x 17.9 || 4x 35.9": panchaea.com's copy of the datasheet); the board's PCIe Gen4
      // x16 is shared by its four GPUs (how the lanes split was not found: each GPU's link is modelled as x16).
      {.name = "A16-16GB", .compute_capability = 86, .memory_B = 16 * GB, .hbm_peak_Bps = 200 * GB, .bf16_peak_flops = 17.9 * TF,
       .pcie_generation = 4, .source = derived + " (one GPU of the board; the board's x16 shared by its four GPUs)"},
      // H200 NVL: 141 GB HBM3e, BF16 835.5 and FP8 1670.5 TFLOPS dense (1,671 and 3,341 sparse), 2- or 4-way NVLink
      // bridge at 900 GB/s per GPU, PCIe Gen5 (stored file id 69175192943, a datasheet compilation); 4.8 TB/s on
      // NVIDIA's product page (aiwiki.ai/wiki/nvidia_h200: "141 GB at 4.8 TB/s on its SXM and NVL boards"), 4.2 in
      // that compilation's datasheet column: the product page's is used. 900 GB/s both ways = 18 NVLink4 links.
      {.name = "H200-NVL-141GB", .compute_capability = 90, .memory_B = 141 * GB, .hbm_peak_Bps = 4800 * GB,
       .hbm_achievable_Bps = 4800 * GB * 2495 / 3350, .bf16_peak_flops = 835.5 * TF, .fp8_peak_flops = 1670.5 * TF,
       .matmul_efficiency = 792.1 / 989, .kernel_launch_s = 4 * US, .graph_kernel_s = 0.8 * US, .graph_launch_s = 6 * US,
       .nvlink_generation = 4, .nvlinks_per_gpu = 18, .pcie_generation = 5,
       .source = "derived: H100 SXM achievable fractions applied to the H200 NVL's figures (4.8 TB/s; a datasheet copy "
                 "says 4.2); NVLink: the bridge's 900 GB/s both ways"},
      // Pascal without tensor cores (FP16 at 1/64: the FP32 peak is the faster). Tesla P4: 8 GB, 192 GB/s, 5.5 FP32
      // TFLOPS, PCIe 3.0 x16 (servethehome's copy of NVIDIA's table; techpowerup). GTX 1080 Ti: 11 GB, 484 GB/s,
      // 11.3 TFLOPS (NVIDIA's Turing blog Table 1). TITAN Xp: 12 GB, 547.7 GB/s (techgage), 12.1 TFLOPS (anandtech).
      // PCIe 3.0 for the two GeForce boards as the P40 (D). Compute capability 6.1.
      {.name = "P4-8GB", .compute_capability = 61, .memory_B = 8 * GB, .hbm_peak_Bps = 192 * GB, .bf16_peak_flops = 5.5 * TF,
       .pcie_generation = 3, .source = derived + " (fp32 peak: its fp16 runs at 1/64)"},
      {.name = "GTX1080Ti-11GB", .compute_capability = 61, .memory_B = 11 * GB, .hbm_peak_Bps = 484 * GB, .bf16_peak_flops = 11.3 * TF,
       .pcie_generation = 3, .pcie_p2p = false, .source = derived + " (fp32 peak: its fp16 runs at 1/64)"},
      {.name = "TITANXp-12GB", .compute_capability = 61, .memory_B = 12 * GB, .hbm_peak_Bps = 547.7 * GB, .bf16_peak_flops = 12.1 * TF,
       .pcie_generation = 3, .pcie_p2p = false, .source = derived + " (fp32 peak: its fp16 runs at 1/64)"},
  };
  for (GpuSpec g : rows) {
    derive_board_fractions(g);
    t.push_back(std::move(g));
  }
}

// Where each spelling was seen printed by nvidia-smi or as the CUDA device name (stored file ids of the
// search tool's index; LocalScore: d893a/localscore-insights assets/localscore_results.tsv). Older drivers
// print TITAN and GeForce boards without "NVIDIA ", which normalising drops anyway.
const std::vector<std::pair<std::string, std::string>>& more_board_smi_names() {
  static const std::vector<std::pair<std::string, std::string>> names{
      {"QuadroRTX8000-48GB", "Quadro RTX 8000"},             // nvidia-smi table, stored file id 26439193415
      {"QuadroRTX6000-24GB", "Quadro RTX 6000"},             // `nvidia-smi -L`, stored file id 22335730907
      {"TITANRTX-24GB", "NVIDIA TITAN RTX"},                 // nvidia-smi tables, stored file ids 17460711687, 2492035710
      {"TITANV-12GB", "NVIDIA TITAN V"},                     // LocalScore; "TITAN V", stored file id 1250847716
      {"RTX3060-12GB", "NVIDIA GeForce RTX 3060"},           // `nvidia-smi -L`, stored file id 53149322886
      {"RTX3080-10GB", "NVIDIA GeForce RTX 3080"},           // stored file id 54101348966
      {"RTX3080Ti-12GB", "NVIDIA GeForce RTX 3080 Ti"},      // stored file id 13196555400
      {"RTX3090Ti-24GB", "NVIDIA GeForce RTX 3090 Ti"},      // stored file id 70089437121
      {"RTX4060Ti-16GB", "NVIDIA GeForce RTX 4060 Ti"},      // stored file id 15266715946
      {"RTX4070TiSuper-16GB", "NVIDIA GeForce RTX 4070 Ti SUPER"},  // stored file id 11960887787
      {"RTX4080-16GB", "NVIDIA GeForce RTX 4080"},           // stored file id 56185456210
      {"RTX4080Super-16GB", "NVIDIA GeForce RTX 4080 SUPER"},  // stored file id 71392531520
      {"RTXA4500-20GB", "NVIDIA RTX A4500"},                 // stored file id 5842746158
      {"RTXA5500-24GB", "NVIDIA RTX A5500"},                 // stored file ids 61087637146, 70485054179
      {"RTX4500Ada-24GB", "NVIDIA RTX 4500 Ada Generation"},  // stored file ids 54636863176, 70664819445
      {"RTX5000Ada-32GB", "NVIDIA RTX 5000 Ada Generation"},  // PyTorch collect_env, stored file id 57073366600
      {"A16-16GB", "NVIDIA A16"},                            // `nvidia-smi -L`, stored file id 18830180938
      {"H200-NVL-141GB", "NVIDIA H200 NVL"},                 // stored file ids 66510701415, 70893487575
      {"P4-8GB", "Tesla P4"},                                // `nvidia-smi -L`, stored file id 18003805323
      {"GTX1080Ti-11GB", "NVIDIA GeForce GTX 1080 Ti"},      // `nvidia-smi -L`, stored file id 15297697014
      {"TITANXp-12GB", "NVIDIA TITAN Xp"},                   // `nvidia-smi -L`, stored file id 67455115408
  };
  return names;
}

}  // namespace tpsim
