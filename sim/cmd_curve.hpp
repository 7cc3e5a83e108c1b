// The curve reading shared by `tpsim fit` and `tpsim collective --compare` (report/curve_report.hpp):
// its options (--model, --plot, --gpu), the checks done before anything is computed or written,
// and the wiring from a parsed log, its path class and a collective model to a LogReading.
#pragma once
#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "config/calibration.hpp"
#include "config/model_card.hpp"
#include "fit/collective_fit.hpp"
#include "fit/nccl_log.hpp"
#include "model/collective_model.hpp"
#include "report/curve_report.hpp"

namespace tpsim {

// The model card the reading uses when --model is not given.
constexpr const char* DEFAULT_CURVE_MODEL = "workloads/models/llama-3.1-8b.yaml";
// The decode step the simulator runs for the verdict: batch 1 after a prefill of this many tokens.
constexpr long CURVE_CONTEXT_TOKENS = 4096;

struct CurveOptions {
  std::string model_path, plot_path, gpu_name;
};
void add_curve_options(CLI::App& app, CurveOptions& o);

// Checked before any work: the model card loads (the default one may be absent: then the reading
// has no model part and says why), --plot can be written and ends in .svg, --gpu is in the table.
struct CurveSetup {
  std::optional<ModelCard> model;
  std::string model_path, model_source, model_missing;
  const GpuSpec* gpu = nullptr;  // --gpu
};
CurveSetup prepare_curve_reading(const CurveOptions& o);

// One log to read, and what the caller has to simulate its box with (collectives == nullptr: the
// step is not simulated, simulation_missing says why).
struct CurveLogInput {
  const fit::NcclLog* log = nullptr;
  std::string text;        // the log's text (its '# hardware:' comment may name the GPU)
  std::string path_class;
  std::string model_curve_name;
  std::vector<std::pair<double, double>> model_curve;
  const CollectiveModel* collectives = nullptr;
  const Calibration* calibration = nullptr;
  std::vector<int> pair;   // the TP=2 group on the platform
  std::string platform;
  std::string simulation_missing;
};
LogReading read_log_curve(const CurveSetup& setup, const CurveLogInput& in);

// Every log read, the P2P on/off gaps found, with the platform's paths added to their explanation.
CurveReport curve_report(const CurveSetup& setup, std::vector<LogReading> logs, std::vector<std::string> unread);
// Writes the --plot SVG (and nothing when `plot_path` is empty).
void write_curve_plot(const CurveReport& r, const std::string& plot_path);

// What `tpsim fit` hands over per log, and the whole reading of a fit (simulated on --platform or
// the platform the log's manifest.yaml names).
struct FittedLog {
  fit::NcclLog log;
  std::string text, path_class;
  fit::CollectiveFit fit;
};
CurveReport read_fitted_curves(const CurveSetup& setup, const std::vector<FittedLog>& logs, const std::string& calibration_yaml,
                               const std::string& platform_path, const std::vector<int>& gpus);

// The reading of `tpsim collective --compare LOG`: the simulated curve beside the measured one, the
// decode step simulated on the command's platform (a process per GPU, as engines run).
CurveReport read_compared_curve(const CurveSetup& setup, const fit::NcclLog& log, const std::string& text,
                                const std::vector<fit::FitPoint>& simulated, const Topology& topo, const CollectiveSpec& spec,
                                const Calibration* calibration, const std::vector<int>& gpus, const std::string& platform_path);

}  // namespace tpsim
