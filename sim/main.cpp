// tpsim: argv -> subcommand -> exit code. The only catch-all: input errors exit 2 with
// `file:line:col: error: ...`, anything else is an internal error (exit 1).
#include <cstring>
#include <iostream>

#include "cmd_common.hpp"
#include "util/error.hpp"

int main(int argc, char** argv) {
  try {
    if (argc > 1 && std::strcmp(argv[1], "collective") == 0) return tpsim::collective_command(argc - 1, argv + 1);
    if (argc > 1 && std::strcmp(argv[1], "fit") == 0) return tpsim::fit_command(argc - 1, argv + 1);
    if (argc > 1 && std::strcmp(argv[1], "topo") == 0) return tpsim::topo_command(argc - 1, argv + 1);
    return tpsim::run_scenario_command(argc, argv);
  } catch (const tpsim::InputError& e) {
    std::cerr << e.what() << "\n";
    return 2;
  } catch (const tpsim::ValueError& e) {
    std::cerr << "tpsim: error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "tpsim: internal error: " << e.what() << "\n";
    return 1;
  }
}
