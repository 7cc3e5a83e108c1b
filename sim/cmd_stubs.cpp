// Subcommands being integrated: fit (calibrate/fit) and topo (sim/topo).
#include <iostream>

#include "cmd_common.hpp"

namespace tpsim {
int topo_command(int, char**) {
  std::cerr << "tpsim topo: error: not built yet\n";
  return 1;
}
}  // namespace tpsim
