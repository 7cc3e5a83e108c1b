// Readers of single lines of an nccl-tests log (comments, command lines, Rank lines, NCCL's own
// messages), for parse_nccl_log. Internal to the fit library.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "nccl_log.hpp"

namespace tpsim::fit::log_text {

struct Token {
  std::string_view text;
  int col;  // 1-based
};

// The whitespace-separated words of `line`, each with its column.
std::vector<Token> tokenize(std::string_view line);
bool all_digits(std::string_view s);
std::optional<std::uint64_t> to_uint(std::string_view s);
std::string_view trim(std::string_view s);
// The lines of `text`, split at '\n' (a last empty line after a final '\n' included), each
// without its '\n'; line k (1-based) of the file is element k - 1.
std::vector<std::string_view> lines_of(std::string_view text);
bool starts_with(std::string_view s, std::string_view p);

// mpirun --tag-output / --timestamp-output prefix every line: `[1,0]<stdout>:` or
// `Thu Jul 18 15:41:05 2024<stdout>:`; srun --label a task number, `0: `; Ray and SkyPilot a worker's
// name, `(head, rank=0, pid=3808) `, before any of those; a Markdown blockquote `> ` before a pasted log.
// The length of such a tag (0 when the line has none).
std::size_t output_tag_length(std::string_view line);
// The line with every mpirun output tag and srun label blanked (output_tag_length's at its start,
// `[job,rank]<stdout>:` anywhere), so that columns stay those of the file.
std::string untagged_line(std::string_view line);
// Open MPI's own messages (`[host:pid] 15 more processes have sent help message ...`, also without
// the `[host:pid]` prefix).
bool is_mpi_message(std::string_view s);
// `NCCL_X=V` tokens and NCCL's `NCCL_X set by environment to V` in `s` (line `line_no`), into `env`.
void note_env(std::string_view s, int line_no, std::map<std::string, LogSetting>& env);
// nccl-tests' failure report (common.cu: `Test NCCL failure`, `Test CUDA failure`, `Test failure`).
bool is_test_failure(std::string_view s);
// NCCL's own log lines (`host:pid:tid [dev] NCCL INFO ...`) interleave with the table.
bool is_nccl_log_line(std::string_view s);
// A results row that NCCL's own output cut: with NCCL_DEBUG=INFO, NCCL connects a new algorithm's
// channels when a size first needs them and prints that in the middle of the row
// (`  2097152  524288  float  sum  -1host:1904979:1905073 [0] NCCL INFO Channel 00/0 ...`); the rest
// of the row follows the messages on a line of its own. The row's start before NCCL's message (its
// first five fields at least), or nullopt when the line is not such a cut row.
std::optional<std::string_view> row_head_before_nccl_message(std::string_view s);

// A collective the log names: `<op>_perf` (or nccl-tests' NAME_SUFFIX form `<op>_perf_mpi`) as a
// word of a comment or a command line, e.g. `./build/all_reduce_perf -b 8 -e 128 -g 8`.
struct NamedOp {
  CollectiveOp op;
  std::string word;  // the binary's name as the log writes it, path removed
  int line = 0, col = 0;
  OpSource source = OpSource::comment;
};
// `text` lies within `line` (a view into it); columns are those of `line`.
std::optional<NamedOp> named_op_in(std::string_view text, std::string_view line, int line_no, OpSource source);
// nccl-tests' GPUs per thread (`-g 8`, `-g8`, `--ngpus 8`, `--ngpus=8`); the table's own
// `# nThread 1 nGpus 8` header, when printed, wins over it.
std::optional<int> gpus_in_command(std::string_view text);
// The processes a launcher starts: mpirun's `-np N` / `-n N` / `--np N`, srun's `--ntasks N`.
std::optional<int> processes_in_command(std::string_view text);
std::optional<CollectiveOp> op_in_file_name(const std::string& file);

// The GPUs each thread drives (nccl-tests -g) and the threads each process runs (-t), from the
// `# nThread 1 nGpus 8 minBytes ...` line.
std::optional<int> gpus_per_thread_in_comment(std::string_view s);
std::optional<int> threads_in_comment(std::string_view s);
// `nranks: 16`, `nranks 16`, `nranks=16` in a comment.
std::optional<int> nranks_in_comment(std::string_view s);
// `nccl-library=21903` -> "2.19.3".
std::string nccl_version_from_code(std::string_view s);
// `NCCL version 2.26.2+cuda12.8` (alone, or in an NCCL INFO line): "2.26.2+cuda12.8".
std::string nccl_version_in(std::string_view s);

// What the `#  Rank  0 Group  0 Pid  12345 on host device  0 [0x07] NVIDIA A100-SXM4-80GB` lines
// say (older nccl-tests leave out `Group  0`), or a published copy's `Rank  0 .. Rank  7 on host  GPU`.
struct Devices {
  int max_rank = -1;
  std::set<int> ranks;                                   // the ranks listed (a copy may elide some)
  std::map<int, std::string> gpu;                        // rank -> GPU model
  std::set<std::pair<std::string, std::string>> procs;   // (host, Pid)
  std::set<std::string> hosts;
  std::map<std::pair<std::string, std::string>, int> rank_of_gpu;  // (host, bus id) -> the first rank listed on it
  std::string shared_gpu;  // "ranks 0 and 1 (host h, [0000:02:00])": two ranks listed on one GPU; "" when none
};
// `c` is the comment after '#', starting with "Rank ".
void read_rank_line(std::string_view c, Devices& d);
// The distinct GPU models in rank order, " + " between them.
std::string gpu_names(const Devices& d);

}  // namespace tpsim::fit::log_text
