// Unit tests of tpsim-calibrate's plain C++ side (library tpsim_calibrate_io): the
// nccl-tests log writer, the CSV and manifest writers, the GPU-list / byte-size / command
// line parsers, model-card shapes and topology parsing. No GPU needed.
#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <vector>

#include "tpsim-calibrate/calib_csv.hpp"
#include "tpsim-calibrate/calib_error.hpp"
#include "tpsim-calibrate/calib_manifest.hpp"
#include "tpsim-calibrate/calib_model.hpp"
#include "tpsim-calibrate/calib_options.hpp"
#include "tpsim-calibrate/calib_stats.hpp"
#include "tpsim-calibrate/calib_topo.hpp"
#include "tpsim-calibrate/calib_nccl_log.hpp"

using namespace tpsim;
using namespace tpsim::calib;

namespace {

std::string usage_error_of(const std::string& text) {
  try {
    parse_gpu_list(text);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

std::vector<std::string> fields_of(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> f;
  for (std::string w; in >> w;) f.push_back(w);
  return f;
}

struct Argv {
  std::vector<std::string> words;
  std::vector<const char*> ptrs;
  explicit Argv(std::vector<std::string> w) : words(std::move(w)) {
    for (const std::string& s : words) ptrs.push_back(s.c_str());
  }
  ParseResult parse(std::ostream& out, std::ostream& err) const {
    return parse_command_line(static_cast<int>(ptrs.size()), ptrs.data(), out, err);
  }
};

}  // namespace

TEST_CASE("calibrate: bus bandwidth factors follow nccl-tests PERFORMANCE.md") {
  // all_reduce: busbw = algbw * 2(n-1)/n; all_gather, reduce_scatter: algbw * (n-1)/n.
  CHECK(bus_factor(CollectiveOp::all_reduce, 2) == doctest::Approx(1.0).scale(0));     // 2*1/2
  CHECK(bus_factor(CollectiveOp::all_reduce, 8) == doctest::Approx(1.75).scale(0));    // 2*7/8
  CHECK(bus_factor(CollectiveOp::all_gather, 8) == doctest::Approx(0.875).scale(0));   // 7/8
  CHECK(bus_factor(CollectiveOp::reduce_scatter, 4) == doctest::Approx(0.75).scale(0));  // 3/4
  // algbw = size / time / 1e9: 1 MiB in 27.37 us = 1048576 / 27.37e-6 / 1e9 = 38.311 GB/s.
  CHECK(algbw_GBps(1048576, 27.37) == doctest::Approx(38.3111).scale(0).epsilon(1e-4));
}

TEST_CASE("calibrate: an all_reduce row has the exact nccl-tests columns") {
  // 8 ranks, 1 MiB: out-of-place 27.37 us -> algbw 1048576/27.37e-6/1e9 = 38.31,
  // busbw 38.31 * 2*7/8 = 67.04; in-place 26.93 us -> 38.94, 38.94 * 1.75 = 68.14.
  // The expected line is the one real nccl-tests printed for the same numbers (DGX H100 log
  // in the shared data, source NVIDIA/exemplar-performance).
  const NcclRow row{1048576, 27.37, 30.0, 26.93, 29.0};
  CHECK(format_nccl_row(row, CollectiveOp::all_reduce, 8) ==
        "     1048576        262144     float     sum      -1    27.37   38.31   67.04      0    26.93   38.94   68.14      0");
  // 2 ranks, 8 B in 12.25 / 12.00 us: bandwidths round to 0.00 (2x RTX 2080 Ti log).
  CHECK(format_nccl_row({8, 12.25, 0, 12.00, 0}, CollectiveOp::all_reduce, 2) ==
        "           8             2     float     sum      -1    12.25    0.00    0.00      0    12.00    0.00    0.00      0");
  // Times of 10000 us and more print without decimals: 512 MiB in 134330 us ->
  // algbw 536870912/0.13433/1e9 = 3.9967 -> "4.00", busbw = algbw * 2*1/2 = 4.00.
  CHECK(format_nccl_row({536870912, 134330, 0, 134072, 0}, CollectiveOp::all_reduce, 2) ==
        "   536870912     134217728     float     sum      -1   134330    4.00    4.00      0   134072    4.00    4.00      0");
}

TEST_CASE("calibrate: nccl-tests time format switches at 100 us and 10000 us") {
  CHECK(format_nccl_time(99.994) == "  99.99");
  CHECK(format_nccl_time(2151.04) == " 2151.0");
  CHECK(format_nccl_time(15749.4) == "  15749");
}

TEST_CASE("calibrate: all_gather rows use redop none and the (n-1)/n bus factor") {
  // 4 ranks, 4 MiB gathered in 100 us: algbw = 4194304 / 100e-6 / 1e9 = 41.94,
  // busbw = 41.94 * 3/4 = 31.46.
  const std::string line = format_nccl_row({4194304, 100.0, 0, 100.0, 0}, CollectiveOp::all_gather, 4);
  const auto f = fields_of(line);
  REQUIRE(f.size() == 13);
  CHECK(f[3] == "none");
  CHECK(f[5] == "100.0");
  CHECK(f[6] == "41.94");
  CHECK(f[7] == "31.46");
}

TEST_CASE("calibrate: all_gather and reduce_scatter sizes are whole floats per rank") {
  // 8 ranks: 8 B = 2 floats -> 0 per rank -> not measurable; 100 B = 25 floats -> 24 -> 96 B.
  CHECK(collective_bytes(CollectiveOp::all_gather, 8, 8) == 0);
  CHECK(collective_bytes(CollectiveOp::reduce_scatter, 100, 8) == 96);
  CHECK(collective_bytes(CollectiveOp::all_reduce, 100, 8) == 100);
  CHECK(collective_bytes(CollectiveOp::all_reduce, 10, 8) == 8);  // 2 whole floats
}

TEST_CASE("calibrate: a whole nccl log with header and rows and average and p99 table") {
  NcclLogInfo info;
  info.collective = CollectiveOp::all_reduce;
  info.nranks = 2;
  info.comments = {"hardware: 2x Test GPU", "nranks: 2  nodes: 1  gpus_per_node: 2"};
  info.devices = {"Rank  0 Group  0 Pid      1 on       host device  0 [0x07] Test GPU"};
  // busbw cells (factor 2*1/2 = 1): 1 MiB / 100 us = 10.49 GB/s (oop), / 50 us = 20.97 (ip);
  // 2 MiB / 100 us = 20.97, / 200 us = 10.49. Mean of the four printed cells:
  // (10.49 + 20.97 + 20.97 + 10.49) / 4 = 15.73.
  const std::vector<NcclRow> rows = {{1048576, 100, 110, 50, 55}, {2097152, 100, 120, 200, 210}};
  const std::string log = format_nccl_log(info, rows);
  std::istringstream in(log);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  CHECK(lines[0] == "# nccl-tests-compatible log written by tpsim-calibrate 0.1.0");
  CHECK(lines[1] == "# hardware: 2x Test GPU");
  CHECK(log.find("#                                                              out-of-place                       in-place          \n"
                 "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
                 "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       \n") !=
        std::string::npos);
  int data_rows = 0;
  for (const std::string& l : lines)
    if (!l.empty() && l[0] != '#') {
      ++data_rows;
      CHECK(fields_of(l).size() == 13);
    }
  CHECK(data_rows == 2);
  CHECK(log.find("# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 15.73\n") != std::string::npos);
  CHECK(log.find("\n#    1048576      110.0      55.00\n") != std::string::npos);  // p99 table row
  CHECK_THROWS_AS(format_nccl_log(info, {}), RunError);  // never a log without a measured row
}

TEST_CASE("calibrate: NCCL version codes") {
  CHECK(nccl_version_string(22809) == "2.28.9");  // >= 2.9: 2*10000 + 28*100 + 9
  CHECK(nccl_version_string(2708) == "2.7.8");    // older: 2*1000 + 7*100 + 8
}

TEST_CASE("calibrate: GPU lists") {
  CHECK(parse_gpu_list("0-3") == std::vector<int>{0, 1, 2, 3});
  CHECK(parse_gpu_list("0,2") == std::vector<int>{0, 2});
  CHECK(parse_gpu_list("4-5,0-1") == std::vector<int>{0, 1, 4, 5});
  CHECK(parse_gpu_list("7") == std::vector<int>{7});
  CHECK(gpu_set_label({0, 1, 2, 3}) == "0-3");
  CHECK(gpu_set_label({0, 2}) == "0+2");
  CHECK(gpu_set_label({0, 1, 4, 5, 7}) == "0-1+4-5+7");
}

TEST_CASE("calibrate: GPU list errors name the offending piece") {
  CHECK(usage_error_of("") == "--gpus \"\": empty GPU list (write e.g. 0-3 or 0,2)");
  CHECK(usage_error_of("3-1") == "--gpus \"3-1\": range 3-1 ends before it starts");
  CHECK(usage_error_of("a") == "--gpus \"a\": GPU \"a\": expected a non-negative integer");
  CHECK(usage_error_of("0,,1") == "--gpus \"0,,1\": empty item in the list");
  CHECK(usage_error_of("0,") == "--gpus \"0,\": empty item in the list");
  CHECK(usage_error_of("1-") == "--gpus \"1-\": range end \"\": expected a non-negative integer");
  CHECK(usage_error_of("-1") == "--gpus \"-1\": range start \"\": expected a non-negative integer");
  CHECK(usage_error_of("0-2,2") == "--gpus \"0-2,2\": GPU 2 is listed twice");
}

TEST_CASE("calibrate: byte sizes are 1024-based like nccl-tests -b and -e") {
  CHECK(parse_byte_size("8") == 8);
  CHECK(parse_byte_size("64K") == 65536);           // 64 * 1024
  CHECK(parse_byte_size("512M") == 536870912);      // 512 * 1024^2
  CHECK(parse_byte_size("512MiB") == 536870912);
  CHECK(parse_byte_size("1G") == 1073741824);       // 1024^3
  CHECK_THROWS_WITH_AS(parse_byte_size("512MB"),
                       "size \"512MB\": \"MB\" is ambiguous; write M or MiB (1024-based, as nccl-tests) or the plain byte count",
                       UsageError);
  CHECK_THROWS_WITH_AS(parse_byte_size("12X"), "size \"12X\": unknown unit \"X\" (use K, M, G or KiB, MiB, GiB)", UsageError);
  CHECK_THROWS_AS(parse_byte_size(""), UsageError);
  // 8 B to 512 MiB by factor 2: 2^3 .. 2^29, 27 sizes.
  const auto sizes = sweep_sizes(8, 512ull << 20, 2);
  CHECK(sizes.size() == 27);
  CHECK(sizes.back() == 536870912);
  CHECK(sweep_sizes(8, 100, 4) == std::vector<uint64_t>{8, 32});  // 128 > 100
}

TEST_CASE("calibrate: command line") {
  std::ostringstream out, err;
  SUBCASE("--help works and says what it needs") {
    const ParseResult r = Argv({"tpsim-calibrate", "--help"}).parse(out, err);
    CHECK_FALSE(r.run);
    CHECK(r.exit_code == 0);
    CHECK(out.str().find("Needs at least one visible NVIDIA GPU") != std::string::npos);
    CHECK(out.str().find("--no-p2p-off") != std::string::npos);
    CHECK(out.str().find("internal") == std::string::npos);  // the child flag stays hidden
  }
  SUBCASE("--out is required") {
    const ParseResult r = Argv({"tpsim-calibrate"}).parse(out, err);
    CHECK_FALSE(r.run);
    CHECK(r.exit_code == 2);
    CHECK(err.str().rfind("tpsim-calibrate: error: --out is required", 0) == 0);
  }
  SUBCASE("defaults, and --quick lowers only what was not given") {
    const ParseResult d = Argv({"tpsim-calibrate", "--out", "calib"}).parse(out, err);
    REQUIRE(d.run);
    CHECK(d.options.iters == 20);
    CHECK(d.options.warmup == 5);
    CHECK(d.options.factor == 2);
    CHECK(d.options.max_bytes == 536870912);
    CHECK(d.options.gpus.empty());
    CHECK(d.options.p2p_off_sweep);
    const ParseResult q = Argv({"tpsim-calibrate", "--out", "c", "--quick", "--iters", "9", "--gpus", "0-1", "--no-p2p-off",
                                "--max-bytes", "1M"})
                              .parse(out, err);
    REQUIRE(q.run);
    CHECK(q.options.iters == 9);
    CHECK(q.options.warmup == 2);
    CHECK(q.options.factor == 4);
    CHECK(q.options.gpus == std::vector<int>{0, 1});
    CHECK_FALSE(q.options.p2p_off_sweep);
    CHECK(q.options.max_bytes == 1048576);
  }
  SUBCASE("bad values exit 2 with one error line") {
    const ParseResult r = Argv({"tpsim-calibrate", "--out", "c", "--gpus", "3-1"}).parse(out, err);
    CHECK(r.exit_code == 2);
    CHECK(err.str() == "tpsim-calibrate: error: --gpus \"3-1\": range 3-1 ends before it starts\n");
    std::ostringstream err2;
    CHECK(Argv({"tpsim-calibrate", "--out", "c", "--min-bytes", "1K", "--max-bytes", "8"}).parse(out, err2).exit_code == 2);
    CHECK(err2.str() == "tpsim-calibrate: error: --min-bytes 1024 is above --max-bytes 8\n");
    std::ostringstream err3;
    CHECK(Argv({"tpsim-calibrate", "--out", "c", "--factor", "1"}).parse(out, err3).exit_code == 2);
    CHECK(err3.str() == "tpsim-calibrate: error: --factor 1: must be at least 2\n");
  }
}

TEST_CASE("calibrate: model card shapes of Llama-3.1-8B at TP 1 and 8") {
  const std::string card =
      "# Llama-3.1-8B\nmodel: Llama-3.1-8B\nhidden_size: 4096\nnum_hidden_layers: 32\nnum_attention_heads: 32\n"
      "num_key_value_heads: 8\nhead_dim: 128\nintermediate_size: 14336\nvocab_size: 128256\nrope_scaling:\n"
      "  factor: 8.0\n  hidden_size: 99   # nested keys are not the model's\n";
  const ModelShape m = parse_model_card(card, "llama.yaml");
  CHECK(m.name == "Llama-3.1-8B");
  CHECK(m.hidden_size == 4096);
  CHECK(m.num_key_value_heads == 8);
  const GemmPlan plan = plan_gemm_shapes(m, {1, 8}, {1});
  REQUIRE(plan.shapes.size() == 10);
  CHECK(plan.skipped.empty());
  // TP=1: qkv n = (32 + 2*8) * 128 = 6144, k = 4096; gate_up n = 2 * 14336 = 28672.
  CHECK(plan.shapes[0].op == "qkv");
  CHECK(plan.shapes[0].n == 6144);
  CHECK(plan.shapes[0].k == 4096);
  CHECK(plan.shapes[2].n == 28672);
  // TP=8: qkv n = (32/8 + 2*8/8) * 128 = 768; o_proj k = 32/8 * 128 = 512;
  // gate_up n = 2*14336/8 = 3584; down k = 14336/8 = 1792; lm_head n = 128256/8 = 16032.
  CHECK(plan.shapes[5].n == 768);
  CHECK(plan.shapes[6].n == 4096);
  CHECK(plan.shapes[6].k == 512);
  CHECK(plan.shapes[7].n == 3584);
  CHECK(plan.shapes[8].k == 1792);
  CHECK(plan.shapes[9].op == "lm_head");
  CHECK(plan.shapes[9].n == 16032);
  // The built-in default has the same shapes.
  CHECK(plan_gemm_shapes(llama31_8b(), {8}, {1}).shapes[0].n == 768);
}

TEST_CASE("calibrate: model card edge cases and errors") {
  ModelShape m = llama31_8b();
  m.num_key_value_heads = 4;  // TP=8 > 4 KV heads: one (replicated) KV head per rank
  // qkv n = (32/8 + 2*1) * 128 = 768.
  CHECK(plan_gemm_shapes(m, {8}, {1}).shapes[0].n == 768);
  const GemmPlan p3 = plan_gemm_shapes(llama31_8b(), {3}, {1});
  CHECK(p3.shapes.size() == 1);  // only lm_head: n = ceil(128256/3) = 42752
  CHECK(p3.shapes[0].n == 42752);
  REQUIRE(p3.skipped.size() == 4);
  CHECK(p3.skipped[0] == "qkv at TP=3: 32 attention heads do not divide by 3");
  CHECK(p3.skipped[2] == "gate_up at TP=3: intermediate_size 14336 does not divide by 3");

  const std::string json =
      "{\n  \"_name_or_path\": \"Qwen/Qwen3-8B\",\n  \"hidden_size\": 4096,\n  \"intermediate_size\": 12288,\n"
      "  \"num_attention_heads\": 32,\n  \"num_hidden_layers\": 36,\n  \"vocab_size\": 151936,\n"
      "  \"rope_scaling\": {\"head_dim\": 7},\n  \"num_key_value_heads\": 8\n}\n";
  const ModelShape q = parse_model_card(json, "config.json");
  CHECK(q.name == "Qwen/Qwen3-8B");
  CHECK(q.intermediate_size == 12288);
  CHECK(q.head_dim == 128);  // absent at the top level: hidden / heads = 4096 / 32

  CHECK_THROWS_WITH_AS(parse_model_card("hidden_size: 4096\n", "m.yaml"),
                       "m.yaml: missing intermediate_size, num_attention_heads, num_hidden_layers, vocab_size (a model card "
                       "needs hidden_size, intermediate_size, num_attention_heads, num_hidden_layers, vocab_size)",
                       UsageError);
  CHECK_THROWS_WITH_AS(parse_model_card("model: x\nhidden_size: big\n", "m.yaml"),
                       "m.yaml:2: hidden_size: expected a positive integer, got \"big\"", UsageError);
}

TEST_CASE("calibrate: gemm.csv and hbm.csv and launch.csv") {
  // o_proj m=1 n=4096 k=4096 in 10 us: tflops = 2*1*4096*4096 / 10e-6 / 1e12 = 3.355;
  // eff_bw = (1*4096 + 4096*4096 + 1*4096) * 2 B / 10e-6 / 1e9 = 3357.08 GB/s.
  const std::string gemm = format_gemm_csv("NVIDIA H200", {{"o_proj", 1, 4096, 4096, "bf16", 10.0}});
  CHECK(gemm == "# gpu: NVIDIA H200\nop,m,n,k,dtype,time_us,tflops,eff_bw_GBps\no_proj,1,4096,4096,bf16,10.000,3.355,3357.08\n");
  // 1 GiB copied in 500 us: copy_GBps = 2 * 1073741824 / 500e-6 / 1e9 = 4294.97 (read + write).
  const std::string hbm = format_hbm_csv("NVIDIA H200", {{1073741824, 500.0}});
  CHECK(hbm.rfind("# gpu: NVIDIA H200\n# ", 0) == 0);
  CHECK(hbm.find("read + write: 2 * bytes / time") != std::string::npos);
  CHECK(hbm.find("\nbytes,time_us,copy_GBps\n1073741824,500.000,4294.97\n") != std::string::npos);
  CHECK(format_launch_csv({{"kernel_launch_back_to_back", 2.5}}) == "what,value_us\nkernel_launch_back_to_back,2.500\n");
}

TEST_CASE("calibrate: the step proxy's cases, bytes and step.csv") {
  const ModelShape m = llama31_8b();
  // Decode of 1 sequence at 1024 tokens reads per layer K and V: 1024 x 8 KV heads x 128 x 2 x 2 B = 4 MiB.
  CHECK(kv_cache_bytes(m, 1, 1024) == 4 * 1024 * 1024);
  CHECK(kv_cache_bytes(m, 32, 1024) == 128 * 1024 * 1024);
  // Weights: per layer qkv 6144x4096 + o 4096x4096 + gate_up 28672x4096 + down 4096x14336 =
  // 218,103,808 elements, plus lm_head 128256 x 4096 = 525,336,576;
  // bf16: 2 x (32 x 218,103,808 + 525,336,576) = 15,009,316,864 B.
  CHECK(weight_bytes(m) == 15009316864LL);
  const std::vector<StepCase> cases = step_cases();
  REQUIRE(cases.size() == 5);
  CHECK(cases[0].phase == "decode");
  CHECK(cases[4].tokens == 2048);
  const std::string csv = format_step_csv({{"decode", 1, 1024, 1, 5012.25}, {"prefill", 1, 0, 512, 21000}});
  CHECK(csv.substr(csv.find('\n') + 1) == "phase,batch,context,tokens,time_us\ndecode,1,1024,1,5012.250\nprefill,1,0,512,21000.000\n");
}

TEST_CASE("calibrate: nvidia-smi topo -m classes and one representative pair per class") {
  // 8x A100 with NVLink-bridged pairs (shared data topo/8xa100-nv12-pairs-dual-socket.txt),
  // with the terminal underline codes nvidia-smi prints around the header.
  const std::string topo =
      "\t\x1b[4mGPU0\tGPU1\tGPU2\tGPU3\tGPU4\tGPU5\tGPU6\tGPU7\tCPU Affinity\tNUMA Affinity\x1b[0m\n"
      "GPU0\t X \tNV12\tNODE\tNODE\tSYS\tSYS\tSYS\tSYS\t0-31,64-95\t0\n"
      "GPU1\tNV12\t X \tNODE\tNODE\tSYS\tSYS\tSYS\tSYS\t0-31,64-95\t0\n"
      "GPU2\tNODE\tNODE\t X \tNV12\tSYS\tSYS\tSYS\tSYS\t0-31,64-95\t0\n"
      "GPU3\tNODE\tNODE\tNV12\t X \tSYS\tSYS\tSYS\tSYS\t0-31,64-95\t0\n"
      "GPU4\tSYS\tSYS\tSYS\tSYS\t X \tNV12\tNODE\tNODE\t32-63,96-127\t1\n"
      "GPU5\tSYS\tSYS\tSYS\tSYS\tNV12\t X \tNODE\tNODE\t32-63,96-127\t1\n"
      "GPU6\tSYS\tSYS\tSYS\tSYS\tNODE\tNODE\t X \tNV12\t32-63,96-127\t1\n"
      "GPU7\tSYS\tSYS\tSYS\tSYS\tNODE\tNODE\tNV12\t X \t32-63,96-127\t1\n"
      "\nLegend:\n\n  X    = Self\n  SYS  = Connection traversing PCIe ...\n";
  const TopoMatrix m = parse_topo_matrix(topo);
  REQUIRE(m.gpu_names.size() == 8);
  CHECK(*m.cell(0, 1) == "NV12");
  CHECK(*m.cell(0, 2) == "NODE");
  CHECK(*m.cell(3, 4) == "SYS");
  CHECK(m.cell(0, 8) == nullptr);
  const std::vector<int> all = {0, 1, 2, 3, 4, 5, 6, 7};
  const auto pairs = representative_pairs(all, [&](int a, int b) { return *m.cell(a, b); });
  // 28 pairs = C(8,2): NV12 4 (the bridged pairs), NODE 8 (4 per socket), SYS 16 (4 x 4).
  REQUIRE(pairs.size() == 3);
  CHECK((pairs[0].pair_class == "NV12" && pairs[0].a == 0 && pairs[0].b == 1 && pairs[0].pairs == 4));
  CHECK((pairs[1].pair_class == "NODE" && pairs[1].a == 0 && pairs[1].b == 2 && pairs[1].pairs == 8));
  CHECK((pairs[2].pair_class == "SYS" && pairs[2].a == 0 && pairs[2].b == 4 && pairs[2].pairs == 16));
  CHECK_THROWS_AS(parse_topo_matrix("no matrix here\n"), RunError);
}

TEST_CASE("calibrate: PCI bus ids from nvidia-smi and CUDA compare equal") {
  CHECK(normalize_bus_id("00000000:07:00.0") == "0000:07:00.0");
  CHECK(normalize_bus_id("0000:B3:00.0") == "0000:b3:00.0");
  const auto ids = parse_bus_id_query("0, 00000000:07:00.0\n1, 00000000:0F:00.0\n");
  REQUIRE(ids.size() == 2);
  CHECK(ids.at(1) == "0000:0f:00.0");
}

TEST_CASE("calibrate: nvidia-smi -q essentials") {
  const std::string q =
      "==============NVSMI LOG==============\n\nTimestamp                                 : Mon\n"
      "Driver Version                            : 570.86.15\nCUDA Version                              : 12.8\n\n"
      "Attached GPUs                             : 1\nGPU 00000000:07:00.0\n"
      "    Product Name                          : NVIDIA H200\n    Display Mode                          : Disabled\n"
      "    MIG Mode\n        Current                           : Disabled\n        Pending                           : Disabled\n"
      "    PCI\n        Bus                               : 0x07\n        Bus Id                            : 00000000:07:00.0\n"
      "    FB Memory Usage\n        Total                             : 143771 MiB\n        Used                              : 1 MiB\n"
      "    Max Clocks\n        Graphics                          : 1980 MHz\n        SM                                : 1980 MHz\n";
  const std::string e = nvidia_smi_q_essentials(q);
  CHECK(e.find("Driver Version                            : 570.86.15") != std::string::npos);
  CHECK(e.find("GPU 00000000:07:00.0") != std::string::npos);
  CHECK(e.find("Product Name") != std::string::npos);
  CHECK(e.find("    MIG Mode\n        Current") != std::string::npos);
  CHECK(e.find("Total                             : 143771 MiB") != std::string::npos);
  CHECK(e.find("SM                                : 1980 MHz") != std::string::npos);
  CHECK(e.find("Timestamp") == std::string::npos);
  CHECK(e.find("Display Mode") == std::string::npos);
  CHECK(e.find("Pending") == std::string::npos);
  CHECK(e.find("Used") == std::string::npos);
  CHECK(e.find("0x07") == std::string::npos);
}

TEST_CASE("calibrate: manifest lists files and skipped parts and merges the child fragment") {
  Manifest child;
  child.written("nccl/all_reduce_gpus0-1_p2p-off.log", "all_reduce, 2 ranks");
  child.skipped("nccl p2p-off gpus 0-3 all_gather", "no requested size\tgives a whole float");
  std::string fragment;
  for (const ManifestEntry& e : child.entries()) fragment += Manifest::to_fragment_line(e);
  Manifest m;
  m.skipped("nccl sweeps", "one GPU: no multi-rank sweep");
  m.merge_fragment(fragment + "garbage\n");
  REQUIRE(m.entries().size() == 4);
  CHECK(m.entries()[2].text == "no requested size gives a whole float");  // tab folded
  CHECK(m.entries()[3].kind == "note");
  const std::string yaml = m.to_yaml({{"tool", "tpsim-calibrate 0.1.0"}});
  CHECK(yaml.find("tool: \"tpsim-calibrate 0.1.0\"\n") != std::string::npos);
  CHECK(yaml.find("written:\n  - path: \"nccl/all_reduce_gpus0-1_p2p-off.log\"\n    what: \"all_reduce, 2 ranks\"\n") !=
        std::string::npos);
  CHECK(yaml.find("skipped:\n  - part: \"nccl sweeps\"\n    reason: \"one GPU: no multi-rank sweep\"\n") != std::string::npos);
  CHECK(yaml_quote("a \"b\" \\ c") == "\"a \\\"b\\\" \\\\ c\"");
}

TEST_CASE("calibrate: median and p99 by nearest rank") {
  CHECK(summarize({5, 1, 3}).median == 3);
  CHECK(summarize({4, 1, 3, 2}).median == 2.5);  // (2 + 3) / 2
  std::vector<double> hundred;
  for (int i = 1; i <= 100; ++i) hundred.push_back(i);
  CHECK(summarize(hundred).p99 == 99);  // ceil(0.99 * 100) = 99th smallest
  std::vector<double> twenty;
  for (int i = 1; i <= 20; ++i) twenty.push_back(i);
  CHECK(summarize(twenty).p99 == 20);   // ceil(0.99 * 20) = 20th smallest
  CHECK_THROWS_AS(summarize({}), RunError);
}
