// Helpers shared by the subcommands of the tpsim executable.
#pragma once
#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

namespace tpsim {

// "0-3,6" -> {0,1,2,3,6}; throws ValueError.
std::vector<int> parse_gpu_list(const std::string& text);
// Parses argv; an exit code when the command must stop here (--help: 0, a usage mistake: 2).
std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv);
// Throws ValueError "FLAG must be one of A, B; did you mean ..." unless value is one of allowed.
void check_choice(const std::string& flag, const std::string& value, const std::vector<std::string>& allowed);
// Whether stderr is a terminal (progress is shown only there).
bool stderr_is_tty();

int run_scenario_command(int argc, char** argv);
int collective_command(int argc, char** argv);
int fit_command(int argc, char** argv);
int topo_command(int argc, char** argv);

}  // namespace tpsim
