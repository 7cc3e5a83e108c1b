// Runs a disaggregated (xPyD) configuration of a scenario: memory per pool, the reference steps
// of each pool, the run (engine/disaggregated.hpp), and the KV-transfer figures it reports.
#pragma once
#include "config/calibration.hpp"
#include "config/platform_file.hpp"
#include "model/results.hpp"
#include "scenario_runner.hpp"

namespace tpsim {

struct RunnerInputs {
  const ModelCard& model;
  const PlatformDesc& platform;
  const Calibration* calibration;
};

// Before anything runs: every pool GPU on the platform, both pools' TP able to shard the model,
// every prefill GPU connected to every decode GPU — else InputError at the configuration's pools.
void validate_disaggregation(const Scenario& s, const ModelCard& model, const PlatformDesc& platform, const ConfigSpec& c);

// The configuration's reference steps, memory and KV transfer figures; with `simulate`, also its
// serving run (what-would-change probes first rank configurations on their reference steps).
ConfigResult run_disaggregated_config(const Scenario& s, const RunnerInputs& in, const ConfigSpec& c, const Topology& topo,
                                      const CollectiveModel& cm, const RunOptions& opt, bool simulate);

}  // namespace tpsim
