// Reader for nccl-tests output (all_reduce_perf, all_gather_perf, ...), as printed by
// nccl-tests v2.13 and by the newer releases that add a version line, a
// `# Collective test starting:` line, `N/A` cells and optional per-iteration columns.
//
// One file holds one sweep: data rows with strictly increasing sizes under one column
// header; a file of several runs of different collectives (each opening with `# Collective test
// starting:`) is read one run at a time, the one the caller's op names (nccl_log_sections.hpp).
// Noise that real logs carry (NCCL INFO/WARN lines, anything before the table) is skipped, and
// launchers' tags are read past (mpirun's `[1,0]<stdout>:`, srun's `0: `, Ray's
// `(pid=3808) `); a row that NCCL's INFO output cuts in two is joined with its rest. Inside the
// table every other non-comment line must be a well-formed data row, or the
// reader throws InputError located at the offending token (1-based line:col), but for
// nccl-tests' own failure report (`Test NCCL failure ...`): a run that failed keeps the rows it
// printed before, and says so (NcclLog::failure).
//
// Bus bandwidth vs algorithm bandwidth, as nccl-tests computes them (doc/PERFORMANCE.md):
//   algbw = S / t, busbw = algbw * f(op, N), with S the size column (for all_gather and
//   reduce_scatter the total buffer, N times the per-rank part) and
//   f = 2(N-1)/N for all_reduce; (N-1)/N for all_gather, reduce_scatter, alltoall, gather,
//   scatter; 1 for broadcast, reduce, send_recv (util/nccl_terms.hpp: bus_factor).
#pragma once
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/nccl_terms.hpp"

namespace tpsim::fit {


// Accepts "all_reduce", "allreduce", "all_reduce_perf", "AllReduce", and a binary built with
// nccl-tests' NAME_SUFFIX, "all_reduce_perf_mpi" (case and '_' ignored).
std::optional<CollectiveOp> op_from_name(std::string_view name);

// Where the reader learnt the collective. The first three are the log naming it; a log whose
// own names disagree, or that names another op than the caller's (--op), is refused.
enum class OpSource {
  test_header,   // `# Collective test starting: all_reduce_perf` (nccl-tests >= 2.14)
  comment,       // a comment naming the binary, e.g. `# command: ./build/all_reduce_perf -b 8 ...`
  command_line,  // a line before the table running the binary: `$ ./build/all_reduce_perf -b 8 -e 128 -g 8`
  given,         // the caller said so (tpsim fit / collective --op) and the log names no binary
  file_name,     // the file name contains it, e.g. `h100_all_gather.log`
  columns        // the redop/root columns and busbw/algbw (redop `none` -> all_gather, ...)
};
// Where the reader learnt the rank count.
enum class NranksSource {
  rank_lines,  // `#  Rank  7 Group  0 Pid ...` lines: highest rank + 1
  comment,     // a comment such as `# nranks: 16  nodes: 2 ...`
  command_line,  // the launcher's process count (`mpirun -np 16 ... all_reduce_perf -g 1`) x threads x GPUs
  bw_ratio,    // solved from busbw/algbw = f(op, N) on the row with the largest algbw
  one_process, // an op whose bus factor is 1 and no launcher shown: one process's threads x GPUs (-t, -g)
  unknown      // an op whose bus factor is 1 and no other source: nranks is 0 (tpsim fit refuses it)
};
const char* source_name(OpSource s);
const char* source_name(NranksSource s);

// One direction of a row (out-of-place or in-place). NaN where the log prints N/A.
struct NcclTiming {
  double time_us = NAN;
  double algbw_GBps = NAN;  // GB/s = 1e9 B/s, as nccl-tests prints it
  double busbw_GBps = NAN;
  double wrong = NAN;       // #wrong; N/A when the run had validation off (-c 0)
};

struct NcclRow {
  std::uint64_t size_B = 0;
  std::uint64_t count = 0;  // elements (per rank for all_gather)
  std::string type;         // float, half, bfloat16, ...
  std::string redop;        // sum, prod, ..., or none
  int root = -1;
  NcclTiming out_of_place;
  NcclTiming in_place;
  int line = 0;             // 1-based line of the row in the file
  int time_col = 0;         // 1-based column of the out-of-place time cell
  int busbw_col = 0;        // 1-based column of the out-of-place busbw cell
};

struct LogSetting {
  std::string value;
  int line = 0;
  bool by_nccl = false;  // NCCL's own `NCCL_X set by environment to V`: what it ran with
};

// The envelope a log measured, for a calibration to record: which GPU, which NCCL, and how
// nccl-tests was launched. Fields the log does not print stay empty / 0.
struct NcclLog {
  std::string file;                 // as given to the reader, used in messages
  CollectiveOp op = CollectiveOp::all_reduce;
  OpSource op_source = OpSource::columns;
  int nranks = 0;                   // 0 only with NranksSource::unknown
  NranksSource nranks_source = NranksSource::unknown;
  std::string nccl_tests_version;   // "2.19.6" when the log prints it, else empty
  // NCCL itself: "2.26.2+cuda12.8" from an `NCCL version 2.26.2+cuda12.8` line (NCCL_DEBUG=VERSION
  // or INFO prints it), else "2.19.3" from nccl-tests' `nccl-library=21903` (major*10000 +
  // minor*100 + patch since NCCL 2.9); empty when the log prints neither.
  std::string nccl_version;
  // The GPU model after `[bus id]` in the `#  Rank  0 Group  0 Pid 12345 on host device  0
  // [0x07] NVIDIA A100-SXM4-80GB` lines; ranks that differ are listed in rank order, joined by
  // " + ". Empty without Rank lines.
  std::string gpu_name;
  // Launch mode. nccl-tests runs processes x threads x GPUs per thread ranks (its README):
  int threads_per_process = 1;      // nccl-tests -t: `# nThread T ...`
  int gpus_per_thread = 1;          // nccl-tests -g: `# nThread 1 nGpus 8` is one thread launching on 8 GPUs
  int processes = 0;                // distinct (host, Pid) pairs of the Rank lines (mpirun -np); 0 without them
  int hosts = 0;                    // distinct host names of the Rank lines; 0 without them
  int ranks_listed = 0;             // ranks the Rank lines list: below nranks where a copy elided some (hosts a lower bound)
  int header_line = 0;              // line of the column header; 0 when the log has none
  std::vector<NcclRow> rows;        // strictly increasing size_B
  // NCCL environment settings the log shows, by name ("NCCL_ALGO" -> {"Ring", line}): `NCCL_X=V` on a
  // command line or in a comment (mpirun's `-x NCCL_X=V`, `export NCCL_X=V`, a leading `NCCL_X=V
  // ./all_reduce_perf`, an nccl.conf line), or NCCL's `NCCL INFO NCCL_X set by environment to V`.
  // NCCL's own line wins (what it ran with); else the first line that sets the name, and on that line its
  // last setting (mpirun's later `-x NCCL_X=V` overrides an earlier one). "network" is the transport NCCL says it uses (`NCCL INFO Using
  // network Socket`: Socket, IB, AWS Libfabric, ...).
  std::map<std::string, LogSetting> env;
  // nccl-tests' own failure line (`... Test NCCL failure common.cu:1204 '...'`) that ended the run:
  // "line N: <text>", the rows before it kept; empty when the run finished.
  std::string failure;
  // Two ranks its Rank lines put on one GPU (same host and bus id): "ranks 0 and 1 (host h, [0x02])";
  // empty when every rank has its own.
  std::string shared_gpu;
  // The log printed all_gather / reduce_scatter bandwidths as nccl-tests did before June 2020 (both
  // S (n-1)/n / time); its rows hold today's, restated (bw_before_2020_note).
  bool bw_before_2020 = false;
};

struct NcclReadOptions {
  // The collective the caller says the log measures (--op). Used when the log names no binary;
  // a log that names another one is refused at the line that names it.
  std::optional<CollectiveOp> op;
};

// Parses `text` (the whole file); `file` names it in messages and may reveal the op.
// Throws InputError on anything it cannot read (see the preamble).
NcclLog parse_nccl_log(const std::string& text, const std::string& file, const NcclReadOptions& options = {});

// What bw_before_2020 means, for a log that has it.
std::string bw_before_2020_note(const NcclLog& log);

// For a log of a reducing collective (all_reduce, reduce_scatter, reduce) in a datatype other than float,
// half or bfloat16: tpsim prices the bytes moved, and NCCL reduces other types slower (the published
// measurements the note cites); nullopt for the rest.
std::optional<std::string> datatype_note(const NcclLog& log);

// "the run failed at line N (...): the M sizes it printed before are read", for a log with a failure.
std::string failure_note(const NcclLog& log);
// "the log lists ranks 0 and 1 (...) on one GPU: ...", for a log whose ranks shared a GPU.
std::string shared_gpu_note(const NcclLog& log);

// The lines of `text` that are comments ('#' first), each ending in a newline.
std::string comment_lines(const std::string& text);

// The one-node path class a log's comments and file name say it measured: P2P unsupported or
// disabled -> "SHM" (host-staged); NVLink or NVSwitch named, in any case, and not denied ("no
// NVLink", "noNVLink", "without nvlink", "non-NVLink") or an NV# code -> "NVL"; else the first
// PCIe code it names (PIX, PXB, PHB, SYS); "" when it says none.
std::string path_class_named(const std::string& comments_and_name);

}  // namespace tpsim::fit
