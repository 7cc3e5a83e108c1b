// Kernel and CUDA-graph launch overheads from tpsim-calibrate's launch.csv (`what,value_us`):
// `kernel_launch_back_to_back` is the per-kernel cost without graphs; the graph launch is the
// per-graph cost of the smallest measured graph (`graph_launch_k<K>_per_graph`).
#pragma once
#include <optional>
#include <string>

namespace tpsim::fit {

struct LaunchFit {
  std::optional<double> kernel_launch_s;
  std::optional<double> graph_launch_s;
};

// Throws InputError (file:line:col) on a malformed row.
LaunchFit parse_launch_csv(const std::string& text, const std::string& file);

}  // namespace tpsim::fit
