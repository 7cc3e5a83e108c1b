// A calibration's GEMM table replaces the roofline for the shapes it measured, and the step
// predictions move with it: a synthetic table, and the recorded one of calibrate/recorded/.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "config/gpu_catalog.hpp"
#include "config/model_card.hpp"
#include "fit/gemm_table.hpp"
#include "model/step_cost.hpp"
#include "util/text_file.hpp"

using namespace tpsim;

TEST_CASE("measured GEMM times replace the roofline in a decode step") {
  const std::string root = TPSIM_SOURCE_DIR;
  const ModelCard model = load_model_card(root + "/workloads/models/llama-3.1-8b.yaml");
  const PlatformDesc platform = load_platform_file(root + "/platforms/2gpu_nvlink.xml");
  Scenario s;
  s.engine.graph_launch_s = 0, s.engine.graph_kernel_s = 0;
  Topology topo(platform, s.hardware, "");
  CollectiveModel cm(topo, s.collectives, nullptr);
  const GpuSpec& spec = *platform.gpus[0].spec;
  const StepOps ops = step_ops(model, 1, {{512, 1}});

  // Calibration: every GEMM of the step measured 1.5x slower than its roofline time.
  const GpuModel plain = gpu_model(spec, s, nullptr, 2, 2);
  Calibration cal;
  double gemm_roofline = 0;
  for (const Op& op : ops.flatten()) {
    if (op.kind != OpKind::gemm) continue;
    const double t = op_time(op, plain);
    gemm_roofline += t;
    bool seen = false;
    for (const auto& g : cal.gemm) seen = seen || (g.m == int(op.m) && g.n == int(op.n) && g.k == int(op.k));
    if (!seen) cal.gemm.push_back({op.name, int(op.m), int(op.n), int(op.k), "bf16", 1.5 * t});
  }
  const GpuModel measured = gpu_model(spec, s, &cal, 2, 2);
  for (const auto& g : cal.gemm) {
    Op op;
    op.kind = OpKind::gemm, op.m = g.m, op.n = g.n, op.k = g.k;
    CHECK(op_time(op, measured) == doctest::Approx(g.time_s).scale(0).epsilon(1e-9));  // reproduced at every recorded shape
  }
  const double before = plan_step(ops, plain, cm, {0}).closed_form_s();
  const double after = plan_step(ops, measured, cm, {0}).closed_form_s();
  // The step grows by exactly the extra GEMM time: 0.5 x the GEMMs' roofline time.
  CHECK(after - before == doctest::Approx(0.5 * gemm_roofline).scale(0).epsilon(1e-6));
}

#include "fit/launch_table.hpp"

TEST_CASE("launch.csv: back-to-back kernel launch and the smallest graph's launch") {
  const auto fit = tpsim::fit::parse_launch_csv(
      "what,value_us\nkernel_launch_back_to_back,2.500\ngraph_launch_k64_per_graph,9.000\ngraph_launch_k16_per_graph,6.400\n"
      "graph_launch_k16_per_kernel,0.400\n",
      "launch.csv");
  CHECK(*fit.kernel_launch_s == doctest::Approx(2.5e-6).scale(0));
  CHECK(*fit.graph_launch_s == doctest::Approx(6.4e-6).scale(0));  // k16 is the smallest graph
  CHECK_THROWS_WITH_AS(tpsim::fit::parse_launch_csv("what,value_us\nkernel_launch_back_to_back,fast\n", "launch.csv"),
                       "launch.csv:2:28: error: 'fast' is not a number", InputError);
}

TEST_CASE("recorded GEMM times (Vidur's H100 profile of Llama-2-7B) replace the roofline in decode and prefill") {
  const std::string root = TPSIM_SOURCE_DIR;
  const std::string csv = root + "/calibrate/recorded/vidur-h100-llama2-7b/gemm.csv";
  const fit::GemmTable table = fit::parse_gemm_csv(read_input_file(csv), csv);
  REQUIRE(table.points().size() == 4144);  // 1,044 published rows x 4 layers, less 8 repeated rows x 4
  // Every recorded shape comes back exactly (the table interpolates between them) but the deep
  // memory-bound ones, which take their shape's median efficiency: within 30% of their own time
  // (the m = 1 GEMV rows of the narrow TP=8 shards); each shape left out is predicted by the
  // others within 5% median.
  const fit::GemmCrossCheck check = fit::cross_check(table);
  CHECK(check.pooled > 0);
  CHECK(check.pooled < check.points / 2);
  CHECK(check.recorded_worst < 0.30);
  CHECK(check.median < 0.05);

  // The committed calibration holds the same table (calibrate/fitted/h100.yaml).
  const Calibration cal = load_calibration(root + "/calibrate/fitted/h100.yaml");
  CHECK(cal.gemm.size() == table.points().size());
  const ModelCard model = load_model_card(root + "/workloads/models/llama-2-7b.yaml");
  const PlatformDesc platform = load_platform_file(root + "/platforms/dgx_h100.xml");
  Scenario s;
  Topology topo(platform, s.hardware, "");
  CollectiveModel cm(topo, s.collectives, nullptr);
  const GpuSpec& spec = *platform.gpus[0].spec;
  // The datasheet roofline (set explicitly: the default is the kernel surface, drawn from the
  // same Vidur table), and the calibration's table over it.
  s.hardware.matmul_efficiency = spec.matmul_efficiency;
  const GpuModel datasheet = gpu_model(spec, s, nullptr, 2, 2), measured = gpu_model(spec, s, &cal, 2, 2);

  // Decode, batch 1, TP=1: each layer's four GEMMs are deep memory-bound at m = 1 and take
  // their shape's median over the deep rows (m = 1..32 or so): within 3% of the published m=1
  // times, QKV 38 + O 16 + gate/up 64 + down 38 = 156 us, 32 layers = 4.992 ms.
  double layer_gemms = 0;
  const StepOps decode = step_ops(model, 1, {{128, 1}});
  for (const Op& op : decode.layer())
    if (op.kind == OpKind::gemm) layer_gemms += op_time(op, measured);
  CHECK(layer_gemms * model.num_layers == doctest::Approx(32 * 156e-6).scale(0).epsilon(0.03));
  // The step moves with the table, by exactly the GEMMs' measured minus roofline times (the
  // datasheet roofline reads the weights at 2.495 TB/s); nothing else in the step changes.
  double gemm_shift = 0;
  for (const Op& op : decode.flatten())
    if (op.kind == OpKind::gemm) gemm_shift += op_time(op, measured) - op_time(op, datasheet);
  const double before = plan_step(decode, datasheet, cm, {0}).closed_form_s();
  const double after = plan_step(decode, measured, cm, {0}).closed_form_s();
  CHECK(std::fabs(gemm_shift) > 0.01 * before);
  CHECK(after - before == doctest::Approx(gemm_shift).scale(0).epsilon(1e-9));

  // Prefill of 512 tokens: the m=512 rows, whatever the roofline says.
  const StepOps prefill = step_ops(model, 1, {{0, 512}});
  for (const Op& op : prefill.layer()) {
    if (op.kind != OpKind::gemm) continue;
    CAPTURE(op.name);
    const auto row = std::find_if(table.points().begin(), table.points().end(), [&](const fit::GemmPoint& p) {
      return p.m == 512 && p.n == std::llround(op.n) && p.k == std::llround(op.k);
    });
    REQUIRE(row != table.points().end());
    CHECK(op_time(op, measured) == doctest::Approx(row->time_s).scale(0).epsilon(1e-9));
  }
}

namespace {
// Two rows of o_proj (n = k = 4096, bf16) measured on an A100-SXM4-80GB (datasheet: 312 TFLOP/s, HBM 2039 GB/s):
//   m = 1:    bytes (1 x 4096 + 4096 x 4096 + 1 x 4096) x 2 = 33,570,816 B, roofline 16.46 us (memory); measured 24 us;
//   m = 8192: 2mnk = 274.9 GFLOP, 881.1 us at 312 TFLOP/s (memory 167.8 MB / 2039 GB/s = 82.3 us); measured 1100 us.
std::vector<fit::GemmPoint> two_a100_rows() {
  return {{"o_proj", 1, 4096, 4096, "bf16", 24e-6, 0}, {"o_proj", 8192, 4096, 4096, "bf16", 1100e-6, 0}};
}
}  // namespace

TEST_CASE("a GEMM table measured on another GPU: each shape's roofline efficiency there, on the simulated GPU's rates") {
  const fit::GemmTable table(two_a100_rows());
  const fit::GemmRates a100_80{312e12, 2039e9}, a100_40{312e12, 1555e9}, h100{989e12, 3350e9};
  // On the GPU it measured: the measured times.
  CHECK(table.predict_time_on(1, 4096, 4096, "bf16", a100_80, a100_80) == doctest::Approx(24e-6).scale(0).epsilon(1e-12));
  CHECK(table.predict_time_on(8192, 4096, 4096, "bf16", a100_80, a100_80) == doctest::Approx(1100e-6).scale(0).epsilon(1e-12));
  // On the 40 GB card: the memory-bound shape at the same share of HBM, 24 us x 2039 / 1555 = 31.47 us; the
  // compute-bound one at the same share of the same peak, 1100 us.
  CHECK(table.predict_time_on(1, 4096, 4096, "bf16", a100_80, a100_40) == doctest::Approx(24e-6 * 2039 / 1555).scale(0).epsilon(1e-12));
  CHECK(table.predict_time_on(8192, 4096, 4096, "bf16", a100_80, a100_40) == doctest::Approx(1100e-6).scale(0).epsilon(1e-12));
  // On an H100 (989 TFLOP/s, 3350 GB/s): 1100 us x 312 / 989 = 347.0 us (still compute-bound: 167.8 MB / 3350 GB/s = 50.1 us),
  // and the GEMV 24 us x 2039 / 3350 = 14.61 us.
  CHECK(table.predict_time_on(8192, 4096, 4096, "bf16", a100_80, h100) == doctest::Approx(1100e-6 * 312 / 989).scale(0).epsilon(1e-12));
  CHECK(table.predict_time_on(1, 4096, 4096, "bf16", a100_80, h100) == doctest::Approx(24e-6 * 2039 / 3350).scale(0).epsilon(1e-12));
}

TEST_CASE("a calibration's GEMM and HBM tables carry to another GPU through its datasheet rates, and the run says so") {
  Calibration cal;
  for (const auto& p : two_a100_rows()) cal.gemm.push_back({p.op, int(p.m), int(p.n), int(p.k), p.dtype, p.time_s});
  cal.tables_gpu = find_gpu("A100-SXM4-80GB");
  cal.hbm_copy_Bps = 1500e9;  // measured on the 80 GB card
  Scenario s;
  Op gemv;
  gemv.kind = OpKind::gemm, gemv.m = 1, gemv.n = 4096, gemv.k = 4096;
  // The same GPU: its copy rate and its times as measured.
  const GpuModel same = gpu_model(*find_gpu("A100-SXM4-80GB"), s, &cal, 2, 2);
  CHECK(same.hbm_Bps == 1500e9);
  CHECK(op_time(gemv, same) == doctest::Approx(24e-6).scale(0).epsilon(1e-12));
  CHECK(same.gemm_source == "the calibration's GEMM table");
  // The 40 GB card (HBM 1555 GB/s on its datasheet, the 80 GB card's 2039): the copy rate at the same share,
  // 1500 x 1555 / 2039 = 1143.9 GB/s; the GEMV at the same share of the datasheet bandwidth, 24 us x 2039 / 1555.
  const GpuModel other = gpu_model(*find_gpu("A100-SXM4-40GB"), s, &cal, 2, 2);
  CHECK(other.hbm_Bps == doctest::Approx(1500e9 * 1555 / 2039).scale(0).epsilon(1e-12));
  CHECK(op_time(gemv, other) == doctest::Approx(24e-6 * 2039 / 1555).scale(0).epsilon(1e-9));
  CHECK(other.gemm_source == "the calibration's GEMM table, measured on A100-SXM4-80GB and carried to A100-SXM4-40GB through each "
                             "shape's roofline (HBM 2039 against 1555 GB/s, 312 against 312 TFLOP/s)");
}

TEST_CASE("the GPU a GEMM or HBM table names: its '# gpu:' line, and a calibration file's top-level gpu") {
  const auto declared = fit::declared_gpu("# Vidur's table\n# gpu: NVIDIA A100-SXM4-80GB\nop,m,n,k,dtype,time_us,tflops,eff_bw_GBps\n");
  REQUIRE(declared);
  CHECK(declared->name == "NVIDIA A100-SXM4-80GB");
  CHECK(declared->line == 2);
  CHECK(declared->col == 8);
  CHECK_FALSE(fit::declared_gpu("# no gpu here\nop,m,n,k,dtype,time_us,tflops,eff_bw_GBps\n"));
  // The calibration file keeps tpsim's name; an unknown one is a located error.
  CHECK(parse_calibration("gpu: NVIDIA A100-SXM4-80GB\n", "c.yaml").tables_gpu->name == "A100-SXM4-80GB");
  CHECK_THROWS_WITH_AS(parse_calibration("gpu: Quadro 9000\n", "c.yaml"), "c.yaml:1:6: error: unknown GPU model 'Quadro 9000'", InputError);
}

TEST_CASE("a grouped GEMM (MoE experts) from a calibration's table: each group's GEMM over its rows, its own weights") {
  Calibration cal;
  for (const auto& p : two_a100_rows()) cal.gemm.push_back({p.op, int(p.m), int(p.n), int(p.k), p.dtype, p.time_s});
  Scenario s;
  const GpuModel gpu = gpu_model(*find_gpu("A100-SXM4-80GB"), s, &cal, 2, 2);
  Op one;
  one.kind = OpKind::gemm, one.m = 1, one.n = 4096, one.k = 4096;
  Op two = one;  // a decode token's top-2 experts: 2 rows over 2 weight matrices, 1 row each
  two.m = 2, two.groups = 2;
  // groups x time(ceil(m / groups), n, k) = 2 x 24 us: the table's GEMV once per expert.
  CHECK(op_time(two, gpu) == doctest::Approx(2 * op_time(one, gpu)).scale(0).epsilon(1e-12));
  CHECK(op_time(one, gpu) == doctest::Approx(24e-6).scale(0).epsilon(1e-12));  // the table's m = 1 row, on the GPU it measured
}
