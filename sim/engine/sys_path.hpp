// `links.sys_path.bandwidth`: the SYS route scaled as a whole. A value v is the pace its slowest
// stage should run at; every PCIe, PCIe-switch, host-bridge and socket link and every copy through
// host memory is multiplied by v / (their pace now), so that v = now is the platform itself and the
// stages keep their proportions (HardwareSpec::sys_path_scale).
#pragma once
#include <optional>
#include <string>

#include "scenario_eval.hpp"

namespace tpsim {

// The SYS route's pace now: its narrowest PCIe, host-bridge or socket link, or, where a SYS route
// is host-staged, the slower copy through host memory when that is slower; nullopt when the
// platform has none of those links.
std::optional<double> sys_path_bandwidth(const Scenario& s, const Inputs& in);

// apply_sweep_value, then the SYS route's target (if the parameter set one) turned into its scale.
void apply_swept_value(Scenario& s, const Inputs& in, const std::string& parameter, double v);

}  // namespace tpsim
