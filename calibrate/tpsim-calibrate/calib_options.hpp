// Command line of tpsim-calibrate: the typed options, their defaults, and the parsers of the
// two small languages they use (GPU lists "0-3" / "0,2" and byte sizes "8" / "512M").
//
// Invariants after parse_command_line returns `run == true`: out_dir is not empty,
// 1 <= min_bytes <= max_bytes, factor >= 2, iters >= 1, warmup >= 0, gpus has no duplicates
// and is sorted ascending (empty means "every visible GPU").
#pragma once
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace tpsim::calib {

struct Options {
  std::string out_dir;            // --out: where every file goes (created if missing)
  std::vector<int> gpus;          // --gpus: CUDA device ordinals; empty = all visible
  bool quick = false;             // --quick: fewer sizes and iterations
  bool p2p_off_sweep = true;      // false with --no-p2p-off
  std::string model_file;         // --model: model card; empty = built-in Llama-3.1-8B shapes
  uint64_t min_bytes = 8;         // --min-bytes: smallest NCCL message
  uint64_t max_bytes = 512ull << 20;  // --max-bytes: largest NCCL message (512 MiB)
  int factor = 2;                 // --factor: size multiplier between NCCL rows
  int iters = 20;                 // --iters: timed iterations per point (median, p99)
  int warmup = 5;                 // --warmup: discarded iterations per point
  bool p2p_off_child = false;     // hidden: this process is the P2P-disabled NCCL sweep
  std::vector<std::string> argv;  // the command line as given, for the manifest and the child
};

struct ParseResult {
  bool run = false;  // false: exit now with exit_code (help printed, or a usage error)
  int exit_code = 0;
  Options options;
};

// Parses argv with CLI11. Help goes to `out`; usage errors are printed to `err` as
// `tpsim-calibrate: error: ...` and give exit code 2. --quick lowers the defaults of
// --iters (5), --warmup (2) and --factor (4); values given explicitly always win.
ParseResult parse_command_line(int argc, const char* const* argv, std::ostream& out,
                               std::ostream& err);

// "0-3" -> {0,1,2,3}; "0,2" -> {0,2}; "0-1,4-5" -> {0,1,4,5}. Result sorted, no duplicates.
// Throws UsageError naming the offending piece.
std::vector<int> parse_gpu_list(const std::string& text);

// Compact label of a GPU set for file names: {0,1,2,3} -> "0-3", {0,2} -> "0+2",
// {0,1,4,5} -> "0-1+4-5".
std::string gpu_set_label(const std::vector<int>& gpus);

// "8" -> 8, "64K" -> 65536, "512M" -> 536870912, "1G" -> 1073741824. K, M, G are binary
// (1024-based) as in nccl-tests' -b/-e; "KiB", "MiB", "GiB" and a trailing "B" are accepted
// too. Decimal "MB"/"GB" are refused as ambiguous. Throws UsageError.
uint64_t parse_byte_size(const std::string& text);

// The NCCL message sizes: min, min*factor, ... up to max inclusive.
std::vector<uint64_t> sweep_sizes(uint64_t min_bytes, uint64_t max_bytes, int factor);

}  // namespace tpsim::calib
