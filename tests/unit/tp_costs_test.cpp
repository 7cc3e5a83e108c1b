// The costs that grow with TP and the engines that pay them: the default kernel surface (Vidur's
// published per-shape times carried by roofline ratio), the small-kernel floor, host time per
// sequence, CUDA-graph batch limits, engines' own all-reduce kernels and the slowest-rank wait.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "config/model_card.hpp"
#include "config/platform_file.hpp"
#include "fit/gemm_table.hpp"
#include "model/engine_all_reduce.hpp"
#include "model/kernel_surface.hpp"
#include "model/step_cost.hpp"

using namespace tpsim;

namespace {

const std::string ROOT = TPSIM_SOURCE_DIR;

// The csv rows of a recorded file (a path under calibrate/recorded/), split on commas; comments and the
// header (the line that starts with `header`) skipped.
std::vector<std::vector<std::string>> recorded_rows(const std::string& path, const std::string& header) {
  std::ifstream in(ROOT + "/calibrate/recorded/" + path);
  REQUIRE(in);
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#' || line.rfind(header, 0) == 0) continue;
    std::vector<std::string> f;
    std::istringstream s(line);
    for (std::string x; std::getline(s, x, ',');) f.push_back(x);
    rows.push_back(f);
  }
  return rows;
}

// The csv rows of a recorded Vidur file.
std::vector<std::vector<std::string>> csv_rows(const std::string& file) { return recorded_rows("vidur-kernels/" + file, "op,"); }

// The least-squares line y = intercept + slope x through the points.
std::pair<double, double> line_fit(const std::vector<std::pair<double, double>>& points) {
  double mx = 0, my = 0, sxy = 0, sxx = 0;
  for (const auto& [x, y] : points) mx += x / points.size(), my += y / points.size();
  for (const auto& [x, y] : points) sxy += (x - mx) * (y - my), sxx += (x - mx) * (x - mx);
  return {my - sxy / sxx * mx, sxy / sxx};
}

}  // namespace

TEST_CASE("E[max of n standard normals]: the slowest of n ranks") {
  CHECK(expected_max_of_normals(1) == 0);
  CHECK(expected_max_of_normals(2) == doctest::Approx(1 / std::sqrt(M_PI)).scale(0).epsilon(1e-6));        // 1/sqrt(pi)
  CHECK(expected_max_of_normals(3) == doctest::Approx(1.5 / std::sqrt(M_PI)).scale(0).epsilon(1e-6));      // 3/(2 sqrt(pi))
  CHECK(expected_max_of_normals(8) == doctest::Approx(1.4236).scale(0).epsilon(1e-4));                     // tabulated
}

TEST_CASE("the kernel surface gives back Vidur's time at a recorded shape on the reference GPU") {
  const KernelSurface& a100 = kernel_surface("a100");
  // calibrate/recorded/vidur-kernels/a100-gemm.csv: Llama-2-7B's QKV at TP=1 (n 12288, k 4096).
  const double n = 12288, k = 4096;
  auto at = [&](double m, double peak, double hbm) {
    return surface_gemm_time(a100, m, n, k, 2 * m * n * k, (m * k + k * n + m * n) * 2, peak, hbm);
  };
  // A prefill of 512 tokens (not deep memory-bound): the recorded 234 us, exactly.
  CHECK(at(512, a100.peak_flops, a100.hbm_peak_Bps) == doctest::Approx(234e-6).scale(0).epsilon(1e-9));
  // One token: m = 1..32 are deep memory-bound (m = 32: 10.3 us of compute at the peak against
  // 102 us of bytes at the HBM peak, under 1/8) and take their median efficiency; the rows
  // read 65, 63, 63, 63, 64, 66 us, so m = 1 costs about the median time (62-64 us), and m = 1 and 2
  // differ by their rooflines alone.
  const double t1 = at(1, a100.peak_flops, a100.hbm_peak_Bps);
  CHECK(t1 > 62e-6);
  CHECK(t1 < 64e-6);
  CHECK(t1 / at(2, a100.peak_flops, a100.hbm_peak_Bps) == doctest::Approx((k + k * n + n) / (2 * k + k * n + 2 * n)).scale(0).epsilon(1e-9));
  // On a GPU with 1.5x the HBM (same shape, memory-bound): t = t0 + (t_ref - t0) / 1.5.
  const double t0 = std::min(a100.gemm_floor_s, t1 / 2);
  CHECK(at(1, a100.peak_flops, 1.5 * a100.hbm_peak_Bps) == doctest::Approx(t0 + (t1 - t0) / 1.5).scale(0).epsilon(1e-9));
  // The fixed part does not shrink: a faster GPU still pays t0.
  CHECK(at(1, 100 * a100.peak_flops, 100 * a100.hbm_peak_Bps) > t0);
}

TEST_CASE("the surface's floors come from its own rows") {
  for (const char* gpu : {"a100", "h100", "a40"}) {
    const KernelSurface& s = kernel_surface(gpu);
    // The small-kernel floor is the median one-token time of norm, rope, activation and add.
    std::vector<double> small;
    for (const auto& r : csv_rows(std::string(gpu) + "-small-kernels.csv"))
      if (r[1] == "1") small.push_back(std::stod(r[3]) * 1e-6);
    std::sort(small.begin(), small.end());
    CHECK(s.small_kernel_s == doctest::Approx(small[small.size() / 2]).scale(0));
    // t = t0 + bytes / BW over the memory-bound GEMM rows: a few microseconds and a stream
    // rate below the datasheet HBM peak.
    CHECK(s.gemm_floor_s > 1e-6);
    CHECK(s.gemm_floor_s < 10e-6);
    CHECK(s.gemm_stream_Bps < s.hbm_peak_Bps);
    CHECK(s.gemm_stream_Bps > 0.6 * s.hbm_peak_Bps);
  }
  CHECK(kernel_surface_for(*find_gpu("H200-SXM-141GB")).name == "h100");
  CHECK(kernel_surface_for(*find_gpu("A100-PCIe-80GB")).name == "a100");
  CHECK(kernel_surface_for(*find_gpu("RTX4090-24GB")).name == "a40");
}

TEST_CASE("host time per sequence and CUDA-graph batch limits") {
  const ModelCard model = load_model_card(ROOT + "/workloads/models/llama-3.1-8b.yaml");
  const PlatformDesc platform = load_platform_file(ROOT + "/platforms/2gpu_nvlink.xml");
  Scenario s;
  s.engine.host_overhead_s = 1e-3, s.engine.host_per_sequence_s = 0.1e-3, s.engine.host_overlap = false;
  Topology topo(platform, s.hardware, "");
  CollectiveModel cm(topo, s.collectives, nullptr);
  GpuModel gpu = gpu_model(*platform.gpus[0].spec, s, nullptr, 2, 2);
  const std::vector<SequenceWork> batch(8, {512, 1});
  const StepOps ops = step_ops(model, 1, batch);
  // Not overlapped: h + c x sequences = 1 ms + 0.1 ms x 8.
  CHECK(plan_step(ops, gpu, cm, {0}).host_extra_s == doctest::Approx(1.8e-3).scale(0));
  // Graphs up to 4 sequences: 8 run eagerly, a launch per kernel.
  gpu.cuda_graph_max_batch = 4;
  const StepPlan eager = plan_step(ops, gpu, cm, {0});
  // Every op that runs is a kernel: launch = ops x kernel_launch_s, the all-reduces left out at TP=1
  // (one GPU launches no collective kernel).
  const auto flat = ops.flatten();
  const auto kernels = std::count_if(flat.begin(), flat.end(), [](const Op& o) { return o.kind != OpKind::collective; });
  CHECK(kernels < long(flat.size()));
  CHECK(eager.breakdown.launch == doctest::Approx(double(kernels) * gpu.kernel_launch_s).scale(0));
}

// A platform's collective model with vLLM's own all-reduce, and its eight GPUs as one group.
struct VllmBox {
  explicit VllmBox(const std::string& platform_file)
      : topo(load_platform_file(ROOT + platform_file), HardwareSpec{}, ""), cm(topo, with_vllm(), nullptr) {}
  static CollectiveSpec with_vllm() {
    CollectiveSpec spec;
    spec.custom_all_reduce = vllm;
    return spec;
  }
  static inline const CustomAllReduce vllm = *find_engine_profile("vllm")->custom_all_reduce;
  static inline const std::vector<int> eight{0, 1, 2, 3, 4, 5, 6, 7};
  Topology topo;
  CollectiveModel cm;
};

TEST_CASE("engines' own all-reduce: limits, one-shot and two-shot, latency") {
  // An A100 NVSwitch box: no multicast tier, so vLLM's custom kernel to its 8 MiB buffer.
  const VllmBox box("/platforms/dgx_a100.xml");
  const CollectiveModel& cm = box.cm;
  const CustomAllReduce& vllm = box.vllm;
  const std::vector<int>& eight = box.eight;
  const GroupSummary g = cm.summary(CollectiveOp::all_reduce, eight);
  // vLLM: one-shot below 256 KiB at 8 ranks, two-shot up to its 8 MiB buffer, NCCL beyond.
  CHECK(custom_all_reduce_fit(vllm, g, 64 * 1024).kernel == "one-shot");
  CHECK(custom_all_reduce_fit(vllm, g, 300 * 1024).kernel == "two-shot");
  CHECK(custom_all_reduce_fit(vllm, g, 10e6).why_not == "10000000 B exceeds its 8388608 B buffer");
  const CollectivePlan& small = cm.plan(CollectiveOp::all_reduce, 8192, eight);
  CHECK(small.engine_kernel == "one-shot");
  CHECK(small.latency_s == doctest::Approx(10.1e-6).scale(0));  // the profile's 8-rank time (sglang#2904)
  const CollectivePlan& mid = cm.plan(CollectiveOp::all_reduce, 1 << 20, eight);
  CHECK(mid.engine_kernel == "two-shot");
  CHECK(mid.latency_s == doctest::Approx(TWO_SHOT_LATENCY_FACTOR * 10.1e-6).scale(0));  // a launch, two barriers
  // Two-shot at 1 MiB: each GPU reads 2 S / 8 from each of 7 peers at 0.54 x A100's 300 GB/s port:
  // 16.16 us + 7 x 262144 B / 162 GB/s (11.327 us) = 27.49 us.
  CHECK(mid.time_s() == doctest::Approx(1.6 * 10.1e-6 + 7 * 262144 / (0.54 * 300e9)).epsilon(1e-6).scale(0));
  CHECK(cm.plan(CollectiveOp::all_reduce, 64e6, eight).engine_kernel.empty());  // NCCL
  // TensorRT-LLM runs one-shot below 1 MB on 4 ranks and NCCL above (its AUTO has two-shot off).
  const CustomAllReduce trt = *find_engine_profile("trtllm")->custom_all_reduce;
  const GroupSummary four = cm.summary(CollectiveOp::all_reduce, {0, 1, 2, 3});
  CHECK(custom_all_reduce_fit(trt, four, 900e3).kernel == "one-shot");
  CHECK(custom_all_reduce_fit(trt, four, 900e3).applies);
  CHECK(custom_all_reduce_fit(trt, four, 2e6).why_not == "2000000 B is above its one-shot limit and it runs no two-shot");
  // Three ranks: not a world size the kernel runs on.
  CHECK(custom_all_reduce_fit(vllm, cm.summary(CollectiveOp::all_reduce, {0, 1, 2}), 8192).why_not ==
        "3 ranks (the kernel runs on 2, 4, 6, 8)");
}

TEST_CASE("engines' own all-reduce on two PCIe GPUs with P2P: the kernel runs over the PCIe path, and says so") {
  // vLLM runs its kernel on 2 GPUs without NVLink when P2P works (pcie_two_gpus): two RTX 4090 with the
  // P2P-patched driver, SYS apart. Its reads go over PCIe (24 GB/s a direction here) at 0.54 of it.
  const VllmBox box("/tests/data/measured/nccl/platforms/8xrtx4090-sys-8numa-amd-p2p-patched.xml");
  const CollectivePlan& p = box.cm.plan(CollectiveOp::all_reduce, 1 << 20, {0, 1});
  CHECK(p.engine_kernel == "one-shot");
  CHECK(p.worst_class == PathClass::SYS);  // not NVLink: --explain names the path the kernel crosses
  CHECK(p.bus_bw_Bps == doctest::Approx(0.54 * 24e9).epsilon(1e-3).scale(0));
  // With P2P off the kernel cannot read its peer: NCCL, and the reason.
  Topology off(load_platform_file(ROOT + "/tests/data/measured/nccl/platforms/8xrtx4090-sys-8numa-amd-p2p-patched.xml"), HardwareSpec{}, "OFF");
  const CollectiveModel cm_off(off, VllmBox::with_vllm(), nullptr);
  CHECK(custom_all_reduce_fit(VllmBox::vllm, cm_off.summary(CollectiveOp::all_reduce, {0, 1}), 1 << 20).why_not ==
        "P2P is off between its GPUs (host-staged), and the kernel reads its peers' buffers");
}

// vLLM on an H100 NVSwitch box (multicast): its custom kernel stops at 256 KiB on 8 ranks (8 MiB on 2),
// torch's symmetric memory runs to 64 MiB (multimem on 4, 6 and 8 ranks, its two-shot on 2), NCCL beyond
// (all_reduce_utils.py, symm_mem.py). SGLang keeps the custom kernel (its symmetric memory is opt-in).
TEST_CASE("engines' own all-reduce: vLLM's symmetric-memory tier on NVSwitch from Hopper") {
  const VllmBox box("/platforms/dgx_h100.xml");
  const CollectiveModel& cm = box.cm;
  const CustomAllReduce& vllm = box.vllm;
  const std::vector<int>& eight = box.eight;
  const CustomAllReduce sglang = *find_engine_profile("sglang")->custom_all_reduce;
  const GroupSummary g = cm.summary(CollectiveOp::all_reduce, eight);
  CHECK(custom_all_reduce_fit(vllm, g, 200 * 1024).kernel == "one-shot");
  CHECK(custom_all_reduce_fit(vllm, g, 256 * 1024).kernel == "multimem");
  CHECK(custom_all_reduce_fit(vllm, g, 60 * 1048576.0).applies);
  CHECK(custom_all_reduce_fit(vllm, g, 64 * 1048576.0).why_not == "67108864 B reaches its symmetric-memory limit, 67108864 B");
  CHECK(custom_all_reduce_fit(sglang, g, 1 << 20).kernel == "two-shot");
  const GroupSummary two = cm.summary(CollectiveOp::all_reduce, {0, 1});
  CHECK(custom_all_reduce_fit(vllm, two, 4 * 1048576.0).kernel == "one-shot");
  CHECK(custom_all_reduce_fit(vllm, two, 16 * 1048576.0).kernel == "symmetric-memory two-shot");
  // Multimem at 4 MiB: 8.33 us + S into the switch and back on each port at 0.477 x 450 GB/s:
  // 4194304 B / 214.65 GB/s = 19.54 us, 27.87 us in all (vllm#42324's Hopper table: 27 us).
  const CollectivePlan& mm = cm.plan(CollectiveOp::all_reduce, 4 * 1048576.0, eight);
  CHECK(mm.engine_kernel == "multimem");
  CHECK(mm.time_s() == doctest::Approx(8.33e-6 + 4 * 1048576.0 / (0.477 * 450e9)).epsilon(1e-6).scale(0));
}

// The engine kernel's constants from the table they were fitted on (calibrate/recorded/engine_all_reduce/):
// per TP, the least-squares line through the 1-4 MiB times against the bytes each GPU reads (one-shot at
// TP 2: S; two-shot at TP 4 and 8: 2 S / N from each of N - 1 peers). CUSTOM_AR_WIRE_EFF is the mean of
// the lines' rates over NVLink 4's 450 GB/s; TWO_SHOT_LATENCY_FACTOR the mean of the two-shot lines'
// intercepts over the TP's 512-element time.
TEST_CASE("engines' own all-reduce: constants recomputed from sglang#2904's vLLM table") {
  std::map<int, std::vector<std::pair<double, double>>> by_tp;  // tp -> (bytes each GPU reads, time_s)
  std::map<int, double> small_s;
  for (const auto& r : recorded_rows("engine_all_reduce/sglang2904-h100-vllm-custom-allreduce.csv", "tp,")) {
    const int tp = std::stoi(r.at(0));
    const double elements = std::stod(r.at(1)), size = std::stod(r.at(2)), t = std::stod(r.at(3)) * 1e-3;
    CHECK(size == 4 * elements);  // fp32 elements
    if (elements == 512) small_s[tp] = t;
    if (size >= 1 << 20) by_tp[tp].push_back({tp == 2 ? size : 2 * size / tp * (tp - 1), t});
  }
  REQUIRE(by_tp.size() == 3);
  double eff_sum = 0, factor_sum = 0;
  for (const auto& [tp, points] : by_tp) {
    const auto [intercept, slope] = line_fit(points);
    eff_sum += 1 / slope / 450e9 / 3;
    if (tp > 2) factor_sum += intercept / small_s[tp] / 2;
  }
  CHECK(eff_sum == doctest::Approx(CUSTOM_AR_WIRE_EFF).epsilon(0.01).scale(0));
  CHECK(factor_sum == doctest::Approx(TWO_SHOT_LATENCY_FACTOR).epsilon(0.02).scale(0));
  const CustomAllReduce vllm = *find_engine_profile("vllm")->custom_all_reduce;
  REQUIRE(vllm.latency_s.size() == 3);
  CHECK(vllm.latency_s[0] == doctest::Approx(small_s[2]).scale(0));
  CHECK(vllm.latency_s[1] == doctest::Approx(small_s[4]).scale(0));
  CHECK(vllm.latency_s[2] == doctest::Approx(small_s[8]).scale(0));
}

// The multimem costs from the tables they were fitted on: the least-squares line through the published
// multimem times against S (Hopper: vllm#42324 up to 64 MiB; Blackwell: vllm#37756's B300, 16 KiB-128 MiB),
// intercept the fixed time, slope 1 / (port_eff x the NVLink port: 450 GB/s on Hopper, 900 on Blackwell).
TEST_CASE("engines' own all-reduce: multimem costs recomputed from vLLM's Hopper and B300 tables") {
  struct Table { std::string file; int size_col, time_col, cc; double max_B, port_Bps; };
  for (const Table& t : {Table{"vllm42324-hopper-symm-mem.csv", 1, 3, 90, 64 * 1048576.0, 450e9},
                         Table{"vllm37756-b300-symm-mem.csv", 1, 6, 103, 128 * 1048576.0, 900e9}}) {
    CAPTURE(t.file);
    std::vector<std::pair<double, double>> points;  // (size_B, time_s)
    for (const auto& r : recorded_rows("engine_all_reduce/" + t.file, "tensor_size,"))
      if (std::stod(r.at(t.size_col)) <= t.max_B) points.push_back({std::stod(r.at(t.size_col)), std::stod(r.at(t.time_col)) * 1e-3});
    const auto [intercept, slope] = line_fit(points);
    CHECK(intercept == doctest::Approx(multimem_cost(t.cc).latency_s).epsilon(0.01).scale(0));
    CHECK(1 / slope / t.port_Bps == doctest::Approx(multimem_cost(t.cc).port_eff).epsilon(0.01).scale(0));
  }
}

TEST_CASE("the slowest rank: each collective waits sigma x E[max of n]") {
  const PlatformDesc platform = load_platform_file(ROOT + "/platforms/dgx_h100.xml");
  Topology topo(platform, HardwareSpec{}, "");
  CollectiveSpec plain, spread;
  spread.all_reduce_jitter_s = 10e-6;
  CollectiveModel a(topo, plain, nullptr), b(topo, spread, nullptr);
  const std::vector<int> eight{0, 1, 2, 3, 4, 5, 6, 7};
  const double without = a.plan(CollectiveOp::all_reduce, 8192, eight).time_s();
  const CollectivePlan& with = b.plan(CollectiveOp::all_reduce, 8192, eight);
  CHECK(with.straggler_s == doctest::Approx(10e-6 * expected_max_of_normals(8)).scale(0));
  CHECK(with.time_s() == doctest::Approx(without + with.straggler_s).scale(0));
  // Inside a CUDA graph the ranks run their kernels back to back without their hosts: no wait.
  const CollectivePlan& graphed = b.plan(CollectiveOp::all_reduce, 8192, eight, true);
  CHECK(graphed.straggler_s == 0);
  CHECK(graphed.time_s() == doctest::Approx(without).scale(0));
}

TEST_CASE("a step in a CUDA graph waits for its ranks once, an eager step at every collective") {
  const ModelCard model = load_model_card(ROOT + "/workloads/models/llama-3.1-8b.yaml");
  const PlatformDesc platform = load_platform_file(ROOT + "/platforms/dgx_h100.xml");
  Scenario s;
  s.collectives.all_reduce_jitter_s = 10e-6;
  Topology topo(platform, s.hardware, "");
  CollectiveModel cm(topo, s.collectives, nullptr);
  GpuModel gpu = gpu_model(*platform.gpus[0].spec, s, nullptr, 8, 8);
  const StepOps ops = step_ops(model, 8, std::vector<SequenceWork>(1, {512, 1}));
  const auto flat = ops.flatten();
  const long collectives = std::count_if(flat.begin(), flat.end(), [](const Op& o) { return o.kind == OpKind::collective; });
  const double wait = 10e-6 * expected_max_of_normals(8);  // sigma x E[max of 8 normals]
  const std::vector<int> eight{0, 1, 2, 3, 4, 5, 6, 7};
  gpu.cuda_graphs = true;
  const StepPlan graphed = plan_step(ops, gpu, cm, eight);
  gpu.cuda_graphs = false;
  const StepPlan eager = plan_step(ops, gpu, cm, eight);
  // Graphed: launch = graph launch + kernels x graph_kernel_s + one wait; eager: every collective waits.
  const long kernels = long(flat.size());
  CHECK(graphed.breakdown.launch == doctest::Approx(gpu.graph_launch_s + double(kernels) * gpu.graph_kernel_s + wait).scale(0));
  CHECK(eager.breakdown.collectives - graphed.breakdown.collectives == doctest::Approx(double(collectives) * wait).scale(0));
}
