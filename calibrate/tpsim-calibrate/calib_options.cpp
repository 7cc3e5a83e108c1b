#include "tpsim-calibrate/calib_options.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <limits>
#include <ostream>

#include "tpsim-calibrate/calib_error.hpp"

namespace tpsim::calib {
namespace {

const char* const DESCRIPTION =
    "tpsim-calibrate 0.1.0: measure this GPU host for tpsim's fitter.\n"
    "Needs at least one visible NVIDIA GPU (CUDA driver), NCCL and cuBLAS. Records NCCL\n"
    "all_reduce / all_gather / reduce_scatter sweeps in the nccl-tests layout (one GPU pair\n"
    "per interconnect class and the full set, with P2P allowed and with NCCL_P2P_DISABLE=1),\n"
    "a bf16 cuBLAS GEMM sweep over a model card's decode and prefill shapes at TP 1, 2, 4, 8,\n"
    "the model's TP=1 decode and prefill steps as GEMM chains with KV-cache reads,\n"
    "HBM copy bandwidth, kernel and CUDA-graph launch overhead, and the machine description\n"
    "(nvidia-smi topo -m, versions).";

const char* const FOOTER =
    "Files written under --out: nccl/<collective>_gpus<set>_<p2p|p2p-off>.log, gemm.csv,\n"
    "hbm.csv, launch.csv, topo.txt, system.txt, manifest.yaml (lists every file written and\n"
    "every part skipped, with the reason). Nothing is written for a part that was not measured.\n"
    "Exit status: 0 done; 1 a CUDA/NCCL/cuBLAS call failed (the call is named); 2 bad\n"
    "arguments; 3 no CUDA device visible.";

int parse_int(const std::string& text, const std::string& what) {
  if (text.empty() || !std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); }))
    throw UsageError(what + " \"" + text + "\": expected a non-negative integer");
  if (text.size() > 6) throw UsageError(what + " \"" + text + "\": too large");
  return std::stoi(text);
}

}  // namespace

std::vector<int> parse_gpu_list(const std::string& text) {
  const std::string where = "--gpus \"" + text + "\"";
  if (text.empty()) throw UsageError(where + ": empty GPU list (write e.g. 0-3 or 0,2)");
  std::vector<int> gpus;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = text.find(',', start);
    const std::string piece = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (piece.empty()) throw UsageError(where + ": empty item in the list");
    const size_t dash = piece.find('-');
    if (dash == std::string::npos) {
      gpus.push_back(parse_int(piece, where + ": GPU"));
    } else {
      const int first = parse_int(piece.substr(0, dash), where + ": range start");
      const int last = parse_int(piece.substr(dash + 1), where + ": range end");
      if (last < first)
        throw UsageError(where + ": range " + piece + " ends before it starts");
      for (int g = first; g <= last; ++g) gpus.push_back(g);
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  std::sort(gpus.begin(), gpus.end());
  const auto dup = std::adjacent_find(gpus.begin(), gpus.end());
  if (dup != gpus.end()) throw UsageError(where + ": GPU " + std::to_string(*dup) + " is listed twice");
  return gpus;
}

std::string gpu_set_label(const std::vector<int>& gpus) {
  std::string label;
  for (size_t i = 0; i < gpus.size();) {
    size_t j = i;
    while (j + 1 < gpus.size() && gpus[j + 1] == gpus[j] + 1) ++j;
    if (!label.empty()) label += "+";
    label += std::to_string(gpus[i]);
    if (j > i) label += "-" + std::to_string(gpus[j]);
    i = j + 1;
  }
  return label;
}

uint64_t parse_byte_size(const std::string& text) {
  const std::string where = "size \"" + text + "\"";
  size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  if (digits == 0) throw UsageError(where + ": expected a number of bytes such as 8, 64K, 512M or 1G");
  if (digits > 15) throw UsageError(where + ": too large");
  const uint64_t value = std::stoull(text.substr(0, digits));
  const std::string suffix = text.substr(digits);
  uint64_t scale = 0;
  if (suffix.empty() || suffix == "B") scale = 1;
  else if (suffix == "K" || suffix == "KiB") scale = 1ull << 10;
  else if (suffix == "M" || suffix == "MiB") scale = 1ull << 20;
  else if (suffix == "G" || suffix == "GiB") scale = 1ull << 30;
  else if (suffix == "KB" || suffix == "MB" || suffix == "GB")
    throw UsageError(where + ": \"" + suffix + "\" is ambiguous; write " + suffix.substr(0, 1) + " or " +
                     suffix.substr(0, 1) + "iB (1024-based, as nccl-tests) or the plain byte count");
  else
    throw UsageError(where + ": unknown unit \"" + suffix + "\" (use K, M, G or KiB, MiB, GiB)");
  if (value > std::numeric_limits<uint64_t>::max() / scale) throw UsageError(where + ": too large");
  return value * scale;
}

std::vector<uint64_t> sweep_sizes(uint64_t min_bytes, uint64_t max_bytes, int factor) {
  std::vector<uint64_t> sizes;
  for (uint64_t s = min_bytes; s <= max_bytes; s *= static_cast<uint64_t>(factor)) {
    sizes.push_back(s);
    if (s > max_bytes / static_cast<uint64_t>(factor)) break;  // next step would pass max (or overflow)
  }
  return sizes;
}

ParseResult parse_command_line(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  ParseResult result;
  Options& o = result.options;
  for (int i = 0; i < argc; ++i) o.argv.emplace_back(argv[i]);

  CLI::App app{DESCRIPTION, TOOL_NAME};
  app.footer(FOOTER);
  std::string gpus_text, min_text = "8", max_text = "512M";
  app.add_option("--out", o.out_dir, "Output directory (created if missing)")->required();
  app.add_option("--gpus", gpus_text, "GPUs to use, as CUDA device ordinals: 0-3, 0,2 (default: all visible)");
  app.add_flag("--quick", o.quick, "Fewer sizes and iterations (iters 5, warmup 2, factor 4, fewer GEMM m)");
  bool no_p2p_off = false;
  app.add_flag("--no-p2p-off", no_p2p_off, "Skip the NCCL sweep with P2P disabled (NCCL_P2P_DISABLE=1)");
  app.add_option("--model", o.model_file,
                 "Model card (YAML or config.json, Hugging Face field names) for the GEMM shapes "
                 "(default: Llama-3.1-8B built in)");
  app.add_option("--min-bytes", min_text, "Smallest NCCL message (default 8)");
  app.add_option("--max-bytes", max_text, "Largest NCCL message, K/M/G are 1024-based (default 512M)");
  auto* factor_opt = app.add_option("--factor", o.factor, "Size multiplier between NCCL rows (default 2; quick 4)");
  auto* iters_opt = app.add_option("--iters", o.iters, "Timed iterations per point (default 20; quick 5)");
  auto* warmup_opt = app.add_option("--warmup", o.warmup, "Discarded warm-up iterations per point (default 5; quick 2)");
  app.add_flag("--internal-p2p-off-child", o.p2p_off_child)->group("");  // hidden: re-exec'd child

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    result.exit_code = app.exit(e, out, err);
    return result;
  } catch (const CLI::ParseError& e) {
    err << error_line(e.what()) << "\nRun with --help for the options.\n";
    result.exit_code = EXIT_USAGE;
    return result;
  }

  try {
    o.p2p_off_sweep = !no_p2p_off;
    if (!gpus_text.empty() || app.count("--gpus")) o.gpus = parse_gpu_list(gpus_text);
    o.min_bytes = parse_byte_size(min_text);
    o.max_bytes = parse_byte_size(max_text);
    if (o.quick) {
      if (!iters_opt->count()) o.iters = 5;
      if (!warmup_opt->count()) o.warmup = 2;
      if (!factor_opt->count()) o.factor = 4;
    }
    if (o.out_dir.empty()) throw UsageError("--out: empty directory name");
    if (o.min_bytes < 1) throw UsageError("--min-bytes must be at least 1");
    if (o.min_bytes > o.max_bytes)
      throw UsageError("--min-bytes " + std::to_string(o.min_bytes) + " is above --max-bytes " +
                       std::to_string(o.max_bytes));
    if (o.factor < 2) throw UsageError("--factor " + std::to_string(o.factor) + ": must be at least 2");
    if (o.iters < 1 || o.iters > 100000)
      throw UsageError("--iters " + std::to_string(o.iters) + ": must be between 1 and 100000");
    if (o.warmup < 0 || o.warmup > 100000)
      throw UsageError("--warmup " + std::to_string(o.warmup) + ": must be between 0 and 100000");
  } catch (const UsageError& e) {
    err << error_line(e.what()) << "\n";
    result.exit_code = EXIT_USAGE;
    return result;
  }
  result.run = true;
  return result;
}

}  // namespace tpsim::calib
