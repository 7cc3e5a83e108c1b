// Subcommands being integrated: fit (calibrate/fit) and topo (sim/topo).
#include <iostream>

#include "cmd_common.hpp"

namespace tpsim {
int fit_command(int, char**) {
  std::cerr << "tpsim fit: error: not built yet\n";
  return 1;
}
int topo_command(int, char**) {
  std::cerr << "tpsim topo: error: not built yet\n";
  return 1;
}
}  // namespace tpsim
