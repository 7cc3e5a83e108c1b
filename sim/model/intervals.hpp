// How sure a prediction is. Each reference step splits into GPU time (weights, compute,
// attention, launch, host) and collective time; each part moves by the relative spread of what
// it rests on — a calibration's fit residuals, or, for datasheet defaults, the project's own
// documented validation spread (README "Validation", calibrate/README.md) — and the figures
// move with their step: TTFT with the prefill, TPOT with the decode step, end-to-end latency as
// TTFT plus the decode part, throughput inversely. Queueing moves with its step (an
// approximation: near saturation a slower step queues more than in proportion).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "config/calibration.hpp"
#include "results.hpp"

namespace tpsim {

// A relative spread and where the figure comes from: the figure may be `down` lower or `up`
// higher (both relative; equal unless the spread is a factor, as for host-staged defaults).
// A bandwidth spread moves only a collective's bandwidth term (phase_spread).
struct Spread {
  double down = 0, up = 0;
  std::string source;
  bool bandwidth_only = false;
};

// GPU time: datasheet defaults, or a calibration's GEMM table.
Spread gpu_time_spread(const Calibration* calibration);
// One configuration's collectives: calibrated (within the fit's envelope: its residuals; carried
// to another box: the leave-one-box-out spread), defaults on one node, across nodes, or staged
// through host memory at the default copy rates (`copy_rates_given`: the scenario set them).
Spread collective_spread(const ConfigResult& c, const Calibration* calibration, const std::vector<std::string>& calibration_use,
                         bool copy_rates_given = false);

// The spread of one phase's collective time: a bandwidth spread weighted by the share of `plan`'s
// time that is bandwidth, its latency share at the defaults' spread; any other spread as it is.
Spread phase_spread(const Spread& s, const std::optional<CollectivePlan>& plan);

// The intervals of a configuration's figures for the two spreads.
FigureBounds bounds_of(const ConfigResult& c, double gpu_spread, const Spread& collective_spread);

// "robust" when the winner beats every other fitting configuration with its own figure at the
// unfavourable end of its interval and theirs at the favourable end; "too close to call"
// otherwise. `why` gets the numbers.
std::string confidence_of(const std::vector<ConfigResult>& configs, const std::string& winner, const std::string& objective,
                          std::string* why);

// What the numbers rest on, one line each: the calibration file, what it was fitted from (logs,
// GEMM tables, on which GPU), or datasheet defaults; and the spreads behind the intervals.
std::vector<std::string> grounding_of(const Calibration* calibration, const std::string& gpu_model, const Spread& gpu,
                                      const std::vector<Spread>& collectives);

// All of the above for a scenario's configurations: bounds per fitting configuration, the
// confidence of its recommendation and the grounding lines.
void attach_intervals(ScenarioResult& r, const Calibration* calibration, bool copy_rates_given);

}  // namespace tpsim
