// Regression tests for what fuzzing (tests/fuzz) and the resource-limit review found: each input
// once crashed tpsim, hit undefined behaviour, or was silently wrapped or clipped into another
// value. Each is now an error with its exact message. Scenario-level cases (sweeps, batch,
// tokens, requests) are in tests/bad_input/.
#include <doctest/doctest.h>

#include "../scratch_dir.hpp"

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "config/calibration.hpp"
#include "config/model_card.hpp"
#include "config/platform_file.hpp"
#include "fit/collective_fit.hpp"
#include "fit/nccl_log.hpp"
#include "util/error.hpp"
#include "util/units.hpp"
#include "workloads/requests.hpp"

using namespace tpsim;
namespace fs = std::filesystem;

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string write_temp(const std::string& name, const std::string& text) {
  const fs::path path = tpsim::test::scratch_dir() / name;
  std::ofstream(path) << text;
  return path.string();
}

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  } catch (const ValueError& e) {
    return e.what();
  }
  return "(no error)";
}

const std::string PLATFORM_HEAD =
    "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n<platform version=\"4.1\">\n"
    "<zone id=\"box\" routing=\"Full\">\n";

}  // namespace

TEST_CASE("a quantity whose SI value overflows a double is refused, not infinite") {
  // 1e308 x 1e12 B/s = inf (found reviewing fuzz_units' invariant: a parsed value is finite).
  CHECK(error_of([] { parse_quantity("1e308TBps", Quantity::bandwidth); }) == "'1e308TBps' is too large for a bandwidth");
  CHECK(error_of([] { parse_quantity("1e306h", Quantity::time); }) == "'1e306h' is too large for a time");
  CHECK(parse_quantity("1e290GBps", Quantity::bandwidth) == doctest::Approx(1e299).scale(0));
}

TEST_CASE("a JSONL trace field without a value is a located error (was std::out_of_range)") {
  // fuzz_trace: split_fields("") is empty and .at(0) threw out_of_range, an internal error.
  const std::string path = write_temp("no_value.jsonl", "{\"timestamp\": 0.5, \"prompt_tokens\": 10, \"output_tokens\":}\n");
  CHECK(error_of([&] { read_trace(path); }) == path + ":1:41: error: \"output_tokens\" has no value");
  // The first ':' after the key was another key's: "timestamp" silently took prompt_tokens' 10.
  const std::string no_colon = write_temp("no_colon.jsonl", "{\"timestamp\" 0.5, \"prompt_tokens\": 10, \"output_tokens\": 2}\n");
  CHECK(error_of([&] { read_trace(no_colon); }) == no_colon + ":1:2: error: \"timestamp\" has no value");
}

TEST_CASE("trace timestamps out of range are errors (was signed overflow in the date arithmetic)") {
  // fuzz_trace: an hour of 1901534322 overflowed `h * 3600` (undefined behaviour).
  const std::string path = write_temp("hours.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 1901534322:15:46,10,2\n");
  CHECK(error_of([&] { read_trace(path); }) ==
        path + ":2:1: error: '2023-11-16 1901534322:15:46' is not a date and time (YYYY-MM-DD HH:MM:SS)");
  // Two finite timestamps whose difference is not.
  const std::string far = write_temp("far.csv", "timestamp,prompt_tokens,output_tokens\n-1e308,10,2\n1e308,10,2\n");
  CHECK(error_of([&] { read_trace(far); }) == far + ":3:1: error: timestamp is too far from the first one");
}

TEST_CASE("trace token counts beyond any context are refused, not rounded into a wrapped long") {
  const std::string path = write_temp("tokens.csv", "timestamp,prompt_tokens,output_tokens\n0,1e300,2\n");
  CHECK(error_of([&] { read_trace(path); }) == path + ":2:1: error: '1e300' tokens: tpsim refuses more than 10000000 tokens per request");
  const std::string negative = write_temp("negative.csv", "timestamp,prompt_tokens,output_tokens\n0,-1e300,2\n");
  CHECK(error_of([&] { read_trace(negative); }) == negative + ":2:1: error: token counts must be at least 1");
}

TEST_CASE("model card sizes beyond any real model are refused, not wrapped into an int") {
  const std::string card = "hidden_size: 4096\nnum_attention_heads: 32\nintermediate_size: 14336\nvocab_size: 128256\n";
  // 2^32 + 4096 used to become 4096 silently.
  const std::string wrapped = write_temp("wrapped.yaml", card + "num_hidden_layers: 32\nhead_dim: 4294971392\n");
  CHECK(error_of([&] { load_model_card(wrapped); }) ==
        wrapped + ":6:11: error: 'head_dim' is 4294971392; tpsim refuses more than 1048576 (no real model comes close)");
  // Layers make the op list of a step (layers x ops) and the kernel count: 10,000 at most.
  const std::string deep = write_temp("deep.yaml", card + "num_hidden_layers: 2000000000\n");
  CHECK(error_of([&] { load_model_card(deep); }) ==
        deep + ":5:20: error: 'num_hidden_layers' is 2000000000; tpsim refuses more than 10000 (no real model comes close)");
}

TEST_CASE("a platform GPU index that is not a small whole number is refused (was a float-to-int overflow)") {
  const std::string gpu = "<host id=\"gpu0\" speed=\"1Tf\"><prop id=\"gpu_model\" value=\"H100-SXM5-80GB\"/><prop id=\"index\" value=\"";
  const std::string huge = write_temp("huge.xml", PLATFORM_HEAD + gpu + "1e300\"/></host>\n</zone></platform>\n");
  CHECK(error_of([&] { load_platform_file(huge); }) ==
        huge + ":5:2: error: GPU host 'gpu0': 'index' must be a whole number from 0 to 1000000, not 1e300");
  const std::string half = write_temp("half.xml", PLATFORM_HEAD + gpu + "1.5\"/></host>\n</zone></platform>\n");
  CHECK(error_of([&] { load_platform_file(half); }) ==
        half + ":5:2: error: GPU host 'gpu0': 'index' must be a whole number from 0 to 1000000, not 1.5");
}

TEST_CASE("calibration counts that do not fit an int are refused, not wrapped") {
  // nranks 2^32 + 2 used to become 2.
  const std::string path = write_temp("cal.yaml",
                                      "collectives:\n  - op: all_reduce\n    nranks: 4294967298\n    protocols:\n"
                                      "      Simple: { latency: 10us, bus_bandwidth: 100GBps }\n");
  CHECK(error_of([&] { load_calibration(path); }) == path + ":3:13: error: 'nranks' is 4294967298, out of range (at most 1000000)");
}

TEST_CASE("nccl-tests logs: rank and root numbers that no int holds (were signed overflow and a float-to-int overflow)") {
  const std::string log = read_text(std::string(TPSIM_SOURCE_DIR) + "/calibrate/recorded/2x-rtx2080ti-pcie-pix-no-p2p.log");
  // `# Rank 2147483647` made nranks = max rank + 1 overflow; such a rank is ignored like an absurd
  // `nranks:` comment, and the log's own `# nranks: 2` gives the count.
  const fit::NcclLog ranked = fit::parse_nccl_log("#  Rank 2147483647 Group  0 Pid 1 on host device  0 [0x1b] NVIDIA\n" + log, "ranks.log");
  CHECK(ranked.nranks == 2);
  // A root of 1e300 was cast to int.
  std::string rooted = log;
  rooted.replace(rooted.find("      -1    12.25"), 17, "   1e300    12.25");
  CHECK(error_of([&] { fit::parse_nccl_log(rooted, "root.log"); }) ==
        "root.log:11:48: error: expected the root rank (an integer, -1 for none), found '1e300'");
}

TEST_CASE("a calibration whose 'collectives' is a mapping is a located error (was YAML::InvalidNode, an internal error)") {
  const std::string path = write_temp("not_a_list.yaml", "collectives:\n  source: dgx.log\n");
  CHECK(error_of([&] { load_calibration(path); }) == path + ":2:3: error: 'collectives' must be a list");
}

TEST_CASE("an nccl-tests log whose time falls 100000x at the largest size is refused (its fit had an infinite bandwidth)") {
  // fuzz_nccl_log: `tpsim fit` wrote `bus_bandwidth: infGBps`, which tpsim then refused to read.
  // The input it found (tests/fuzz/regressions/): the RTX 2080 Ti log, mangled, its 1 GiB time 2.68588 us.
  const std::string log = read_text(std::string(TPSIM_SOURCE_DIR) + "/tests/fuzz/regressions/nccl_log/infinite-bandwidth.log");
  const fit::NcclLog parsed = fit::parse_nccl_log(log, "falls.log");
  fit::FitOptions pcie;  // fitted as a PCIe log (no LL128), as `tpsim fit` does for this box
  pcie.ll128 = false;
  const std::string refused =
      "falls.log: error: the times do not follow latency + size / bandwidth (the fit gives an infinite bandwidth, a negative "
      "latency or times 100x off): check the time column";
  CHECK(error_of([&] { fit::fit_collective(parsed, pcie); }) == refused);
  // With LL128 too (an NVLink log): compilers round the polish differently; some reach a finite
  // 1e35 B/s, which the residual bound refuses (fitted time > 100x the measured one).
  CHECK(error_of([&] { fit::fit_collective(parsed, fit::FitOptions{}); }) == refused);
}
