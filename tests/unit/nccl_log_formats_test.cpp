// Published nccl-tests outputs a helper session fed to tpsim in session 39 that it refused or misread
// (tests/data/measured/log_formats/, SOURCES.md): runs one after another without nccl-tests' test
// header, a pasted log's closing code fence and elided rows, nccl-tests' -J JSON report, a sweep whose
// time falls where NCCL changed protocol, and a reduction in another datatype than float.
#include <doctest/doctest.h>

#include "fit/calibration_yaml.hpp"
#include "fit/collective_fit.hpp"
#include "fit/nccl_log.hpp"
#include "nccl_log_test_files.hpp"
#include "util/error.hpp"

using namespace tpsim;
using namespace tpsim::fit;
using tpsim::test::error_of;
using tpsim::test::slurp;

namespace {

const std::string DIR = "tests/data/measured/log_formats/";

// The message fit_collective throws ("" when it fits).
std::string fit_error_of(const NcclLog& log, const FitOptions& options = {}) {
  try {
    fit_collective(log, options);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("runs that follow each other after a shell prompt, with no test header: --op reads one, or says there are two") {
  // One published shell session on 2x RTX 2080 Ti: all_reduce (line 1), all_gather (43), broadcast (85), reduce with -g2
  // (128), reduce on one GPU (170), alltoall (212), each after `root@...# ./build/X_perf ...` (the name at column 51).
  const std::string text = slurp(DIR + "2x-rtx2080ti-g2-six-runs-shell-prompts.log");
  CHECK(error_of(text, "s.log") ==
        "s.log:43:51: error: the log holds runs of several collectives: all_reduce_perf (line 1), all_gather_perf (line 43), "
        "broadcast_perf (line 85), reduce_perf (line 128), reduce_perf (line 170), alltoall_perf (line 212); give --op to read one");
  const NcclLog gather = parse_nccl_log(text, "s.log", {.op = CollectiveOp::all_gather});
  CHECK(gather.op == CollectiveOp::all_gather);
  CHECK(gather.nranks == 2);
  REQUIRE(!gather.rows.empty());
  CHECK(gather.rows.front().line > 43);
  CHECK(gather.rows.back().line < 85);  // its own table, lines 51-82
  CHECK(error_of(text, "s.log", {.op = CollectiveOp::reduce}) ==
        "s.log:170:51: error: --op reduce: the log holds more than one run of it (reduce_perf (line 128) and reduce_perf "
        "(line 170)); keep the one to read");
}

TEST_CASE("a wrapper's banners between runs, rows elided with dots, and busbw = algbw from one process of -g 2") {
  // nccl-tests v2.0.0 on macOS: `===begin X test===` before each run, `.......` where the author left rows out.
  const std::string text = slurp(DIR + "2x-gtx1080-macos-five-runs-banners-elided-rows.log");
  const NcclLog bcast = parse_nccl_log(text, "m.log", {.op = CollectiveOp::broadcast});
  CHECK(bcast.op == CollectiveOp::broadcast);
  CHECK(bcast.rows.size() == 6);  // 3 rows, the dots, 3 rows
  // Its all_gather prints algbw = busbw (before June 2020): `# nThread 1 nGpus 2` and no launcher say 2 ranks.
  const NcclLog gather = parse_nccl_log(text, "m.log", {.op = CollectiveOp::all_gather});
  CHECK(gather.nranks == 2);
  CHECK(gather.nranks_source == NranksSource::one_process);
  CHECK(gather.bw_before_2020);
}

TEST_CASE("a pasted log cut after a row, whose code fence closes right below it") {
  // nccl-tests#350: a gather_perf of 2 nodes x 1 A100 PCIe, 128 MiB steps, NCCL TRACE lines in the table, no footer.
  const NcclLog log = parse_nccl_log(slurp(DIR + "2x1-a100pcie-gather-linear-trace-closing-fence.log"), "g.log");
  CHECK(log.op == CollectiveOp::gather);
  CHECK(log.nranks == 2);
  CHECK(log.rows.size() == 85);
  CHECK(log.rows.back().size_B == 11408506880ull);
}

TEST_CASE("nccl-tests' JSON report (-J) reads as the text output it stands for, located at the report's lines") {
  const std::string text = slurp(DIR + "1x8-h100-azure-ndv5-json-report.json");
  const NcclLog log = parse_nccl_log(text, "r.json");
  CHECK(log.op == CollectiveOp::all_reduce);  // its args[0], /usr/local/bin/all_reduce_perf
  CHECK(log.nranks == 8);                     // eight devices, one Pid each
  CHECK(log.processes == 8);
  CHECK(log.nccl_version == "2.23.4");        // nccl_version 22304
  CHECK(log.gpu_name == "NVIDIA H100 80GB HBM3");
  REQUIRE(log.rows.size() == 1);
  CHECK(log.rows[0].size_B == 17179869184ull);
  CHECK(log.rows[0].out_of_place.time_us == doctest::Approx(62517.395194).scale(0));
  CHECK(log.rows[0].out_of_place.busbw_GBps == doctest::Approx(480.902491).scale(0));
  CHECK(log.rows[0].line == 187);  // the report's `"size": 17179869184` line
  // A report whose results are not there, and JSON that ends early, are located errors.
  CHECK(error_of("{\"version\": 3}\n", "r.json") ==
        "r.json:1:1: error: a JSON file without \"results\": tpsim reads nccl-tests' text output or its -J report");
  const std::string cut = error_of("{\n  \"version\": 3,\n  \"results\": [\n", "r.json");
  CHECK(cut.rfind("r.json:4:1: error: malformed JSON (an nccl-tests -J report?): ", 0) == 0);
}

TEST_CASE("a sweep whose time falls where NCCL changed protocol: its size pieces carry it, its lines stay the defaults") {
  // NVIDIA/nccl#2441: 0.5-1.5 MB in 0.1 MB steps on 2 x 2 H100 NVL; 373.04 us at 1.0 MB, then 156.74 us at 1.1 MB. No
  // envelope of lines (whose minimum never falls) follows it; before, the fit refused it as a mistyped time column.
  const NcclLog log = parse_nccl_log(slurp(DIR + "2x2-h100nvl-linear-step-protocol-drop.log"), "d.log");
  const CollectiveFit f = fit_collective(log, {});
  CHECK(f.lines_left_to_pieces);
  REQUIRE(f.pieces.size() == 2);
  CHECK(f.pieces[0].max_size_B == 1000000);  // the last size before the drop
  for (const ProtocolFit& p : f.protocols) CHECK_FALSE(p.constrained);
  CHECK(*flat_lines_note(f) ==
        "the times fall where NCCL changed protocol, which no set of protocol lines follows (a line came out flat): the 2 size "
        "pieces carry the curve on this box, and the protocol lines are left to the defaults (fitted: false)");
  // Two pieces, one each side of the drop, follow it: the fit's median error at >= 1 KiB reads 2.1% (tpsim fit prints it).
  CHECK(f.large.median < 0.03);
}

TEST_CASE("too few sizes for a line per protocol: the advice names what works for the op") {
  // sendrecv_perf -g 8, 4 sizes: --platform cannot choose its protocol (tpsim does not sweep send_recv), so only --protocol.
  const NcclLog log = parse_nccl_log(slurp(DIR + "1x8-a100-sendrecv-g8-four-sizes.log"), "sr.log");
  CHECK(fit_error_of(log) ==
        "sr.log:9: error: 4 sizes with an out-of-place time; fitting latency and bandwidth of LL, LL128 and Simple needs at least 6 "
        "(one protocol's line needs 2: give --protocol, the one NCCL ran at these sizes)");
  FitOptions simple;
  simple.forced_protocol = Protocol::Simple;
  CHECK(fit_error_of(log, simple).empty());
}

TEST_CASE("a reduction in another datatype: its element size, and a note that NCCL's arithmetic is not priced") {
  // The published `--datatype all` sweep is refused whole (one sweep a file); each datatype's rows alone read.
  const std::string all = slurp(DIR + "2x8-h200-roce-datatype-all.log");
  CHECK(error_of(all, "dt.log").find("the sweep starts over here with another datatype (uint8 after int8") != std::string::npos);
  const std::string header = "# nranks: 16\n#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n";
  std::string fp8 = header, bf16 = header;
  for (std::size_t at = 0, end; at < all.size(); at = end + 1) {
    end = all.find('\n', at);
    if (end == std::string::npos) end = all.size();
    const std::string line = all.substr(at, end - at);
    if (line.find(" f8e4m3 ") != std::string::npos) fp8 += line + "\n";
    if (line.find(" bfloat16 ") != std::string::npos) bf16 += line + "\n";
  }
  const NcclLog f8 = parse_nccl_log(fp8, "f8.log");
  REQUIRE(f8.rows.size() == 3);
  CHECK(f8.rows[0].type == "f8e4m3");
  CHECK(*datatype_note(f8) ==
        "the log reduces f8e4m3: tpsim prices the bytes moved at the pace of float, half and bfloat16, not NCCL's arithmetic on "
        "other types; a published 2x8 H200 sweep of every datatype (tests/data/measured/log_formats/2x8-h200-roce-datatype-all.log) "
        "reached 482-487 GB/s of bus bandwidth in those, 436-467 in 32- and 64-bit types and 361-390 in 8-bit ones: read the "
        "bandwidth-bound sizes as optimistic");
  CHECK_FALSE(datatype_note(parse_nccl_log(bf16, "bf16.log")));  // half, bfloat16, float: the modelled pace
  // Element sizes as nccl-tests names its types: count = size / bytes (f8e4m3's 10737418240 B row counts 10737418240).
  CHECK(nccl_type_bytes("f8e4m3") == 1);
  CHECK(nccl_type_bytes("bfloat16") == 2);
  CHECK(nccl_type_bytes("float") == 4);
  CHECK(nccl_type_bytes("uint64") == 8);
  CHECK_FALSE(nccl_type_bytes("bf16"));
  // nccl-tests' own count column agrees with those sizes: count = size / bytes (f8e4m3 1 B, bfloat16 2 B an element).
  CHECK(f8.rows[0].count == f8.rows[0].size_B / std::uint64_t(*nccl_type_bytes(f8.rows[0].type)));
  const NcclLog b16 = parse_nccl_log(bf16, "bf16.log");
  CHECK(b16.rows[0].count == b16.rows[0].size_B / std::uint64_t(*nccl_type_bytes(b16.rows[0].type)));
  // A calibration of it records the datatype, and says what that means for runs of other types.
  FitOptions simple;
  simple.forced_protocol = Protocol::Simple;
  CollectiveFit fit = fit_collective(f8, simple);
  fit.datatype = "f8e4m3";
  const std::string yaml = calibration_yaml({.files = {"f8.log"}, .collectives = {fit}});
  CHECK(yaml.find("    datatype: f8e4m3   # NCCL reduces it slower than float, half and bfloat16: runs carry its pace to every "
                  "type\n") != std::string::npos);
}
