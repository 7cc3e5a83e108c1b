// Fuzz target: unit strings ("450GBps", "1.2us", "80GiB", "989Tf") as every file tpsim reads
// writes them. The same text is parsed as each Quantity and as a plain number. A value that
// parses must be finite and non-negative (units.hpp promises it); anything else is a finding.
#include <cmath>
#include <string>

#include "fuzz_common.hpp"
#include "util/units.hpp"

using namespace tpsim;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (Quantity q : {Quantity::time, Quantity::bandwidth, Quantity::size, Quantity::flop_rate}) {
    fuzz::accept_input_errors([&] {
      const double v = parse_quantity(text, q);
      if (!std::isfinite(v) || v < 0) fuzz::finding("parse_quantity('" + text + "') = " + std::to_string(v));
      // The report forms must not throw either.
      (void)format_time(v), (void)format_bandwidth(v), (void)format_size(v);
    });
  }
  fuzz::accept_input_errors([&] {
    const double v = parse_number(text);
    if (!std::isfinite(v)) fuzz::finding("parse_number('" + text + "') = " + std::to_string(v));
  });
  return 0;
}
