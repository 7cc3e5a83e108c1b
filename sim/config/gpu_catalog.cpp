#include "gpu_catalog.hpp"

#include <algorithm>
#include <utility>

#include "gpu_catalog_boards.hpp"

namespace tpsim {
namespace {
constexpr double GiB = 1024.0 * 1024 * 1024;
constexpr double GB = 1e9, TB = 1e12, TF = 1e12, US = 1e-6;
const char* MAMF = "matmul: mamf-finder (stas00/ml-engineering)";
}  // namespace

const std::vector<GpuSpec>& gpu_catalog() {
  const std::string mamf = MAMF;
  static const std::vector<GpuSpec> table = [&] {
    std::vector<GpuSpec> t{
      {.name = "A100-SXM4-40GB", .compute_capability = 80, .memory_B = 40 * GiB, .hbm_peak_Bps = 1555 * GB,
       .hbm_achievable_Bps = 1366 * GB, .bf16_peak_flops = 312 * TF, .matmul_efficiency = 267.9 / 312,
       .nvlink_generation = 3, .nvlinks_per_gpu = 12, .pcie_generation = 4,
       .source = mamf + "; HBM: mixbench ~1300-1433 GB/s (ekondis/mixbench#18), midpoint"},
      {.name = "A100-SXM4-80GB", .compute_capability = 80, .memory_B = 80 * GiB, .hbm_peak_Bps = 2039 * GB,
       .hbm_achievable_Bps = 1584 * GB, .bf16_peak_flops = 312 * TF, .matmul_efficiency = 267.9 / 312,
       .nvlink_generation = 3, .nvlinks_per_gpu = 12, .pcie_generation = 4,
       .source = mamf + "; HBM: p2pBandwidthLatencyTest local copy 1561-1607 GB/s (NVIDIA/nccl-tests#100)"},
      {.name = "A100-PCIe-80GB", .compute_capability = 80, .memory_B = 80 * GiB, .hbm_peak_Bps = 1935 * GB,
       .hbm_achievable_Bps = 1727 * GB, .bf16_peak_flops = 312 * TF, .matmul_efficiency = 256.4 / 312,
       .nvlink_generation = 3, .nvlinks_per_gpu = 12, .pcie_generation = 4,
       .source = mamf + " (A100 PCIe row); HBM: A800 80GB PCIe, same memory, 1727 GB/s (mli/transformers-benchmarks#4); "
                        "NVLink: the bridge's 600 GB/s both ways"},
      // A100 PCIe 40GB: 40 GB HBM2, 1555 GB/s (huataihuang/cloud-atlas nvidia_a100.rst: "PCIe 版本的GPU内存带宽为
      // 1.555 GB/s" [TB/s]; Lambda-LLM-Calculator gpu_specs.csv, "A100 PCIe 40 GB", PCIe 4.0 x16), the same GA100
      // and 312 TFLOPS as every A100.
      {.name = "A100-PCIe-40GB", .compute_capability = 80, .memory_B = 40 * GiB, .hbm_peak_Bps = 1555 * GB,
       .hbm_achievable_Bps = 1366 * GB, .bf16_peak_flops = 312 * TF, .matmul_efficiency = 256.4 / 312,
       .nvlink_generation = 3, .nvlinks_per_gpu = 12, .pcie_generation = 4,
       .source = mamf + " (A100 PCIe row); HBM: derived, the A100-SXM4-40GB's measured 1366 GB/s (same memory, "
                        "1555 GB/s peak); NVLink: the bridge's 600 GB/s both ways"},
      {.name = "H100-SXM5-80GB", .compute_capability = 90, .memory_B = 80 * GiB, .hbm_peak_Bps = 3350 * GB,
       .hbm_achievable_Bps = 2495 * GB, .bf16_peak_flops = 989 * TF, .fp8_peak_flops = 1979 * TF,
       .matmul_efficiency = 792.1 / 989, .kernel_launch_s = 4 * US, .graph_kernel_s = 0.8 * US, .graph_launch_s = 6 * US,
       .nvlink_generation = 4, .nvlinks_per_gpu = 18, .pcie_generation = 5,
       .source = mamf + "; HBM: p2pBandwidthLatencyTest local copy 2475-2515 GB/s (NVIDIA/nccl#1264)"},
      {.name = "H100-PCIe-80GB", .compute_capability = 90, .memory_B = 80 * GiB, .hbm_peak_Bps = 2000 * GB,
       .hbm_achievable_Bps = 2000 * GB * 2495 / 3350, .bf16_peak_flops = 756 * TF, .fp8_peak_flops = 1513 * TF,
       .matmul_efficiency = 792.1 / 989, .kernel_launch_s = 4 * US, .graph_kernel_s = 0.8 * US, .graph_launch_s = 6 * US,
       .nvlink_generation = 4, .nvlinks_per_gpu = 12, .pcie_generation = 5,
       .source = "derived: H100 SXM achievable fractions applied to the H100 PCIe datasheet; NVLink: the bridge's 600 GB/s both ways"},
      {.name = "H100-NVL-94GB", .compute_capability = 90, .memory_B = 94 * GB, .hbm_peak_Bps = 3900 * GB,
       .hbm_achievable_Bps = 3900 * GB * 2495 / 3350, .bf16_peak_flops = 835 * TF, .fp8_peak_flops = 1670 * TF,
       .matmul_efficiency = 792.1 / 989, .kernel_launch_s = 4 * US, .graph_kernel_s = 0.8 * US, .graph_launch_s = 6 * US,
       .nvlink_generation = 4, .nvlinks_per_gpu = 12, .pcie_generation = 5,
       .source = "derived: H100 SXM achievable fractions applied to the H100 NVL datasheet; NVLink: the bridge's 600 GB/s both ways"},
      {.name = "H200-SXM-141GB", .compute_capability = 90, .memory_B = 141 * GB, .hbm_peak_Bps = 4800 * GB,
       .hbm_achievable_Bps = 4800 * GB * 2495 / 3350, .bf16_peak_flops = 989 * TF, .fp8_peak_flops = 1979 * TF,
       .matmul_efficiency = 794.5 / 989, .kernel_launch_s = 4 * US, .graph_kernel_s = 0.8 * US, .graph_launch_s = 6 * US,
       .nvlink_generation = 4, .nvlinks_per_gpu = 18, .pcie_generation = 5,
       .source = mamf + " (H100/H200 row); HBM derived from the H100 copy fraction"},
      {.name = "B200-SXM-180GB", .compute_capability = 100, .memory_B = 180 * GB, .hbm_peak_Bps = 8 * TB,
       .hbm_achievable_Bps = 8 * TB * 0.75, .bf16_peak_flops = 2250 * TF, .fp8_peak_flops = 4500 * TF,
       .matmul_efficiency = 1745.0 / 2250, .kernel_launch_s = 4 * US, .graph_kernel_s = 0.8 * US, .graph_launch_s = 6 * US,
       .nvlink_generation = 5, .nvlinks_per_gpu = 18, .pcie_generation = 5,
       .source = mamf + " (later version); HBM derived from the H100 copy fraction"},
      {.name = "H20-96GB", .compute_capability = 90, .memory_B = 96 * GB, .hbm_peak_Bps = 4000 * GB,
       .hbm_achievable_Bps = 4000 * GB * 2495 / 3350, .bf16_peak_flops = 148 * TF, .fp8_peak_flops = 296 * TF,
       .matmul_efficiency = 792.1 / 989, .kernel_launch_s = 4 * US, .graph_kernel_s = 0.8 * US, .graph_launch_s = 6 * US,
       .nvlink_generation = 4, .nvlinks_per_gpu = 18, .pcie_generation = 5,
       .source = "derived: H100 SXM achievable fractions applied to the H20 datasheet"},
      {.name = "GH200-96GB", .compute_capability = 90, .memory_B = 96 * GB, .hbm_peak_Bps = 4000 * GB,
       .hbm_achievable_Bps = 4000 * GB * 2495 / 3350, .bf16_peak_flops = 989 * TF, .fp8_peak_flops = 1979 * TF,
       .matmul_efficiency = 821.0 / 989, .kernel_launch_s = 4 * US, .graph_kernel_s = 0.8 * US, .graph_launch_s = 6 * US,
       .nvlink_generation = 4, .nvlinks_per_gpu = 18, .pcie_generation = 5,
       .source = mamf + " (GH200 row); HBM derived from the H100 copy fraction; the CPU's NVLink-C2C is not modelled"},
      {.name = "V100-SXM2-32GB", .compute_capability = 70, .memory_B = 32 * GiB, .hbm_peak_Bps = 900 * GB,
       .hbm_achievable_Bps = 900 * GB * 0.85, .bf16_peak_flops = 125 * TF, .matmul_efficiency = 0.7,
       .nvlink_generation = 2, .nvlinks_per_gpu = 6, .pcie_generation = 3,
       .source = "derived: datasheet (fp16 tensor peak, no bf16) with 85% HBM and 70% matmul efficiency"},
      {.name = "L40S-48GB", .compute_capability = 89, .memory_B = 48 * GB, .hbm_peak_Bps = 864 * GB,
       .hbm_achievable_Bps = 864 * GB * 0.8, .bf16_peak_flops = 362 * TF, .fp8_peak_flops = 733 * TF,
       .matmul_efficiency = 0.7, .pcie_generation = 4,
       .source = "derived: datasheet with 80% HBM and 70% matmul efficiency (no published measurement in shared data)"},
      // NVIDIA L40 datasheet (as reproduced by resellers, e.g. mullet.se product 355414, L40/L40S
      // table): 48 GB GDDR6, 864 GB/s, BF16 tensor 181.05 TFLOPS dense (362.1 with sparsity), FP8 362,
      // PCIe Gen4 x16, no NVLink.
      {.name = "L40-48GB", .compute_capability = 89, .memory_B = 48 * GB, .hbm_peak_Bps = 864 * GB,
       .hbm_achievable_Bps = 864 * GB * 0.8, .bf16_peak_flops = 181.05 * TF, .fp8_peak_flops = 362 * TF,
       .matmul_efficiency = 0.7, .pcie_generation = 4,
       .source = "derived: datasheet with 80% memory and 70% matmul efficiency (as the L40S row)"},
      // NVIDIA A40 datasheet (reproduced at ecer.com and relationship-nepal.org 900-2G133): 48 GB GDDR6,
      // 696 GB/s, peak BF16 tensor 149.7 TFLOPS dense (299.4 sparse), NVLink bridge 112.5 GB/s
      // bidirectional (two cards), PCIe Gen4.
      {.name = "A40-48GB", .compute_capability = 86, .memory_B = 48 * GB, .hbm_peak_Bps = 696 * GB,
       .hbm_achievable_Bps = 696 * GB * 0.85, .bf16_peak_flops = 149.7 * TF, .matmul_efficiency = 0.7,
       .nvlink_generation = 3, .nvlinks_per_gpu = 4, .nvlink_link_Bps = 112.5 * GB / 8, .pcie_generation = 4,
       .source = "derived: datasheet with 85% memory and 70% matmul efficiency (as the RTX A6000 row, same GA102); "
                 "NVLink bridge 112.5 GB/s both ways over 4 links"},
      // Rows added for issue 11 (multi-GPU boxes). Each comment names where every figure was read;
      // `derived` marks what is not a published figure. "Stored file id" = a file of the search
      // tool's index whose repository the index does not return.
      //
      // L20: 48 GB GDDR6, 864 GB/s, FP16 tensor 119.5 TFLOPS dense (citsjtu2020/LLM-Prof
      // hardware_spec.md, "NVIDIA_L20"; 864 GB/s and PCIe 4.0 x16 also technical.city/pl/video/L20).
      // The source gives fp16, not bf16: Ada runs both at one rate (lamonoai/gpumap nvidia/GPU.md,
      // L40/L40S columns). No dense fp8 figure found (LLM-Prof lists INT8 239 TOPS only): fp8 left 0.
      {.name = "L20-48GB", .compute_capability = 89, .memory_B = 48 * GB, .hbm_peak_Bps = 864 * GB,
       .hbm_achievable_Bps = 864 * GB * 0.8, .bf16_peak_flops = 119.5 * TF, .matmul_efficiency = 0.7,
       .pcie_generation = 4,
       .source = "derived: datasheet with 80% memory and 70% matmul efficiency (as the L40 row); peak is the fp16 "
                 "figure, no fp8 figure found"},
      // A30: 24 GB HBM2, 933 GB/s, BF16 tensor (FP32 accumulate) 165 TFLOPS dense (330 sparse), compute
      // capability 8.0, PCIe 4.0 x16 (lamonoai/gpumap nvidia/GPU.md, commit 8d5e174f, Ampere table; GA100, 8.0 and
      // 24GB also in NVIDIA's MIG user guide, docs.nvidia.com/datacenter/tesla/mig-user-guide/supported-gpus.html).
      // NVLink: the table says the A30 has it; no datasheet rate was found. A published `nvidia-smi topo -m` of
      // 4 A30s (a vLLM bug report's collect_env output, stored file id 34802511869) prints NV4 between the two
      // GPUs of each bridged pair: 4 links at NVLink 3's 25 GB/s each way (GA100's links, the A100 rows'),
      // 100 GB/s each way (derived).
      {.name = "A30-24GB", .compute_capability = 80, .memory_B = 24 * GB, .hbm_peak_Bps = 933 * GB,
       .hbm_achievable_Bps = 933 * GB * 1366 / 1555, .bf16_peak_flops = 165 * TF, .matmul_efficiency = 267.9 / 312,
       .nvlink_generation = 3, .nvlinks_per_gpu = 4, .pcie_generation = 4,
       .source = "derived: A100-SXM4-40GB's measured HBM (1366/1555) and mamf (267.9/312) fractions, same GA100 and "
                 "HBM2; NVLink bridge: the NV4 a published A30 matrix prints, at NVLink 3's 25 GB/s a link each way (derived)"},
      // GeForce RTX 3090: 24 GB GDDR6X, 936 GB/s (stillwater-sc/KPU-Simulator
      // docs/external-knowledge/rtx_30_series_specs_table.md). Dense BF16 with FP32 accumulate 71 TFLOPS, the
      // figure GeForce boards run bf16 at (karpathy/nanochat#60 table "RTX 3090 71e12" from the GA102
      // whitepaper; modula-systems/modula#1 "3090": 71e12; the RTX4090 row's 165 is the same kind).
      // NVLink bridge 112.5 GB/s both ways on GA102 (atineoSE/coding-model-seeks-gpu
      // pipeline/pipeline/sources/dbgpu_source.py, from Wikipedia's NVLink table), 4 links as the RTX A6000 row.
      {.name = "RTX3090-24GB", .compute_capability = 86, .memory_B = 24 * GB, .hbm_peak_Bps = 936 * GB,
       .hbm_achievable_Bps = 936 * GB * 0.85, .bf16_peak_flops = 71 * TF, .matmul_efficiency = 0.7,
       .nvlink_generation = 3, .nvlinks_per_gpu = 4, .nvlink_link_Bps = 112.5 * GB / 8, .pcie_generation = 4,
       .pcie_p2p = false,
       .source = "derived: datasheet with 85% memory and 70% matmul efficiency (as the RTX4090 row); NVLink bridge "
                 "112.5 GB/s both ways over 4 links; no fp8"},
      // RTX 6000 Ada Generation: 48 GB GDDR6, 960 GB/s, FP8 1457.0 TFLOPS with sparsity, PCIe 4.0 x16, no NVLink
      // (NVIDIA datasheet as copied in atineoSE/coding-model-seeks-gpu pipeline/pipeline/sources/rtx6000ada_specs.md,
      // commit ff052946); dense BF16 (FP32 accumulate) 364 and FP8 728 TFLOPS (lamonoai/gpumap nvidia/GPU.md,
      // Ada table; karpathy/nanochat#60 "RTX 6000 ADA 364e12").
      {.name = "RTX6000Ada-48GB", .compute_capability = 89, .memory_B = 48 * GB, .hbm_peak_Bps = 960 * GB,
       .hbm_achievable_Bps = 960 * GB * 0.8, .bf16_peak_flops = 364 * TF, .fp8_peak_flops = 728 * TF,
       .matmul_efficiency = 0.7, .pcie_generation = 4,
       .source = "derived: datasheet with 80% memory and 70% matmul efficiency (as the L40 row, same AD102 and GDDR6)"},
      // RTX PRO 6000 Blackwell Workstation Edition: 96 GB GDDR7 with ECC, 1792 GB/s, PCIe 5.0 x16, 4000 AI TOPS
      // (FP4 sparse), no NVLink (NVIDIA datasheet as copied in atineoSE/coding-model-seeks-gpu
      // pipeline/pipeline/sources/rtxpro6000_specs.md, commit ff052946). Dense BF16 (FP32 accumulate) 503.8 and
      // FP8 1.01 PFLOPS (hmc-tech.com/gpu/nvidia-rtx-pro-6000-blackwell-vs-amd-radeon-pro-duo-polaris;
      // karpathy/nanochat#60 "RTX 6000 Blackwell 503.8e12"). GB202, compute capability 12.0, 96GB for all three
      // editions (NVIDIA's MIG user guide, docs.nvidia.com/datacenter/tesla/mig-user-guide/supported-gpus.html).
      {.name = "RTXPRO6000-WS-96GB", .compute_capability = 120, .memory_B = 96 * GB, .hbm_peak_Bps = 1792 * GB,
       .hbm_achievable_Bps = 1792 * GB * 0.85, .bf16_peak_flops = 503.8 * TF, .fp8_peak_flops = 1010 * TF,
       .matmul_efficiency = 0.7, .pcie_generation = 5,
       .source = "derived: datasheet with 85% memory and 70% matmul efficiency (as the RTX5090 row, same GB202 and GDDR7)"},
      // Tesla V100 SXM2 16GB: 900 GB/s, FP16 tensor 125 TFLOPS (winston-zhang-orz/gpu-specs specs.md, V100 SXM2
      // column; lijun99/GPU-Resources NVIDIA_GPU_SM.md "16/32 GB HBM2, 900 GB/s"); nvidia-smi --query-gpu prints
      // 16384 MiB (stored file id 71069297093). Six NVLink2 links, 300 GB/s (langtun4.net.cn copy of NVIDIA's
      // NVLink page: "up to six NVLink connections for a total bandwidth of 300 gigabytes per second").
      {.name = "V100-SXM2-16GB", .compute_capability = 70, .memory_B = 16 * GiB, .hbm_peak_Bps = 900 * GB,
       .hbm_achievable_Bps = 900 * GB * 0.85, .bf16_peak_flops = 125 * TF, .matmul_efficiency = 0.7,
       .nvlink_generation = 2, .nvlinks_per_gpu = 6, .pcie_generation = 3,
       .source = "derived: datasheet (fp16 tensor peak, no bf16) with 85% HBM and 70% matmul efficiency (as the "
                 "V100-SXM2-32GB row)"},
      // Tesla V100 SXM3 32GB, the DGX-2's GPU: 16 of them share 512 GB of HBM2, 14.4 TB/s and 2,000 tensor
      // TFLOPS (gamersnexus.net/news-pc/3270; computerbase.de/2018-03/nvidia-nvswitch-dgx-2), i.e. 32 GB, 900 GB/s
      // and 125 TFLOPS each; each V100's six NVLinks (300 GB/s) go to the NVSwitches (pcper.com DGX-2 article:
      // "every other group at 300GB/s"). Memory in GiB as the V100-SXM2-32GB row.
      {.name = "V100-SXM3-32GB", .compute_capability = 70, .memory_B = 32 * GiB, .hbm_peak_Bps = 900 * GB,
       .hbm_achievable_Bps = 900 * GB * 0.85, .bf16_peak_flops = 125 * TF, .matmul_efficiency = 0.7,
       .nvlink_generation = 2, .nvlinks_per_gpu = 6, .pcie_generation = 3,
       .source = "derived: DGX-2 totals / 16 (fp16 tensor peak, no bf16) with 85% HBM and 70% matmul efficiency (as "
                 "the V100-SXM2-32GB row)"},
      // B300 (Blackwell Ultra), HGX: 288 GB HBM3e, 8 TB/s, dense BF16 2250 and FP8 4500 TFLOPS, PCIe Gen6
      // (glennklockwood.com/garden/processors/B300); NVLink 5 at 1.8 TB/s (yobitel.com/knowledge-base/nvidia-b300)
      // = 18 links of 50 GB/s per direction, as a published B300 `nvidia-smi topo -m` shows (NV18, 18 links per GPU
      // in `nvidia-smi nvlink --status`, stored file id 63125688786). Compute capability 10.3 (sm_103; stored file
      // id 54129953460). tpsim's PCIe rates stop at Gen5, so the row says Gen5 (understates Gen6).
      {.name = "B300-SXM-288GB", .compute_capability = 103, .memory_B = 288 * GB, .hbm_peak_Bps = 8 * TB,
       .hbm_achievable_Bps = 8 * TB * 0.75, .bf16_peak_flops = 2250 * TF, .fp8_peak_flops = 4500 * TF,
       .matmul_efficiency = 1745.0 / 2250, .kernel_launch_s = 4 * US, .graph_kernel_s = 0.8 * US, .graph_launch_s = 6 * US,
       .nvlink_generation = 5, .nvlinks_per_gpu = 18, .pcie_generation = 5,
       .source = "derived: as the B200 row (" + mamf + " on B200; HBM 75%); PCIe Gen6 modelled as Gen5"},
      // GB200 (the Blackwell GPU of a Grace-Blackwell superchip: NVL4 trays, NVL72 racks), at its 1,200 W cap: dense
      // BF16 2500 and FP8 5000 TFLOPS, 8 TB/s HBM3e (glennklockwood.com/garden/processors/B200, "GB200 variant",
      // citing NVIDIA's Blackwell datasheet); 189471 MiB and the 1200 W cap as `nvidia-smi` prints them (stored file
      // id 54650828460); compute capability 10.0 (the CUDA guide's table, stored file id 68384912529); NVLink 5 at
      // 1.8 TB/s both ways (verda.com/blog/gb300-nvl72-architecture: every Blackwell GPU) = 18 links of 50 GB/s per
      // direction. Its host link is NVLink-C2C to Grace, not modelled: PCIe Gen5 stands in, as for GH200.
      {.name = "GB200-185GB", .compute_capability = 100, .memory_B = 189471.0 * 1024 * 1024, .hbm_peak_Bps = 8 * TB,
       .hbm_achievable_Bps = 8 * TB * 0.75, .bf16_peak_flops = 2500 * TF, .fp8_peak_flops = 5000 * TF,
       .matmul_efficiency = 1745.0 / 2250, .kernel_launch_s = 4 * US, .graph_kernel_s = 0.8 * US, .graph_launch_s = 6 * US,
       .nvlink_generation = 5, .nvlinks_per_gpu = 18, .pcie_generation = 5,
       .source = "derived: datasheet peaks at 1200 W with the B200 row's fractions (" + mamf + " on B200; HBM 75%); NVLink-C2C "
                 "host link modelled as PCIe Gen5"},
      // Not in the table: A10G (AWS). Its 24 GB and 600 GB/s are published (baseten.co, "NVIDIA A10 vs A10G"),
      // but no dense bf16 peak was found (the A10's 125 TFLOPS is not the A10G's; a measured torch bf16 matmul
      // of 69.47 TFLOPS, zzc0721/torch-performance-test-data#126, is not a peak). H800 PCIe: no datasheet found.
      {.name = "L4-24GB", .compute_capability = 89, .memory_B = 24 * GB, .hbm_peak_Bps = 300 * GB,
       .hbm_achievable_Bps = 300 * GB * 0.85, .bf16_peak_flops = 121 * TF, .fp8_peak_flops = 242 * TF,
       .matmul_efficiency = 0.7, .pcie_generation = 4,
       .source = "derived: datasheet with 85% memory and 70% matmul efficiency"},
      {.name = "A10-24GB", .compute_capability = 86, .memory_B = 24 * GB, .hbm_peak_Bps = 600 * GB,
       .hbm_achievable_Bps = 600 * GB * 0.85, .bf16_peak_flops = 125 * TF, .matmul_efficiency = 0.7, .pcie_generation = 4,
       .source = "derived: datasheet with 85% memory and 70% matmul efficiency"},
      // A10G (AWS g5): GA102, 24 GB GDDR6, 600 GB/s, 62.5 TFLOPS fp16 tensor, compute capability 8.6
      // (RajBhope/gpu-runtime-predictor gpu_catalog.json, "NVIDIA_A10G"); half the A10's 125 as that table gives it.
      {.name = "A10G-24GB", .compute_capability = 86, .memory_B = 24 * GB, .hbm_peak_Bps = 600 * GB,
       .hbm_achievable_Bps = 600 * GB * 0.85, .bf16_peak_flops = 62.5 * TF, .matmul_efficiency = 0.7, .pcie_generation = 4,
       .source = "derived: RajBhope/gpu-runtime-predictor's A10G row with 85% memory and 70% matmul efficiency"},
      // Tesla V100 PCIe 16GB: 900 GB/s HBM2, 112 TFLOPS fp16 tensor, 250 W, PCIe 3.0 x16, no NVLink (a GPU
      // catalogue citing nvidia.com/en-us/data-center/v100, stored file id 55596800815: "nvidia-v100-pcie-16gb").
      {.name = "V100-PCIe-16GB", .compute_capability = 70, .memory_B = 16 * GiB, .hbm_peak_Bps = 900 * GB,
       .hbm_achievable_Bps = 900 * GB * 0.85, .bf16_peak_flops = 112 * TF, .matmul_efficiency = 0.7, .pcie_generation = 3,
       .source = "derived: datasheet (fp16 tensor peak, no bf16) with 85% HBM and 70% matmul efficiency"},
      {.name = "V100-PCIe-32GB", .compute_capability = 70, .memory_B = 32 * GiB, .hbm_peak_Bps = 900 * GB,
       .hbm_achievable_Bps = 900 * GB * 0.85, .bf16_peak_flops = 112 * TF, .matmul_efficiency = 0.7, .pcie_generation = 3,
       .source = "derived: as the V100-PCIe-16GB row with 32 GB (the same board with twice the HBM2)"},
      // Pascal and Kepler, still in published `nvidia-smi topo -m` matrices (session 21). Tesla P100 SXM2 16GB:
      // 720 GB/s HBM2, fp16 21.2 TFLOPS (no tensor cores); PCIe 16GB / 12GB: 18.7 TFLOPS, 720 / 540 GB/s
      // (tech4gamers.com Tesla P100 table; tomshardware.com/news/nvidia-tesla-p100-pcie-gpu,32119.html); the
      // SXM2 board's NVLink "80 GB/s per direction, 160 GB/s both directions" over four NVLink 1 links, 20 GB/s
      // each (teckknow.com Tesla P100 article; the DGX-1's NV1/NV2 hybrid cube mesh).
      {.name = "P100-SXM2-16GB", .compute_capability = 60, .memory_B = 16 * GiB, .hbm_peak_Bps = 720 * GB,
       .hbm_achievable_Bps = 720 * GB * 0.85, .bf16_peak_flops = 21.2 * TF, .matmul_efficiency = 0.7,
       .nvlink_generation = 1, .nvlinks_per_gpu = 4, .nvlink_link_Bps = 20 * GB, .pcie_generation = 3,
       .source = "derived: datasheet (fp16 peak, no tensor cores, no bf16) with 85% HBM and 70% matmul efficiency"},
      {.name = "P100-PCIe-16GB", .compute_capability = 60, .memory_B = 16 * GiB, .hbm_peak_Bps = 720 * GB,
       .hbm_achievable_Bps = 720 * GB * 0.85, .bf16_peak_flops = 18.7 * TF, .matmul_efficiency = 0.7, .pcie_generation = 3,
       .source = "derived: datasheet (fp16 peak, no tensor cores, no bf16) with 85% HBM and 70% matmul efficiency"},
      {.name = "P100-PCIe-12GB", .compute_capability = 60, .memory_B = 12 * GiB, .hbm_peak_Bps = 540 * GB,
       .hbm_achievable_Bps = 540 * GB * 0.85, .bf16_peak_flops = 18.7 * TF, .matmul_efficiency = 0.7, .pcie_generation = 3,
       .source = "derived: datasheet (fp16 peak, no tensor cores, no bf16) with 85% HBM and 70% matmul efficiency"},
      // Tesla P40 (GP102): 24 GB GDDR5, 347.1 GB/s, fp32 11.76 TFLOPS, fp16 0.18 (1/64 rate), PCIe 3.0 x16
      // (gpuark.com/en/gpu/nvidia-tesla-p40; cpu-gpu.alldbin.com Tesla P40 page). Half-precision models compute
      // in fp32 there (fp16 GEMMs with fp32 compute run at the fp32 rate), so the fp32 peak stands for it.
      {.name = "P40-24GB", .compute_capability = 61, .memory_B = 24 * GB, .hbm_peak_Bps = 347.1 * GB,
       .hbm_achievable_Bps = 347.1 * GB * 0.85, .bf16_peak_flops = 11.76 * TF, .matmul_efficiency = 0.7, .pcie_generation = 3,
       .source = "derived: datasheet (fp32 peak: its fp16 runs at 1/64) with 85% memory and 70% matmul efficiency"},
      // Tesla K80: two GK210 GPUs per board, each 12 GB GDDR5 at 240.6 GB/s, 2496 CUDA cores at up to 824 MHz
      // (cputronic.com Tesla K80 vs P40 page): fp32 2496 x 2 x 0.824 GHz = 4.11 TFLOPS per GPU (derived); the
      // board's two GPUs meet below its own PCIe switch (PIX); PCIe 3.0 x16.
      {.name = "K80-12GB", .compute_capability = 37, .memory_B = 12 * GB, .hbm_peak_Bps = 240.6 * GB,
       .hbm_achievable_Bps = 240.6 * GB * 0.85, .bf16_peak_flops = 4.11 * TF, .matmul_efficiency = 0.7, .pcie_generation = 3,
       .source = "derived: one GK210 of the board (fp32 peak, no fast fp16) with 85% memory and 70% matmul efficiency"},
      {.name = "T4-16GB", .compute_capability = 75, .memory_B = 16 * GB, .hbm_peak_Bps = 320 * GB,
       .hbm_achievable_Bps = 320 * GB * 0.85, .bf16_peak_flops = 65 * TF, .matmul_efficiency = 0.7, .pcie_generation = 3,
       .source = "derived: datasheet (fp16 tensor peak, no bf16) with 85% memory and 70% matmul efficiency"},
      {.name = "RTXA6000-48GB", .compute_capability = 86, .memory_B = 48 * GB, .hbm_peak_Bps = 768 * GB,
       .hbm_achievable_Bps = 768 * GB * 0.85, .bf16_peak_flops = 154.8 * TF, .matmul_efficiency = 0.7,
       .nvlink_generation = 3, .nvlinks_per_gpu = 4, .nvlink_link_Bps = 112.5 * GB / 8, .pcie_generation = 4,
       .source = "derived: datasheet with 85% memory and 70% matmul efficiency; NVLink bridge 112.5 GB/s both ways over 4 links"},
      {.name = "RTXA5000-24GB", .compute_capability = 86, .memory_B = 24 * GB, .hbm_peak_Bps = 768 * GB,
       .hbm_achievable_Bps = 768 * GB * 0.85, .bf16_peak_flops = 111.1 * TF, .matmul_efficiency = 0.7,
       .nvlink_generation = 3, .nvlinks_per_gpu = 4, .nvlink_link_Bps = 112.5 * GB / 8, .pcie_generation = 4,
       .source = "derived: datasheet with 85% memory and 70% matmul efficiency; NVLink bridge 112.5 GB/s both ways over 4 links"},
      // RTX A4000 (GA104, no NVLink): 16 GB GDDR6, 448 GB/s, tensor 153.4 TFLOPS with sparsity, so 76.7 dense (the
      // datasheet's figures as a reseller's page copies them, ecer.com RTX A4000 product page); PCIe 4.0 x16.
      {.name = "RTXA4000-16GB", .compute_capability = 86, .memory_B = 16 * GB, .hbm_peak_Bps = 448 * GB,
       .hbm_achievable_Bps = 448 * GB * 0.85, .bf16_peak_flops = 76.7 * TF, .matmul_efficiency = 0.7, .pcie_generation = 4,
       .source = "derived: datasheet (tensor peak / 2 for sparsity) with 85% memory and 70% matmul efficiency, as the RTX A5000 row"},
      {.name = "RTX4090-24GB", .compute_capability = 89, .memory_B = 24 * GB, .hbm_peak_Bps = 1008 * GB,
       .hbm_achievable_Bps = 1008 * GB * 0.85, .bf16_peak_flops = 165 * TF, .fp8_peak_flops = 330 * TF,
       .matmul_efficiency = 0.7, .pcie_generation = 4, .pcie_p2p = false,
       .source = "derived: datasheet with 85% HBM (as RTX 2080 Ti copy/spec) and 70% matmul efficiency"},
      {.name = "RTX2080Ti-11GB", .compute_capability = 75, .memory_B = 11 * GB, .hbm_peak_Bps = 616 * GB,
       .hbm_achievable_Bps = 538 * GB, .bf16_peak_flops = 107 * TF, .matmul_efficiency = 0.7, .nvlink_generation = 2,
       .nvlinks_per_gpu = 2, .pcie_generation = 3, .pcie_p2p = false,
       .source = "HBM: p2pBandwidthLatencyTest D2D 533-543 GB/s (Anthony-Hoo post); fp16 tensor peak, no bf16"},
      {.name = "RTX5090-32GB", .compute_capability = 120, .memory_B = 32 * GB, .hbm_peak_Bps = 1792 * GB,
       .hbm_achievable_Bps = 1792 * GB * 0.85, .bf16_peak_flops = 209.5 * TF, .fp8_peak_flops = 419 * TF,
       .matmul_efficiency = 0.7, .pcie_generation = 5, .pcie_p2p = false,
       .source = "derived: datasheet with 85% memory and 70% matmul efficiency"},
      // GeForce Blackwell below the 5090 (GDDR7, no NVLink, no P2P on the stock driver): memory and AI TOPS from
      // NVIDIA's 50-series spec table (stored file id 55562349537: 1801 / 1406 / 988 / 759 AI TOPS, FP4 with
      // sparsity); dense BF16 (FP32 accumulate) = AI TOPS / 16, which gives the whitepaper's 61.7 for the 5070 and
      // 209.5 for the 5090 (derived for the others); bandwidth 960 / 896 / 672 / 448 GB/s (notebookcheck,
      // techpowerup reviews). The 5060 Ti runs PCIe 5.0 x8 (techpowerup's x8 scaling review): its Gen5 lane is
      // modelled as x16, so host-side transfers are read up to twice too fast on it.
  };
    // GeForce Blackwell below the 5090 (their comment above): GB20x, Gen5 host link, no P2P, the RTX5090 row's fractions.
    auto geforce_blackwell = [&t](std::string name, double memory_B, double bw_Bps, double bf16_flops, const std::string& peak,
                                 const std::string& caveat = "") {
      GpuSpec g{.name = std::move(name), .compute_capability = 120, .memory_B = memory_B, .hbm_peak_Bps = bw_Bps,
                .bf16_peak_flops = bf16_flops, .pcie_generation = 5, .pcie_p2p = false,
                .source = "derived: " + peak + " with 85% memory and 70% matmul efficiency (as the RTX5090 row)" + caveat};
      derive_board_fractions(g);
      t.push_back(std::move(g));
    };
    geforce_blackwell("RTX5080-16GB", 16 * GB, 960 * GB, 112.6 * TF, "spec table (AI TOPS / 16)");
    geforce_blackwell("RTX5070Ti-16GB", 16 * GB, 896 * GB, 87.9 * TF, "spec table (AI TOPS / 16)");
    geforce_blackwell("RTX5070-12GB", 12 * GB, 672 * GB, 61.7 * TF, "whitepaper BF16 peak");
    geforce_blackwell("RTX5060Ti-16GB", 16 * GB, 448 * GB, 47.4 * TF, "spec table (AI TOPS / 16)",
                      "; PCIe 5.0 x8 modelled as x16");
    // Rows that are another row's chip and memory on another board or with fewer NVLinks: copied
    // from that row, placed after `after`, with their own name, NVLink count (0: unchanged) and source.
    auto row = [&t](const std::string& name) {
      return std::find_if(t.begin(), t.end(), [&](const GpuSpec& g) { return g.name == name; });
    };
    auto derive = [&](const std::string& from, const std::string& after, std::string name, int nvlinks, std::string source) {
      GpuSpec g = *row(from);
      g.name = std::move(name);
      if (nvlinks) g.nvlinks_per_gpu = nvlinks;
      g.source = std::move(source);
      t.insert(row(after) + 1, std::move(g));
    };
    // A800 = A100 with NVLink cut from 600 to 400 GB/s, compute and memory unchanged (aiwiki.ai/wiki/nvidia_a800;
    // tweakers.net/nieuws/203182). A800 SXM4 80GB: 2039 GB/s, FP16 312 TFLOPS, NVLink 400 GB/s
    // (citsjtu2020/LLM-Prof hardware_spec.md, "NVIDIA_A800_SXM4_80GB"). 400 GB/s both ways at NVLink3's
    // 25 GB/s per link and direction = 8 links, as the published matrix tests/data/topo/8xa800-nv8-4nic-2socket.txt
    // shows (NV8). Memory in GiB as the A100 rows (nvidia-smi prints 81920 MiB for the 80 GB boards).
    // A800 80GB PCIe: the A100 80GB PCIe's 1935 GB/s (lamonoai/gpumap nvidia/GPU.md) and 312 TFLOPS; NVLink
    // bridge cut to 400 GB/s as every A800 (aiwiki.ai/wiki/nvidia_a800) = 8 links of 25 GB/s per direction.
    // H800 SXM5 = H100 SXM5 with NVLink cut to 400 GB/s (tumgag.com/tag/nvidia%20h100; aiwiki.ai/wiki/nvidia_h800):
    // 80 GB HBM3, 3350 GB/s, BF16 989 TFLOPS dense, NVLink 400 GB/s (citsjtu2020/LLM-Prof hardware_spec.md,
    // "NVIDIA_H800"); FP8 3958 with sparsity -> 1979 dense (astroC86/gpu-datasheet README.md, H800 row, citing
    // NVIDIA's H800 datasheet). 400 GB/s both ways = 8 NVLink4 links, as the published H800 matrices show (NV8,
    // tests/data/topo/8xh800-*). Memory in GiB as the H100 row. The H800 PCIe was not found: no row.
    derive("A100-SXM4-80GB", "A30-24GB", "A800-SXM4-80GB", 8,
           "derived: as the A100-SXM4-80GB row (same chip and memory: " + mamf +
               "; HBM 1584 GB/s measured on A100 80GB SXM, NVIDIA/nccl-tests#100); NVLink 400 GB/s both ways = 8 links");
    derive("A100-PCIe-80GB", "A800-SXM4-80GB", "A800-PCIe-80GB", 8,
           mamf + " (A100 PCIe row, derived: same chip); HBM: 1727 GB/s measured on an A800 80GB PCIe "
                  "(mli/transformers-benchmarks#4); NVLink bridge 400 GB/s both ways = 8 links");
    derive("H100-SXM5-80GB", "A800-PCIe-80GB", "H800-SXM5-80GB", 8,
           "derived: as the H100-SXM5-80GB row (same chip and memory: " + mamf +
               "; HBM 2495 GB/s measured on H100, NVIDIA/nccl#1264); NVLink 400 GB/s both ways = 8 links");
    // RTX PRO 6000 Blackwell Server Edition: "the core specs are the same across the three models" (workstation,
    // Max-Q, server) and "the memory configuration is the same for the three variants ... 1792 GB/s"
    // (ferreiradozezere.net copy of the GTC 2025 announcement coverage). No Server Edition datasheet was found,
    // so its figures are the Workstation Edition's; GB202, compute capability 12.0, 96GB (NVIDIA's MIG user guide;
    // antirez/ds4#256: sm_120).
    // GB300 (Blackwell Ultra, GB300 NVL72) = GB200 with its own memory and compute capability: 288 GB HBM3e,
    // 8 TB/s (midudev/canirun.ai#20), dense BF16 2500 TFLOPS (NVIDIA's NVL72 rack table, 360 PFLOPS with sparsity
    // / 72 GPUs / 2; verda.com "without sparsity ... 2.5 PFLOPS"); 284208 MiB and compute capability 10.3 as
    // nvidia-smi and CUDA print them (stored file ids 66256874927, 51884305790); NVLink 5, 1.8 TB/s both ways.
    derive("GB200-185GB", "GB200-185GB", "GB300-278GB", 0,
           "derived: rack-table peaks / 72 (sparsity halved) with the B200 row's fractions (" + mamf + " on B200; HBM "
           "75%); NVLink-C2C host link modelled as PCIe Gen5");
    row("GB300-278GB")->memory_B = 284208.0 * 1024 * 1024;
    row("GB300-278GB")->compute_capability = 103;
    derive("RTXPRO6000-WS-96GB", "RTXPRO6000-WS-96GB", "RTXPRO6000-Server-96GB", 0,
           "derived: the Workstation Edition's peaks (no Server Edition datasheet found) with 85% memory and 70% "
           "matmul efficiency (as the RTX5090 row)");
    // RTX PRO 6000 Blackwell Max-Q Workstation Edition: the same GB202 (188 SMs) and memory (96 GB GDDR7, 1792 GB/s:
    // "the memory configuration is the same for the three variants", as above) at 300 W against 600: boost clock
    // 2288 MHz and 110.1 TFLOPS FP32 against the Workstation Edition's 125 (technical.city's RTX PRO 6000 Blackwell
    // Max-Q page; blog.us.fixstars.com "What Kind of GPU is the NVIDIA RTX PRO 6000 Blackwell Max-Q?", 300 W).
    // Its tensor peaks are the Workstation Edition's x 110.1 / 125 (derived: the same SMs at the lower clock).
    derive("RTXPRO6000-WS-96GB", "RTXPRO6000-Server-96GB", "RTXPRO6000-MaxQ-96GB", 0,
           "derived: the Workstation Edition's peaks x 110.1 / 125 (its FP32 at 300 W against 600) with 85% memory and "
           "70% matmul efficiency (as the RTX5090 row)");
    row("RTXPRO6000-MaxQ-96GB")->bf16_peak_flops *= 110.1 / 125;
    row("RTXPRO6000-MaxQ-96GB")->fp8_peak_flops *= 110.1 / 125;
    add_more_boards(t);
    return t;
  }();
  return table;
}

std::vector<std::string> gpu_names() {
  std::vector<std::string> names;
  for (const auto& g : gpu_catalog()) names.push_back(g.name);
  return names;
}

const GpuSpec* find_gpu(const std::string& name) {
  for (const auto& g : gpu_catalog())
    if (g.name == name) return &g;
  return nullptr;
}

}  // namespace tpsim
