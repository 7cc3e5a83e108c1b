// The reading of measured nccl-tests curves (`tpsim fit`, `tpsim collective --compare`) as text,
// JSON and an SVG plot: per log alpha, bus and algorithm bandwidth, the knee beside S*, the regime
// of a model's all-reduces, the TP=2 decode verdict of Eq. 1.4.7 and the simulated decode step;
// across logs of one box with P2P on and off, the large-message gap and the path behind it.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "curve_reading.hpp"
#include "tp_decode_check.hpp"

namespace tpsim {

struct LogReading {
  CurveReading curve;
  std::vector<CollectiveRegime> regimes;      // the model's decode and prefill all-reduces
  std::optional<DecodeEstimate> estimate;     // Eq. 1.4.7
  std::string estimate_missing;               // why there is none
  std::optional<DecodeSimulation> simulation;
  std::string simulation_missing;
  std::string model_curve_name;               // "fitted" or "simulated"
  std::vector<std::pair<double, double>> model_curve;  // (size B, time s)
  std::vector<std::string> notes;             // assumptions said once per log
};

struct CurveReport {
  std::string model;       // model card name ("" without one)
  std::string model_path;
  std::string model_source;  // "--model" or "default"
  std::vector<LogReading> logs;
  std::vector<ModeGap> gaps;
  std::vector<std::string> unread;  // logs with no curve to read, and why (read_curve's message)
};

// Comment lines ('# ' prefixed) for the terminal, after the command's own output.
std::string render_curve_text(const CurveReport& r);
// {"model":..., "logs":[{alpha_us, bus_bw_GBps, alg_bw_GBps, knee_B, s_star_B, alpha_star_us,
// tp2_decode_verdict, ...}], "mode_gaps":[...]}.
std::string render_curve_json(const CurveReport& r);
// `json_text` (an object) with the report's keys added: the sweep JSON of tpsim collective.
std::string merge_curve_json(const std::string& json_text, const CurveReport& r);
// Bus bandwidth and time against size, log axes: measured points, the fitted or simulated curve,
// the alpha-BW line of Eq. 1.4.3, the knee and S* marked (curve_plot.cpp).
std::string render_curve_svg(const CurveReport& r);

}  // namespace tpsim
