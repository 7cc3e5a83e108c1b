// Fuzz target: request traces (CSV with a header, or JSONL when the input starts with '{'),
// read with read_trace. A trace that reads must hold requests with non-decreasing, finite,
// non-negative arrival times and at least one prompt and one output token each.
#include <cmath>

#include "fuzz_common.hpp"
#include "workloads/requests.hpp"

using namespace tpsim;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const bool jsonl = size > 0 && data[0] == '{';
  const std::string path = fuzz::write_scratch(jsonl ? "trace.jsonl" : "trace.csv", data, size);
  fuzz::accept_input_errors([&] {
    const auto requests = read_trace(path);
    double last = 0;
    for (const auto& r : requests) {
      if (!std::isfinite(r.arrival_s) || r.arrival_s < last) fuzz::finding("arrival times out of order or not finite");
      if (r.prompt_tokens < 1 || r.output_tokens < 1) fuzz::finding("a request with no tokens");
      last = r.arrival_s;
    }
  });
  return 0;
}
