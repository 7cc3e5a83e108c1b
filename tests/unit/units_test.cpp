// Units and located errors (sim/util).
#include <doctest/doctest.h>

#include "../scratch_dir.hpp"

#include "util/error.hpp"
#include "util/spelling.hpp"
#include "util/units.hpp"

using namespace tpsim;

TEST_CASE("quantities parse to SI") {
  CHECK(parse_bandwidth("450GBps") == doctest::Approx(450e9).scale(0));       // GB = 1e9 B
  CHECK(parse_bandwidth("400Gbps") == doctest::Approx(50e9).scale(0));        // bits: 400e9 / 8
  CHECK(parse_bandwidth("1GiBps") == doctest::Approx(1073741824.0).scale(0));  // GiB = 2^30 B
  CHECK(parse_time("1.2us") == doctest::Approx(1.2e-6).scale(0));
  CHECK(parse_time("5ms") == doctest::Approx(5e-3).scale(0));
  CHECK(parse_flop_rate("989Tf") == doctest::Approx(989e12).scale(0));
  CHECK(parse_size("80GiB") == doctest::Approx(80.0 * 1024 * 1024 * 1024).scale(0));
  CHECK(parse_size("16.06GB") == doctest::Approx(16.06e9).scale(0));
}

TEST_CASE("unit mistakes say what was expected") {
  auto message = [](auto f) {
    try {
      f();
    } catch (const ValueError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(message([] { parse_bandwidth("250GB"); }) == "'250GB' is a size, not a bandwidth; did you mean '250GBps'?");
  CHECK(message([] { parse_bandwidth("250"); }) == "'250' has no unit; a bandwidth needs one (e.g. '250GBps', '400Gbps')");
  CHECK(message([] { parse_time("fast"); }) == "'fast' is not a time (write e.g. '5us', '1.2ms')");
  CHECK(message([] { parse_time("-1us"); }) == "'-1us' is negative; a time must be >= 0");
  CHECK(message([] { parse_size("3furlongs"); }) == "'3furlongs': unknown unit 'furlongs' for a size (write e.g. '80GiB', '16.06GB')");
}

TEST_CASE("located errors are file:line:col: error: message, 1-based") {
  CHECK(InputError({"s.yaml", 4, 10}, "bad").what() == std::string("s.yaml:4:10: error: bad"));
  CHECK(InputError({"s.yaml"}, "no such file").what() == std::string("s.yaml: error: no such file"));
}

TEST_CASE("did you mean finds the nearest key within a typo's distance") {
  CHECK(did_you_mean("platfrom", {"platform", "model"}) == "; did you mean 'platform'?");
  CHECK(did_you_mean("zzzzzz", {"platform", "model"}).empty());
  CHECK(edit_distance("kitten", "sitting") == 3);
}

TEST_CASE("did you mean prefers the key a word abbreviates over a near typo") {
  const std::vector<std::string> workload{"arrivals", "batch", "prompt_tokens", "output_tokens", "rate_per_s",
                                          "burstiness", "requests", "duration", "trace"};
  // 'rate' is one edit from 'trace' but the first part of 'rate_per_s': the abbreviation wins.
  CHECK(did_you_mean("rate", workload) == "; did you mean 'rate_per_s'?");
  CHECK(did_you_mean("prompt", workload) == "; did you mean 'prompt_tokens'?");
  // Not whole parts: 'trac' and 'batc' are typos of 'trace' and 'batch'.
  CHECK(did_you_mean("trac", workload) == "; did you mean 'trace'?");
  CHECK(did_you_mean("batc", workload) == "; did you mean 'batch'?");
  // Under 3 letters a part means nothing: 'ra' suggests by edit distance only (2 edits: 'trace' is 3).
  CHECK(did_you_mean("ra", workload).empty());
}

#include <filesystem>
#include <fstream>

#include "util/text_file.hpp"

TEST_CASE("input files: missing, a directory, or read whole") {
  const auto dir = tpsim::test::scratch_dir() / "text-file";
  std::filesystem::create_directories(dir);
  const std::string file = (dir / "a.txt").string(), missing = (dir / "none.txt").string();
  std::ofstream(file) << "line 1\nline 2\n";
  CHECK(read_input_file(file) == "line 1\nline 2\n");
  CHECK_THROWS_WITH_AS(read_input_file(missing, "platform file"), (missing + ": error: no such platform file").c_str(), InputError);
  CHECK_THROWS_WITH_AS(read_input_file(dir.string(), "topology file"), (dir.string() + ": error: is a directory, not a topology file").c_str(),
                       InputError);
  std::filesystem::remove_all(dir);
}
