// The limits a scenario's values must keep and the messages that refuse them, shared by the
// scenario's readers (scenario.cpp) and its sweeps (scenario_sweep.cpp). Internal to sim/config.
#pragma once
#include <cmath>
#include <string>

#include <fmt/format.h>

namespace tpsim::scenario_limits {

// Resource limits: beyond them a run's memory or time is not sensible, so the value is refused
// with its location (tests/bad_input/too_many_*.yaml, too_long_*.yaml), never clipped.
constexpr double MAX_REQUESTS = 10'000'000;  // requests of one run: each is kept in memory
constexpr double MAX_BATCH = 1'000'000;      // sequences per replica (closed batch, max_num_seqs)
constexpr double MAX_TOKENS = 10'000'000;    // tokens of one prompt or output: beyond any context window
constexpr double MAX_SIGMA = 4;              // lognormal shape: sigma 4 is a CV of ~3000 already
constexpr double MAX_GPU_INDEX = 1'000'000;  // GPU indices and TP degrees

// A whole number or a count for messages: "20000000", "1.5", "1e+300".
inline std::string count(double v) { return std::fabs(v) < 1e15 ? fmt::format("{}", v) : fmt::format("{:g}", v); }

// Why a value of a key or a sweep is refused ("" = accepted).
inline std::string whole_in(double v, double low, double high, const std::string& what) {
  if (v != std::floor(v)) return "must be a whole number of " + what + ", not " + count(v);
  if (v < low) return "must be at least " + count(low);
  if (v > high) return "is above tpsim's limit of " + count(high) + " " + what;
  return "";
}
inline std::string positive_value(double v) { return v > 0 ? "" : "must be positive"; }

}  // namespace tpsim::scenario_limits
