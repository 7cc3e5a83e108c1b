// The scenario runner's pieces that other analyses of a scenario reuse (what would change the
// answer re-evaluates the configurations at other inputs): the loaded inputs, one
// configuration's run, and the objective's score. Engine layer: run_config may run SimGrid.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "config/calibration.hpp"
#include "config/model_card.hpp"
#include "config/platform_file.hpp"
#include "model/results.hpp"
#include "scenario_runner.hpp"

namespace tpsim {

struct Inputs {
  ModelCard model;          // scaled when the scenario sets model.weight_bytes
  PlatformDesc platform;
  std::shared_ptr<const Calibration> calibration;
};

// Loads and cross-checks the files a scenario names; throws located InputErrors.
Inputs load_inputs(const Scenario& s);
// `in` with its model card scaled to the scenario's model.weight_bytes (unchanged without it).
Inputs with_scenario_model(const Inputs& in, const Scenario& s);
// The configuration with its groups placed (`layout: auto`); `note` gets the placement's reason.
ConfigSpec placed_config(const Scenario& s, const Inputs& in, const CollectiveModel& cm, ConfigSpec c, std::string* note);
// Memory fit and the reference steps; with `simulate`, the serving run too (when it fits).
ConfigResult run_config(const Scenario& s, const Inputs& in, const ConfigSpec& c, const Topology& topo, const CollectiveModel& cm,
                        const RunOptions& opt, bool simulate = true);
// The objective's score of a configuration: lower is better; infinite when it does not fit or serves nothing.
double score(const ConfigResult& r, Objective o);
// The best configuration by the objective (the first of equals); "" when none fits.
std::string winner_of(const std::vector<ConfigResult>& configs, Objective o);

}  // namespace tpsim
