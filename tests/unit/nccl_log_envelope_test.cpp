// tpsim_fit's nccl-tests reader: the op a log names (test header, a comment, the command line
// that ran the binary), the caller's --op, and the envelope a log records (GPU model, NCCL
// version, launch mode). The recorded logs are real (calibrate/recorded/SOURCES.md); the small
// inline logs only carry header lines, no measurements.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "fit/collective_fit.hpp"
#include "fit/log_settings.hpp"
#include "fit/nccl_log.hpp"
#include "fit/nccl_log_text.hpp"
#include "nccl_log_test_files.hpp"
#include "util/error.hpp"

using namespace tpsim;
using namespace tpsim::fit;
using tpsim::test::error_of;
using tpsim::test::slurp;

namespace {

// The 2-node HGX H100 run of nccl-tests issue #309, as published: the mpirun command line,
// MPI's warnings, the device block, `NCCL version 2.26.2+cuda12.8`, 8 B to 16 GiB.
const char* HGX = "calibrate/recorded/2x-hgx-h100-16gpu-ib-nccl2.26.log";
// Its nccl-tests output from '# nThread' to the 128 B row (lines 20-50): every out-of-place
// algbw prints 0.00, so neither the op nor the rank count can come from busbw/algbw.
const char* TINY = "tests/data/nccl/2x-hgx-h100-tiny-8-128B.log";

// One device block line in the nccl-tests layout (no measurement in it).
std::string rank_line(int rank, int pid, const char* host, const char* gpu) {
  return "#  Rank " + std::to_string(rank) + " Group  0 Pid " + std::to_string(pid) + " on " + host + " device  " +
         std::to_string(rank) + " [0x1" + std::to_string(rank) + "] " + gpu + "\n";
}

}  // namespace

TEST_CASE("a published log names its op on the command line: all_reduce_perf_mpi") {
  const NcclLog log = parse_nccl_log(slurp(HGX), HGX);
  // `$HOME/nccl-tests/build/all_reduce_perf_mpi -b 8 -e 16g -f 2 -g 1` (nccl-tests built with
  // NAME_SUFFIX=_mpi) is the only place the op is named; its columns would say all_reduce too.
  CHECK(log.op == CollectiveOp::all_reduce);
  CHECK(log.op_source == OpSource::command_line);
  CHECK(log.nranks == 16);  // Rank 0..15
  CHECK(log.nranks_source == NranksSource::rank_lines);
  CHECK(log.rows.size() == 32);  // 8 B .. 16 GiB, doubling
  // The envelope: one process per GPU (16 Pids) on 2 hosts, one thread driving one GPU each.
  CHECK(log.gpu_name == "NVIDIA H100 80GB HBM3");
  CHECK(log.nccl_version == "2.26.2+cuda12.8");  // the NCCL_DEBUG=VERSION line
  CHECK(log.nccl_tests_version.empty());         // this nccl-tests prints no version line
  CHECK(log.processes == 16);
  CHECK(log.hosts == 2);
  CHECK(log.threads_per_process == 1);
  CHECK(log.gpus_per_thread == 1);
}

TEST_CASE("the 2-node HGX H100 log fits within 10% median and 25% worst at >= 1 KiB") {
  // Like every recorded log (fit_test.cpp): today 1.9% median, 10.2% worst at 512 KiB, where the
  // measured 77.69 us sits above its neighbours' trend (48.67 us at 256 KiB, 71.93 us at 1 MiB).
  FitOptions opt;
  opt.nodes = 2;
  const CollectiveFit fit = fit_collective(parse_nccl_log(slurp(HGX), HGX), opt);
  INFO("median ", fit.large.median, " worst ", fit.large.worst, " at ", fit.large.worst_size_B);
  CHECK(fit.large.points == 25);  // 1 KiB .. 16 GiB
  CHECK(fit.large.median <= 0.10);
  CHECK(fit.large.worst <= 0.25);
}

TEST_CASE("a tiny-size log (every algbw 0.00) reads with --op, and only with it when it names no binary") {
  const std::string text = slurp(TINY);
  // busbw/algbw is 0.00/0.00 on every row: the columns cannot tell all_reduce from reduce_scatter.
  CHECK(error_of(text, "tiny.log") ==
        "tiny.log:27:1: error: cannot tell which collective this log measures (no row with a non-zero algbw, and no "
        "*_perf binary named); give --op, or name it in the file name, e.g. 'mybox_all_reduce.log'");
  const NcclLog log = parse_nccl_log(text, "tiny.log", {.op = CollectiveOp::all_reduce});
  CHECK(log.op == CollectiveOp::all_reduce);
  CHECK(log.op_source == OpSource::given);
  CHECK(log.nranks == 16);  // from the Rank lines: busbw/algbw gives none here
  CHECK(log.rows.size() == 5);  // 8, 16, 32, 64, 128 B
  CHECK(log.rows.back().out_of_place.time_us == 25.68);
  // With the command line in front (as in the published log), no --op is needed.
  const std::string named = "$HOME/nccl-tests/build/all_reduce_perf_mpi -b 8 -e 128 -f 2 -g 1\n" + text;
  CHECK(parse_nccl_log(named, "tiny.log").op_source == OpSource::command_line);
  // The file name is weaker than --op: 'all_gather' in the name does not override it.
  CHECK(parse_nccl_log(text, "h100_all_gather.log", {.op = CollectiveOp::all_reduce}).op == CollectiveOp::all_reduce);
}

TEST_CASE("an alltoall and an all_gather copied without their binary: nccl-tests checks an alltoall's out-of-place result only") {
  // Both move data only (redop none) at busbw = (N-1)/N algbw: 8 ranks, 7/8. An alltoall's in-place
  // #wrong reads N/A (alltoall.cu: reportErrors = in_place ? 0 : 1), an all_gather's a count.
  const std::string header = "#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n";
  const std::string alltoall = header + "1048576 262144 uint8 none -1 18.09 57.96 50.71 0 16.81 62.39 54.59 N/A\n";
  const std::string all_gather = header + "1048576 32768 float none -1 19.69 53.24 46.59 0 20.17 51.99 45.49 0\n";
  CHECK(parse_nccl_log(alltoall, "t.log").op == CollectiveOp::all_to_all);
  CHECK(parse_nccl_log(all_gather, "t.log").op == CollectiveOp::all_gather);
  CHECK(parse_nccl_log(alltoall, "t.log").op_source == OpSource::columns);
  // Validation off (-c 0): both #wrong columns N/A, and nothing tells the two apart.
  CHECK(error_of(header + "1048576 32768 float none -1 19.69 53.24 46.59 N/A 20.17 51.99 45.49 N/A\n", "t.log") ==
        "t.log:2:1: error: cannot tell which collective this log measures (redop 'none' with busbw < algbw and no #wrong counts "
        "(validation off): all_gather or alltoall); give --op, or name it in the file name, e.g. 'mybox_all_reduce.log'");
}

TEST_CASE("--op that contradicts the op the log names is a located error") {
  // Line 9 col 24 is where `all_reduce_perf_mpi` starts in `$HOME/nccl-tests/build/all_reduce_perf_mpi`.
  CHECK(error_of(slurp(HGX), "hgx.log", {.op = CollectiveOp::all_gather}) ==
        "hgx.log:9:24: error: the log names all_reduce_perf_mpi (all_reduce), but --op says all_gather");
  // The same --op as the log names is fine, and keeps the log's own source.
  CHECK(parse_nccl_log(slurp(HGX), "hgx.log", {.op = CollectiveOp::all_reduce}).op_source == OpSource::command_line);
  // A test header naming one op: '# Collective test starting: all_gather_perf' at col 29.
  std::string text = slurp("calibrate/recorded/h100-8gpu-nvswitch-all-gather-ring.log");
  CHECK(error_of(text, "ag.log", {.op = CollectiveOp::reduce_scatter}) ==
        "ag.log:2:29: error: the log names all_gather_perf (all_gather), but --op says reduce_scatter");
  // --op with a log that names nothing is checked against busbw/algbw where it can be: the
  // DGX H100 log prints 1.75 = 2(N-1)/N of all_reduce at N = 8, not all_gather's 0.875.
  CHECK(error_of(slurp("calibrate/recorded/dgx-h100-8gpu-nvswitch.log"), "dgx.log", {.op = CollectiveOp::all_gather})
            .find("busbw/algbw = 480.16/274.38 = 1.7500, but all_gather over 8 ranks (from an 'nranks' comment, op from "
                  "--op) has bus factor 0.8750") != std::string::npos);
}

TEST_CASE("a log that names two different collectives is refused at the second") {
  const std::string text = "# command: ./build/all_gather_perf -b 8 -e 1M -g 2\n"
                           "# Collective test starting: all_reduce_perf\n" +
                           slurp(TINY);
  CHECK(error_of(text, "two.log") ==
        "two.log:2:29: error: the log names two collectives: all_gather_perf (line 1) and all_reduce_perf; a log holds "
        "one sweep of one collective");
}

TEST_CASE("a file of several runs, one after another: --op reads one, each line keeps its number") {
  // The recorded H100 all_gather and reduce_scatter ring logs, one after the other, as a script that
  // runs each *_perf binary and appends its output writes them: 54 lines each, the second run's
  // `# nccl-tests version` on line 55 and its `# Collective test starting: reduce_scatter_perf` on 56.
  const std::string ag = slurp("calibrate/recorded/h100-8gpu-nvswitch-all-gather-ring.log");
  const std::string rs = slurp("calibrate/recorded/h100-8gpu-nvswitch-reduce-scatter-ring.log");
  const std::string both = ag + rs;
  CHECK(error_of(both, "suite.log") ==
        "suite.log:56:29: error: the log holds runs of several collectives: all_gather_perf (line 2), reduce_scatter_perf "
        "(line 56); give --op to read one");
  const NcclLog alone = parse_nccl_log(rs, "rs.log");
  const NcclLog second = parse_nccl_log(both, "suite.log", {.op = CollectiveOp::reduce_scatter});
  CHECK(second.op == CollectiveOp::reduce_scatter);
  REQUIRE(second.rows.size() == alone.rows.size());
  CHECK(second.rows.front().line == alone.rows.front().line + 54);
  CHECK(second.rows.back().out_of_place.time_us == alone.rows.back().out_of_place.time_us);
  CHECK(parse_nccl_log(both, "suite.log", {.op = CollectiveOp::all_gather}).rows.front().line == parse_nccl_log(ag, "ag.log").rows.front().line);
  CHECK(error_of(both, "suite.log", {.op = CollectiveOp::all_to_all}) ==
        "suite.log:2:29: error: --op alltoall: the log holds no run of it, only all_gather_perf (line 2), "
        "reduce_scatter_perf (line 56)");
  // Two runs of one collective stay what they were: a second table is refused where it starts.
  CHECK(error_of(ag + ag, "twice.log").find("a second results table starts here") != std::string::npos);
  // Once another collective follows, the error stands at its first run (its header on line 2 x 54 + 2 = 110),
  // and --op naming a collective of two runs says so at the second rather than pick one.
  CHECK(error_of(ag + ag + rs, "three.log") ==
        "three.log:110:29: error: the log holds runs of several collectives: all_gather_perf (line 2), all_gather_perf "
        "(line 56), reduce_scatter_perf (line 110); give --op to read one");
  CHECK(error_of(ag + ag + rs, "three.log", {.op = CollectiveOp::all_gather}) ==
        "three.log:56:29: error: --op all_gather: the log holds more than one run of it (all_gather_perf (line 2) and "
        "all_gather_perf (line 56)); keep the one to read");
  CHECK(parse_nccl_log(ag + ag + rs, "three.log", {.op = CollectiveOp::reduce_scatter}).rows.size() ==
        parse_nccl_log(rs, "rs.log").rows.size());
}

TEST_CASE("envelope: NCCL version from nccl-tests' nccl-library code, one process driving 8 GPUs") {
  const NcclLog log = parse_nccl_log(slurp("calibrate/recorded/8xa100-80gb-sxm4-nccl2.19.log"), "a100.log");
  // `# nccl-tests version 2.19.4 nccl-headers=21903 nccl-library=21903`: 21903 = 2*10000 + 19*100 + 3.
  CHECK(log.nccl_tests_version == "2.19.4");
  CHECK(log.nccl_version == "2.19.3");
  CHECK(log.op_source == OpSource::test_header);
  CHECK(log.gpu_name == "NVIDIA A100-SXM4-80GB");
  CHECK(log.processes == 1);  // every Rank line has Pid 584419: nccl-tests -g 8
  CHECK(log.hosts == 1);
  CHECK(log.gpus_per_thread == 8);
  CHECK(log.threads_per_process == 1);
}

TEST_CASE("Rank lines condensed to one range a node, as a published walkthrough prints them") {
  // edwardsp/azcluster's 2x ND H100 v5 log: `Rank  0 .. Rank  7 on host  GPU`, one line a node. Each
  // range lists all its ranks: 2 x 8 = 16, so the Rank lines give the count, with 2 hosts and the GPU.
  const std::string log_text =
      "# nThread 1 nGpus 1 minBytes 8388608 maxBytes 16777216 step: 2(factor) warmup iters: 1 iters: 20\n"
      "#  Rank  0 .. Rank  7 on h100a-gpu-0001  NVIDIA H100 80GB HBM3\n"
      "#  Rank  8 .. Rank 15 on h100a-gpu-0002  NVIDIA H100 80GB HBM3\n"
      "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong\n"
      "     8388608       2097152     float     sum      -1   175.69   47.75   89.52       0   150.32   55.80  104.63       0\n"
      "    16777216       4194304     float     sum      -1   200.32   83.75  157.04       0   201.43   83.29  156.17       0\n";
  const NcclLog log = parse_nccl_log(log_text, "t.log");
  CHECK(log.nranks == 16);
  CHECK(log.nranks_source == NranksSource::rank_lines);
  CHECK(log.hosts == 2);
  CHECK(log.gpu_name == "NVIDIA H100 80GB HBM3");
  CHECK(log.processes == 0);  // no Pid in a condensed line
  // A range that runs backwards is not one: nothing is listed, and the count comes from busbw / algbw
  // (89.52 / 47.75 = 1.875 = 2 (N - 1) / N for N = 16).
  std::string backwards = log_text;
  backwards.replace(backwards.find("Rank  8 .. Rank 15"), 18, "Rank 15 .. Rank  8");
  backwards.replace(backwards.find("Rank  0 .. Rank  7"), 18, "Rank  7 .. Rank  0");
  const NcclLog b = parse_nccl_log(backwards, "t.log");
  CHECK(b.nranks == 16);
  CHECK(b.nranks_source == NranksSource::bw_ratio);
}

TEST_CASE("envelope: one process per GPU across 2 hosts; a reconstructed log records none") {
  const NcclLog gcp = parse_nccl_log(slurp("calibrate/recorded/gcp-a3mega-2x8-h100.log"), "gcp.log");
  CHECK(gcp.processes == 16);  // 16 distinct Pids (6899..6906 on one host, 6733..6740 on the other)
  CHECK(gcp.hosts == 2);
  CHECK(gcp.gpu_name == "NVIDIA H100 80GB HBM3");
  CHECK(gcp.nccl_version.empty());  // the log does not print it
  // The DGX H100 log was rendered from a table: no device block, no version line.
  const NcclLog dgx = parse_nccl_log(slurp("calibrate/recorded/dgx-h100-8gpu-nvswitch.log"), "dgx.log");
  CHECK(dgx.gpu_name.empty());
  CHECK(dgx.nccl_version.empty());
  CHECK(dgx.processes == 0);
  CHECK(dgx.hosts == 0);
}

TEST_CASE("envelope: mixed GPUs, old Rank lines without Group, NCCL INFO version line, nThread") {
  // Two different boards in one run (as in nccl-tests issue #131: a GTX 1050 Ti and a GTX 950).
  std::string text = "# nThread 2 nGpus 1 minBytes 8 maxBytes 128 step: 2(factor) warmup iters: 5 iters: 20\n" +
                     rank_line(0, 8756, "Meowth", "NVIDIA GeForce GTX 1050 Ti") +
                     rank_line(1, 8756, "Meowth", "NVIDIA GeForce GTX 950") +
                     "Meowth:8756:8756 [0] NCCL INFO NCCL version 2.16.5+cuda11.8\n" + slurp(TINY).substr(slurp(TINY).find("#\n#   "));
  NcclLog log = parse_nccl_log(text, "mixed.log", {.op = CollectiveOp::all_reduce});
  CHECK(log.gpu_name == "NVIDIA GeForce GTX 1050 Ti + NVIDIA GeForce GTX 950");
  CHECK(log.nccl_version == "2.16.5+cuda11.8");
  CHECK(log.threads_per_process == 2);
  CHECK(log.processes == 1);
  // nccl-tests before 2.10 printed `#   Rank  0 Pid 1821213 on host device  0 [0x00] NAME`.
  const std::string old = "#   Rank  0 Pid 1821213 on AI-A100-Beethoven01 device  0 [0x00] NVIDIA A100-SXM4-40GB\n"
                          "#   Rank  1 Pid 1821214 on AI-A100-Beethoven01 device  1 [0x00] NVIDIA A100-SXM4-40GB\n";
  log = parse_nccl_log(old + slurp(TINY).substr(slurp(TINY).find("#\n#   ")), "old.log", {.op = CollectiveOp::all_reduce});
  CHECK(log.gpu_name == "NVIDIA A100-SXM4-40GB");
  CHECK(log.processes == 2);
  CHECK(log.hosts == 1);
  CHECK(log.nranks == 2);
}

TEST_CASE("op names: the nccl-tests binary, with or without NAME_SUFFIX") {
  CHECK(op_from_name("all_reduce_perf_mpi") == CollectiveOp::all_reduce);
  CHECK(op_from_name("reduce_scatter_perf") == CollectiveOp::reduce_scatter);
  CHECK(op_from_name("sendrecv_perf") == CollectiveOp::send_recv);
  CHECK(op_from_name("AllGather") == CollectiveOp::all_gather);
  CHECK(!op_from_name("hypercube_perf"));  // an nccl-tests binary tpsim has no op for
  CHECK(!op_from_name("all_reduce_perfx"));
}

TEST_CASE("nccl-tests before 2.10: no root column, an `error` column in place of #wrong") {
  // 8x V100-SXM2 (2019): `#  size count type redop time algbw busbw error time algbw busbw error`,
  // the command line first (`root@...# ./build/all_reduce_perf -b 8 -e 128M -f 2 -g 8`).
  const NcclLog log = parse_nccl_log(slurp("tests/data/measured/nccl/8x-v100-sxm2-nvlink-mesh.log"), "v100.log");
  CHECK(log.op == CollectiveOp::all_reduce);
  REQUIRE(log.rows.size() == 25);
  CHECK(log.rows.front().size_B == 8);
  CHECK(log.rows.front().root == -1);
  // As printed: the 8 B row's out-of-place time, the 128 MiB row's busbw (1.75 x its algbw 73.80).
  CHECK(log.rows.front().out_of_place.time_us == doctest::Approx(48.46).scale(0));
  CHECK(log.rows.back().out_of_place.busbw_GBps == doctest::Approx(129.14).scale(0));
  CHECK(log.gpus_per_thread == 8);
  CHECK(log.gpu_name == "Tesla V100-SXM2-16GB");
  // A header with neither layout is still refused, naming the one it expects.
  CHECK(error_of("#  size count type redop time algbw busbw errs time algbw busbw errs\n", "x.log") ==
        "x.log:1:1: error: unrecognised nccl-tests column header (expected 'time algbw busbw #wrong'); expected '# size "
        "count type redop root time algbw busbw #wrong time algbw busbw #wrong'");
}

TEST_CASE("two ranks listed on one GPU are said") {
  // An MPI test of a single card lists its ranks on one host and bus id (a published RTX 5090 report,
  // both Rank lines device 0, bus 02:00): tpsim simulates a GPU per rank, and says the log did not.
  std::string tiny = slurp(TINY);
  const std::string rank1 = "#  Rank  1 Group  0 Pid  29263 on bm-h100-01 device  1 [0000:3b:00] NVIDIA H100 80GB HBM3";
  REQUIRE(tiny.find(rank1) != std::string::npos);
  tiny.replace(tiny.find(rank1), rank1.size(), "#  Rank  1 Group  0 Pid  29263 on bm-h100-01 device  0 [0000:19:00] NVIDIA H100 80GB HBM3");
  const NcclLog log = parse_nccl_log(tiny, "shared.log", {.op = CollectiveOp::all_reduce});
  CHECK(log.shared_gpu == "ranks 0 and 1 (host bm-h100-01, [0000:19:00])");
  CHECK(shared_gpu_note(log) == "the log lists ranks 0 and 1 (host bm-h100-01, [0000:19:00]) on one GPU: its ranks shared that GPU's "
                                "links and memory, where tpsim gives each rank a GPU of the platform, so its times are not those of the "
                                "GPUs simulated");
  // The same bus id on two hosts is two GPUs.
  CHECK(parse_nccl_log(slurp(TINY), "two-hosts.log", {.op = CollectiveOp::all_reduce}).shared_gpu.empty());
}

TEST_CASE("a row cut by NCCL's own output is read whole") {
  // With NCCL_DEBUG=INFO, NCCL connects a new algorithm's channels when a size first needs them and
  // prints that in the middle of the row; the row's rest follows on a line of its own
  // (tests/data/measured/nccl/2x-h100-8gpu-hgx4-nv6-snellius-ib200-nccl2.22.3.log: the 2 MiB row
  // starts on line 336, its times follow on line 398).
  const std::string tiny = slurp(TINY);
  const std::string row = "          32             8     float     sum      -1    24.93    0.00    0.00      0    25.02    0.00    0.00      0";
  REQUIRE(tiny.find(row) != std::string::npos);
  std::string cut = tiny;
  cut.replace(cut.find(row), row.size(),
              "          32             8     float     sum      -1bm-h100-01:29262:29300 [0] NCCL INFO Channel 00/0 : 15[7] -> 0[0] "
              "[receive] via NET/IB/0/GDRDMA\n"
              "bm-h100-01:29262:29300 [0] NCCL INFO Connected all rings\n"
              "    24.93    0.00    0.00      0    25.02    0.00    0.00      0");
  const NcclLog log = parse_nccl_log(cut, "cut.log", {.op = CollectiveOp::all_reduce});
  REQUIRE(log.rows.size() == 5);
  CHECK(log.rows[2].size_B == 32);
  CHECK(log.rows[2].out_of_place.time_us == doctest::Approx(24.93).scale(0));
  CHECK(log.rows[3].size_B == 64);
  // A cut row whose rest never comes: the next row stands where the rest should be.
  std::string lost = tiny;
  lost.replace(lost.find(row), row.size(),
               "          32             8     float     sum      -1bm-h100-01:29262:29300 [0] NCCL INFO Connected all rings");
  CHECK(error_of(lost, "lost.log", {.op = CollectiveOp::all_reduce}) ==
        "lost.log:29:1: error: this row, cut by NCCL's own output, has no rest before the next row (line 30)");
  // A container's host name can start with digits: its NCCL lines are not cut rows.
  std::string docker = tiny;
  docker.insert(docker.find(row), "3767c65d25c4:880:880 [1] NCCL INFO comm 0x55ba65abd9d0 rank 0 nranks 2 - Destroy COMPLETE\n");
  CHECK(parse_nccl_log(docker, "docker.log", {.op = CollectiveOp::all_reduce}).rows.size() == 5);
  // ... or the file ends first.
  const std::string end = tiny.substr(0, tiny.find(row)) +
                          "          32             8     float     sum      -1bm-h100-01:29262:29300 [0] NCCL INFO Connected all rings\n";
  CHECK(error_of(end, "end.log", {.op = CollectiveOp::all_reduce}) ==
        "end.log:29:1: error: this row, cut by NCCL's own output, has no rest before the file ends");
}

TEST_CASE("mpirun's output tags and Open MPI's messages inside the table are read past") {
  // `mpirun --tag-output` prefixes every line with [job,rank]<stdout>:, --timestamp-output with a
  // date; Open MPI prints `[host:pid] ...` help notices between rows. The tag is blanked, so an
  // error still points at the file's own column.
  std::istringstream in(slurp(TINY));
  std::string tagged, line;
  for (int n = 0; std::getline(in, line); ++n) {
    tagged += (n % 2 ? "[1,0]<stdout>:" : "Thu Jul 18 15:41:05 2024<stdout>:") + line + "\n";
    if (line.find("          16 ") == 0) tagged += "[host-11:00814] 15 more processes have sent help message help-mca-var.txt\n";
    // A copy that lost the prefix (the 8x A100 mpirun log of tests/data/measured/nccl): still no row.
    if (line.find("          32 ") == 0) tagged += "8 more processes have sent help message help-mtl-ofi.txt / OFI call fail\n";
    if (line.find("          64 ") == 0) tagged += "1 more process has sent help message help-mtl-ofi.txt / OFI call fail\n";
  }
  const NcclLog log = parse_nccl_log(tagged, "tagged.log", {.op = CollectiveOp::all_reduce});
  REQUIRE(log.rows.size() == 5);
  CHECK(log.rows[1].size_B == 16);
  CHECK(log.rows[2].size_B == 32);
  CHECK(log.hosts == 2);
  // The same tags indented as a block (a README's list item): `   [1,0]<stdout>:` is read past too.
  std::string indented;
  for (std::istringstream again(tagged); std::getline(again, line);) indented += "   " + line + "\n";
  CHECK(parse_nccl_log(indented, "indented.log", {.op = CollectiveOp::all_reduce}).rows.size() == 5);
  // Ray and SkyPilot put the worker's name before every line, before mpirun's tag or alone
  // (skypilot-org/skypilot examples/gcp_gpu_direct_tcpx: `(head, rank=0, pid=3808) [1,0]<stdout>:`).
  std::string ray, ray_only;
  for (std::istringstream again(tagged); std::getline(again, line);) ray += "(head, rank=0, pid=3808) " + line + "\n";
  for (std::istringstream again(slurp(TINY)); std::getline(again, line);) ray_only += "(pid=3808) " + line + "\n";
  const NcclLog from_ray = parse_nccl_log(ray, "ray.log", {.op = CollectiveOp::all_reduce});
  REQUIRE(from_ray.rows.size() == 5);
  CHECK(from_ray.rows[1].size_B == 16);
  CHECK(from_ray.hosts == 2);
  CHECK(parse_nccl_log(ray_only, "ray-only.log", {.op = CollectiveOp::all_reduce}).rows.size() == 5);
  // Parentheses without a pid are text, not a worker's name: the header behind them is not read.
  CHECK(error_of("(see below) #  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n", "p.log") ==
        "p.log: error: no nccl-tests data rows (expected lines like '8  2  float  sum  -1  13.67  0.00  0.00  0 ...' under the "
        "'#  size  count  type ...' header)");
  CHECK(log.nccl_version == "2.26.2+cuda12.8");
  CHECK(error_of("[1,0]<stdout>:#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n"
                 "[1,0]<stdout>:  8 2 float sum -1 x 0 0 0 1 0 0 0\n",
                 "t.log") == "t.log:2:34: error: expected a number >= 0 or N/A in the out-of-place time column, found 'x'");
  // --tag-output tags every write, and nccl-tests prints a row in three: the tag recurs before the
  // out-of-place and the in-place columns (a p5 EKS run, KeitaW/p5-nccl-test-2024-07-19). The
  // tags are blanked where they stand; an error still names the file's column.
  const std::string header = "[1,0]<stdout>:#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n";
  const NcclLog pieces = parse_nccl_log(header +
                                            "[1,0]<stdout>: 1048576 262144 float sum -1[1,0]<stdout>: 123.20 8.51 15.96 0[1,0]<stdout>: 122.90 8.53 16.00 0\n"
                                            "[1,0]<stdout>: 2097152 524288 float sum -1[1,0]<stdout>: 147.20 14.25 26.71 0[1,0]<stdout>: 146.80 14.29 26.79 0\n",
                                        "p5.log", {.op = CollectiveOp::all_reduce});
  REQUIRE(pieces.rows.size() == 2);
  CHECK(pieces.rows[0].out_of_place.time_us == doctest::Approx(123.20).scale(0));
  CHECK(pieces.rows[1].in_place.time_us == doctest::Approx(146.80).scale(0));
  CHECK(pieces.nranks == 16);  // busbw / algbw = 2 (n - 1) / n = 1.875
  CHECK(error_of(header + "[1,0]<stdout>:  8 2 float sum -1[1,0]<stdout>:  x 0.00 0.00 0[1,0]<stdout>:  74.97 0.00 0.00 0\n", "t.log") ==
        "t.log:2:49: error: expected a number >= 0 or N/A in the out-of-place time column, found 'x'");  // 14 + 18 + 14 + 2 characters before it
}

TEST_CASE("srun --label's task numbers before every line are read past, padded or not") {
  // `srun -l` prints `0: ` (` 0: ` when more than 9 tasks ran) before each line of task 0; the
  // label is blanked like mpirun's tag, so an error points at the file's own column.
  std::istringstream in(slurp(TINY));
  std::string labelled, line;
  for (int n = 0; std::getline(in, line); ++n) labelled += (n % 2 ? "0: " : " 0: ") + line + "\n";
  const NcclLog log = parse_nccl_log(labelled, "srun.log", {.op = CollectiveOp::all_reduce});
  REQUIRE(log.rows.size() == 5);
  CHECK(log.rows[1].size_B == 16);
  CHECK(error_of("0: #  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n"
                 "0:  8 2 float sum -1 x 0 0 0 1 0 0 0\n",
                 "t.log") == "t.log:2:22: error: expected a number >= 0 or N/A in the out-of-place time column, found 'x'");
}

TEST_CASE("a log's command line says its launch mode when the table's header does not") {
  // nccl-tests prints `# nThread 1 nGpus 2 ...`; a table copied without it still has the command:
  // `-g2`, `-g 2`, `--ngpus 2` and `--ngpus=2` are one thread driving 2 GPUs. The header wins.
  const std::string rows =
      "#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n"
      "8 2 float sum -1 12.25 0.00 0.00 0 12.00 0.00 0.00 0\n";
  for (const std::string cmd : {"# command: ./build/all_reduce_perf -b 8 -e 1G -f 2 -g2\n", "$ all_reduce_perf -b 8 -g 2\n",
                                "all_reduce_perf --ngpus 2 -b 8\n", "mpirun -np 1 ./all_reduce_perf --ngpus=2\n"}) {
    CAPTURE(cmd);
    CHECK(parse_nccl_log(cmd + "# nranks: 2\n" + rows, "t.log").gpus_per_thread == 2);
  }
  CHECK(parse_nccl_log("# nThread 1 nGpus 4 minBytes 8\n./all_reduce_perf -g 2\n# nranks: 4\n" + rows, "t.log").gpus_per_thread == 4);
  CHECK(parse_nccl_log("./all_reduce_perf -b 8\n# nranks: 2\n" + rows, "t.log").gpus_per_thread == 1);
}

TEST_CASE("the path class a log's words say: NVLink named but not denied, P2P off, a PCIe code") {
  // What `tpsim fit` assumes when neither --platform nor --path-class says (its output names it).
  CHECK(path_class_named("# 8x A100 SXM4, NVSwitch\n") == "NVL");
  CHECK(path_class_named("# topology: NV12 between the pairs\n") == "NVL");
  CHECK(path_class_named("# NVLINK bridge\n") == "NVL");
  CHECK(path_class_named("v100pcie_4gpu_noNVLink-P2Pdefault.log") == "");
  CHECK(path_class_named("# bessemer-node026 (no NVLINK)\n") == "");
  CHECK(path_class_named("# 4x A6000 without NVLink, behind one switch: PIX\n") == "PIX");
  CHECK(path_class_named("# non-nvlink box, SYS between the sockets\n") == "SYS");
  CHECK(path_class_named("# P2P not supported (topo -p2p p: NS)\n2x-rtx2080ti.log") == "SHM");
  CHECK(path_class_named("# NV4 pairs\n") == "NVL");
  CHECK(path_class_named("# NV40 is not a link code\n") == "");
}

TEST_CASE("a run that failed: the rows before nccl-tests' failure line are read, and the failure kept") {
  // NVIDIA/nccl-tests#322 (a 1,024-rank H100 run) ends with one `Test NCCL failure` line per host
  // after its last row; the rows before it are what the run measured.
  const std::string text =
      "./all_reduce_perf -b 8 -e 64\n# nThread 1 nGpus 1 minBytes 8 maxBytes 64 step: 2(factor)\n# nranks: 2\n"
      "#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n"
      "8 2 float sum -1 12.25 0.00 0.00 0 12.00 0.00 0.00 0\n"
      "16 4 float sum -1 12.30 0.00 0.00 0 12.10 0.00 0.00 0\n"
      "HCA-128: Test NCCL failure common.cu:1204 'unhandled cuda error'\n"
      " .. HCA-128 pid 757466: Test failure common.cu:915\n";
  const NcclLog log = parse_nccl_log(text, "t.log");
  CHECK(log.rows.size() == 2);
  CHECK(log.failure == "line 7: HCA-128: Test NCCL failure common.cu:1204 'unhandled cuda error'");
  CHECK(failure_note(log) ==
        "the run failed (line 7: HCA-128: Test NCCL failure common.cu:1204 'unhandled cuda error'): the 2 sizes it printed before are read");
  CHECK(parse_nccl_log(text.substr(0, text.find("HCA-128")), "t.log").failure.empty());
  // Failed before its first row was whole (NVIDIA/nccl-tests#355: an alltoall's 2 MiB row cut by the failure): said so.
  CHECK(error_of("#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n"
                 "     2097152         32768     float    none      -1 node0: Test CUDA failure common.cu:389 'an illegal memory access was encountered'\n",
                 "f.log") ==
        "f.log:1:1: error: the run failed before it printed a whole row (line 2: 2097152         32768     float    none      -1 node0: "
        "Test CUDA failure common.cu:389 'an illegal memory access was encountered'): no sizes to read");
}

TEST_CASE("the rank count: Rank lines with gaps are a lower bound; the launcher's -np times nGpus counts") {
  // 16 ranks as 2 processes x 8 GPUs: all_reduce busbw / algbw = 2 (16 - 1) / 16 = 1.875.
  const std::string rows =
      "#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n"
      "1048576 262144 float sum -1 100.0 10.49 19.66 0 100.0 10.49 19.66 0\n";
  const std::string header = "# nThread 1 nGpus 8 minBytes 8 maxBytes 64 step: 2(factor)\n";
  NcclLog np = parse_nccl_log("mpirun -np 2 -N 1 ./all_reduce_perf -b 1M -e 1M -g 8 -n 20\n" + header + rows, "t.log");
  CHECK(np.nranks == 16);
  CHECK(np.nranks_source == NranksSource::command_line);
  // nccl-tests' own `-n 20` (iterations) after the binary is not a process count.
  const NcclLog iters = parse_nccl_log("./all_reduce_perf -b 1M -g 8 -n 20\n" + header + rows, "t.log");
  CHECK(iters.nranks == 16);
  CHECK(iters.nranks_source == NranksSource::bw_ratio);
  CHECK(parse_nccl_log("srun --ntasks=2 all_reduce_perf -b 1M -e 1M -g 8\n" + header + rows, "t.log").nranks == 16);
  // A count before the launcher is not its: `tail -n 60` on the line of the command (a page's caption).
  const NcclLog tail = parse_nccl_log("# shown: tail -n 60 of the output of mpirun -np 2 ./all_reduce_perf -g 8\n" + header + rows, "t.log");
  CHECK(tail.nranks == 16);
  CHECK(tail.nranks_source == NranksSource::command_line);
  // Without a launcher (mpirun, mpiexec, srun, ...) a `-n` before the binary counts no processes.
  CHECK(parse_nccl_log("time -n 3 ./all_reduce_perf -g 8\n" + header + rows, "t.log").nranks_source == NranksSource::bw_ratio);
  // Ranks 0, 1 and 15 listed, 2-14 elided by whoever copied the log: the count comes from -np x nGpus
  // (without the command line, from busbw / algbw), not from the highest rank listed.
  const std::string listed = "#  Rank  0 Group  0 Pid 1 on a device  0 [0x07] NVIDIA H100 80GB HBM3\n"
                             "#  Rank  1 Group  0 Pid 1 on a device  1 [0x0f] NVIDIA H100 80GB HBM3\n"
                             "#  Rank 15 Group  0 Pid 2 on b device  7 [0xc2] NVIDIA H100 80GB HBM3\n";
  CHECK(parse_nccl_log(header + listed + rows, "t.log").nranks == 16);
  CHECK(parse_nccl_log(header + listed + rows, "t.log").nranks_source == NranksSource::bw_ratio);
  const std::string complete = "#  Rank  0 Group  0 Pid 1 on a device  0 [0x07] NVIDIA H100 80GB HBM3\n"
                               "#  Rank  1 Group  0 Pid 1 on a device  1 [0x0f] NVIDIA H100 80GB HBM3\n";
  CHECK_THROWS_WITH_AS(parse_nccl_log(header + complete + rows, "t.log"),
                       doctest::Contains("but all_reduce over 2 ranks (from the '#  Rank' lines"), InputError);
}

TEST_CASE("what a log forced NCCL to do: NCCL_ALGO, NCCL_PROTO, NCCL_P2P_*, from command lines and NCCL INFO") {
  // The forms published logs show: mpirun's -x, a leading assignment, an nccl.conf line, and NCCL's
  // own "set by environment" line (its trailing full stop dropped). NCCL's own line wins, else the first
  // line that sets a name, and on it the last setting.
  const std::string rows =
      "#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n"
      "1048576 262144 float sum -1 100.0 10.49 19.66 0 100.0 10.49 19.66 0\n";
  const NcclLog log = parse_nccl_log("mpirun -np 16 -x NCCL_ALGO=Ring -x NCCL_PROTO=LL128 ./all_reduce_perf -g 1\n"
                                     "NCCL_ALGO=Tree\n"
                                     "host:1:1 [0] NCCL INFO NCCL_P2P_LEVEL set by environment to SYS.\n" + rows,
                                     "t.log");
  CHECK(log.env.at("NCCL_ALGO").value == "Ring");
  CHECK(log.env.at("NCCL_ALGO").line == 1);
  CHECK(log.env.at("NCCL_P2P_LEVEL").value == "SYS");
  const LogSettings s = log_settings(log);
  CHECK(s.algorithm == "ring");
  CHECK(s.protocol == "LL128");
  CHECK(s.p2p_level == "SYS");
  REQUIRE(s.notes.size() == 3);
  CHECK(s.notes[0].text == "the log ran with NCCL_ALGO=Ring (line 1): simulated with --algorithm ring");
  // mpirun's later -x overrides an earlier one (nccl-tests#321 sets NCCL_NET_GDR_LEVEL=2, then =1); NCCL's
  // own line, wherever it comes, says what it ran with (there PIX).
  const NcclLog twice = parse_nccl_log("mpirun -np 16 -x NCCL_NET_GDR_LEVEL=2 -x NCCL_PROTO=LL -x NCCL_NET_GDR_LEVEL=1 -x NCCL_PROTO=Simple ./all_reduce_perf\n"
                                       "NCCL_PROTO=LL128\n"
                                       "h:1:1 [0] NCCL INFO NCCL_NET_GDR_LEVEL set by environment to PIX\n" + rows,
                                       "t.log");
  CHECK(twice.env.at("NCCL_PROTO").value == "Simple");
  CHECK(twice.env.at("NCCL_NET_GDR_LEVEL").value == "PIX");
  CHECK(twice.env.at("NCCL_NET_GDR_LEVEL").line == 3);
  // NVLSTree is tpsim's nvls; a list or an exclusion cannot be forced; P2P_DISABLE=1 is --p2p off.
  const LogSettings t = log_settings(parse_nccl_log("NCCL_ALGO=NVLSTree NCCL_PROTO=^LL128 NCCL_P2P_DISABLE=1 ./all_reduce_perf\n"
                                                    "# nranks: 16\n" + rows, "t.log"));
  CHECK(t.algorithm == "nvls");
  CHECK(t.protocol.empty());
  CHECK(t.p2p_level == "OFF");
  CHECK(t.notes[1].text ==
        "the log ran with NCCL_PROTO=^LL128 (line 1): not one tpsim can force (a list, an exclusion, or an algorithm it does not "
        "model), so tpsim chooses as without it");
  CHECK(log_settings(parse_nccl_log("./all_reduce_perf -g 1\n# nranks: 16\n" + rows, "t.log")).notes.empty());
  // NCCL_IB_DISABLE=1 is NCCL's sockets between nodes (the dexhunter 10GbE logs print it per rank).
  const LogSettings ib = log_settings(parse_nccl_log("host:1:1 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 1.\n"
                                                     "# nranks: 16\n" + rows, "t.log"));
  CHECK(ib.net_transport == "tcp");
  CHECK(ib.notes.at(0).text ==
        "the log ran with NCCL_IB_DISABLE=1 (line 1): simulated over TCP sockets between nodes (net_transport tcp)");
  // NCCL's own word for its transport wins: a net plugin (EFA through aws-ofi-nccl) runs with IB
  // disabled and is EFA; Socket is TCP.
  const LogSettings efa = log_settings(parse_nccl_log("h:1:1 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 1.\n"
                                                      "h:1:1 [0] NCCL INFO Using network AWS Libfabric\n# nranks: 16\n" + rows, "t.log"));
  CHECK(efa.net_transport == "efa");
  CHECK(efa.notes.at(0).text ==
        "the log's NCCL uses network AWS Libfabric (line 2): simulated over AWS EFA between nodes (net_transport efa)");
  // aws-ofi-nccl over HPE Slingshot names itself AWS Libfabric too; its provider line says cxi.
  const LogSettings cxi = log_settings(parse_nccl_log("h:1:1 [0] NCCL INFO NET/OFI Selected provider is cxi, fabric is cxi (found 4 nics)\n"
                                                      "h:1:1 [0] NCCL INFO Using network AWS Libfabric\n# nranks: 16\n" + rows, "t.log"));
  CHECK(cxi.net_transport == "cxi");
  CHECK(cxi.notes.at(0).text ==
        "the log's NCCL uses network AWS Libfabric (line 2; provider cxi, line 1): simulated over HPE Slingshot (libfabric cxi, "
        "simulated as RDMA) between nodes (net_transport cxi)");
  const LogSettings sock = log_settings(parse_nccl_log("[1,0]<stdout>:h:1:1 [0] NCCL INFO Using network Socket\n# nranks: 16\n" + rows, "t.log"));
  CHECK(sock.net_transport == "tcp");
  CHECK(sock.notes.at(0).text == "the log's NCCL uses network Socket (line 1): simulated over TCP sockets between nodes (net_transport tcp)");
  // Every rank on one host used no network, whatever the log set: no transport, no note (a Lambda
  // 4x H100 run printed NCCL_IB_DISABLE=1).
  std::string one_host_ranks;  // the rows' 16 ranks (their busbw / algbw), all on host h1, a GPU each
  for (int r = 0; r < 16; ++r)
    one_host_ranks += fmt::format("#  Rank {:2d} Group  0 Pid {} on h1 device {:2d} [0x{:02x}] NVIDIA H100 80GB HBM3\n", r, r + 1, r, r + 1);
  const LogSettings alone = log_settings(parse_nccl_log("h1:1:1 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 1.\n" + one_host_ranks + rows,
                                                        "t.log"));
  CHECK(alone.net_transport.empty());
  CHECK(alone.notes.empty());
  CHECK(parse_nccl_log(one_host_ranks + rows, "t.log").shared_gpu.empty());
  // A setting that changes the collective and that tpsim does not model is said, not dropped: the
  // p5 EKS job's NCCL_BUFFSIZE (8 MiB buffers: 1 MiB Simple steps where NCCL's default has 512 KiB).
  const LogSettings buff = log_settings(parse_nccl_log("[1,0]<stdout>:h:25:25 [0] NCCL INFO NCCL_BUFFSIZE set by environment to 8388608.\n"
                                                       "# nranks: 16\n" + rows, "t.log"));
  REQUIRE(buff.notes.size() == 1);
  CHECK(buff.notes[0].flag.empty());
  CHECK(buff.notes[0].text == "the log ran with NCCL_BUFFSIZE=8388608 (line 1), which tpsim does not model: simulated with NCCL's "
                              "default; where it changes what the log measured, the comparison shows it");
  // A comma or parenthesis after a value in prose is not the value's (Together's provenance line:
  // "NCCL_NVLS_ENABLE=1, NCCL_COLLNET_ENABLE=0, NCCL_ALGO unset"); a list's own commas are.
  const NcclLog prose = parse_nccl_log("# config: NCCL_NVLS_ENABLE=0, NCCL_ALGO=Ring,Tree (forced)\n# nranks: 16\n" + rows, "t.log");
  CHECK(prose.env.at("NCCL_NVLS_ENABLE").value == "0");
  CHECK(prose.env.at("NCCL_ALGO").value == "Ring,Tree");
  // Settings that leave NCCL as tpsim runs it, or that do not change a collective's time, are not said.
  CHECK(log_settings(parse_nccl_log("NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=eth0 NCCL_BUFFSIZE=4194304 NCCL_NVLS_ENABLE=1 "
                                    "NCCL_COLLNET_ENABLE=0 ./all_reduce_perf\n# nranks: 16\n" + rows, "t.log")).notes.empty());
  // A list is read whole, not as its first protocol.
  CHECK(log_settings(parse_nccl_log("NCCL_PROTO=LL,LL128 ./all_reduce_perf\n# nranks: 16\n" + rows, "t.log")).protocol.empty());
}

TEST_CASE("published layouts a helper found in session 38: nccl-tests before 2.10 without redop or root, a blockquote, lost '#'") {
  const std::string dir = "tests/data/measured/log_formats/";
  // DGX-2, 12 V100s, -g 12, before 2.10: all_gather prints `size count type time ...` (no redop, no root)
  // and, before June 2020, algbw = busbw = S (n-1)/n / t. Its 8 GiB row: 8589934560 B in 106773 us prints
  // 73.75 = 8589934560 x 11/12 / 106773 / 1e3; read as today's, algbw = S / t = 80.45, busbw = 73.75.
  const NcclLog gather = parse_nccl_log(slurp(dir + "dgx2-12xv100-g12-all-gather-before-2020.log"), "ag.log");
  CHECK(gather.op == CollectiveOp::all_gather);
  CHECK(gather.nranks == 12);
  CHECK(gather.bw_before_2020);
  REQUIRE(!gather.rows.empty());
  const NcclTiming& big = gather.rows.back().out_of_place;
  CHECK(big.algbw_GBps == doctest::Approx(8589934560.0 / 106773 / 1e3).scale(0));
  CHECK(big.busbw_GBps == doctest::Approx(73.75).scale(0));
  CHECK(bw_before_2020_note(gather) ==
        "the log prints all_gather's algbw and busbw as nccl-tests did before June 2020, both S (n-1)/n / time: read as today's, "
        "algbw S / time and busbw S (n-1)/n / time (its times as printed)");
  // The same box's broadcast: `size count type root time ...` (no redop): a data-only op with a root.
  const NcclLog bcast = parse_nccl_log(slurp(dir + "dgx2-12xv100-g12-broadcast-no-redop.log"), "bc.log");
  CHECK(bcast.op == CollectiveOp::broadcast);
  CHECK(bcast.rows.back().redop == "none");
  CHECK(bcast.rows.back().root == 0);
  CHECK_FALSE(bcast.bw_before_2020);
  // 8x RTX 2080 Ti -g 8, pasted into a Markdown blockquote: `> ` before every line, read past.
  const NcclLog quoted = parse_nccl_log(slurp(dir + "8x-rtx2080ti-g8-blockquote.log"), "bq.log");
  CHECK(quoted.op == CollectiveOp::all_reduce);
  CHECK(quoted.rows.size() == 25);
  CHECK(quoted.gpus_per_thread == 8);
  CHECK(quoted.gpu_name == "GeForce RTX 2080 Ti");
  // A page whose rendering dropped every leading '#': its `Out of bounds values` and `Avg bus bandwidth`
  // lines end the table as nccl-tests' commented ones do (16 ranks: busbw/algbw = 15/16).
  const NcclLog lost = parse_nccl_log(slurp(dir + "2x-a3high-h100-all-gather-hash-lost.log"), "a3-all-gather.log");
  CHECK(lost.op == CollectiveOp::all_gather);
  CHECK(lost.nranks == 16);
  CHECK(lost.rows.size() == 11);
}

TEST_CASE("a second helper's logs (session 38): scatter or gather, a -g N run of a bus-factor-1 op, -d all, aws-ofi-nccl's protocol") {
  const std::string header = "#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n";
  // An AWS scatter_perf copied without its binary: redop none and root 0 as a broadcast prints, but busbw/algbw
  // = 79.20/84.48 = 0.9375 = 15/16, which a broadcast (bus factor 1) never prints: scatter or gather, not said.
  CHECK(error_of(header + "  2147483648  33554432  float  none  0  25421  84.48  79.20  0  25283  84.94  79.63  0\n", "s.log") ==
        "s.log:2:1: error: cannot tell which collective this log measures (redop 'none' with a root and busbw < algbw: scatter "
        "or gather); give --op, or name it in the file name, e.g. 'mybox_all_reduce.log'");
  // sendrecv (bus factor 1) run by one process on 8 GPUs (li-plus/playground's `./build/sendrecv_perf ... -g 8`, no
  // launcher, no Rank lines): 1 thread x 8 GPUs = 8 ranks.
  const std::string rows = "   134217728  33554432  float  sum  -1  1000.0  134.22  134.22  0  1000.0  134.22  134.22  0\n"
                           "   268435456  67108864  float  sum  -1  1900.0  141.28  141.28  0  1900.0  141.28  141.28  0\n";
  const NcclLog one = parse_nccl_log("./build/sendrecv_perf -b 128M -e 1G -f 2 -g 8\n" + header + rows, "sr.log");
  CHECK(one.op == CollectiveOp::send_recv);
  CHECK(one.nranks == 8);
  CHECK(one.nranks_source == NranksSource::one_process);
  // Without -g (or with -g 1) nothing says the count: the fit refuses at the header, asking for it.
  const NcclLog unknown = parse_nccl_log("./build/sendrecv_perf -b 128M -e 1G -f 2\n" + header + rows, "sr1.log");
  CHECK(unknown.nranks == 0);
  FitOptions simple;
  simple.forced_protocol = Protocol::Simple;
  try {
    fit_collective(unknown, simple);
    FAIL("fitted a log whose rank count is unknown");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) ==
          "sr1.log:2: error: cannot tell how many ranks ran this send_recv (its busbw equals its algbw at any rank count, and no "
          "Rank lines, 'nranks' comment, launcher count or -g N says): add a line '# nranks: N' to the log");
  }
  // nccl-tests -d all: one sweep per datatype, the next starting over at a smaller size (an OpenShift H200 guide).
  CHECK(error_of("# nranks: 16\n" + header +
                     " 42949672960  42949672960  int8  sum  -1  206424  208.07  390.12  0  206000  208.50  390.94  0\n"
                     " 10737418240  10737418240  uint8  sum  -1  51692.2  207.72  389.47  0  51600  208.09  390.16  0\n",
                 "dall.log") ==
        "dall.log:4:2: error: the sweep starts over here with another datatype (uint8 after int8, line 3): the log holds one sweep "
        "per datatype (nccl-tests -d all); tpsim reads one sweep a file: keep one datatype's rows");
  // aws-ofi-nccl sets NCCL_PROTO itself and says so in NCCL's log (EKS Blueprints' T4 EFA run): what NCCL ran with.
  const NcclLog ofi = parse_nccl_log("h:21:21 [0] NCCL INFO NET/OFI Setting NCCL_PROTO to \"simple\"\n# nranks: 2\n" + header +
                                         "  1048576  262144  float  sum  -1  100.0  10.49  10.49  0  100.0  10.49  10.49  0\n",
                                     "ofi.log");
  CHECK(ofi.env.at("NCCL_PROTO").value == "simple");
  CHECK(ofi.env.at("NCCL_PROTO").by_nccl);
  CHECK(log_settings(ofi).protocol == "Simple");
}

TEST_CASE("prefixes that stack are peeled in one pass: a line of a million markers does not exhaust the stack") {
  // Ray's worker names and blockquote markers were peeled by recursion, one stack frame a prefix (200,000
  // frames for these `(pid=1) ` prefixes, a million for the `>`s). Now a loop: the row behind them reads.
  const std::string row = " 8 2 float sum -1 12.0 0.00 0.00 0 12.0 0.00 0.00 0\n";
  std::string rays;
  for (int i = 0; i < 200000; ++i) rays += "(pid=1) ";
  CHECK(error_of(rays + row, "ray.log") ==
        "ray.log:1:1: error: cannot tell which collective this log measures (no row with a non-zero algbw, and no *_perf "
        "binary named); give --op, or name it in the file name, e.g. 'mybox_all_reduce.log'");
  const NcclLog quoted = parse_nccl_log("# nranks: 8\n" + std::string(1000000, '>') + row, "q.log", {.op = CollectiveOp::all_reduce});
  REQUIRE(quoted.rows.size() == 1);
  CHECK(quoted.rows[0].size_B == 8);
  // Nested quotes as Markdown writes them, `> > ` (4 characters), with mpirun's tag after them, `[1,0]<stdout>:`
  // (14): 18 characters blanked.
  CHECK(log_text::output_tag_length("> > [1,0]<stdout>:  8 2 float") == 18);
}
