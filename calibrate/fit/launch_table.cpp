#include "launch_table.hpp"

#include <climits>
#include <sstream>

#include "util/error.hpp"
#include "util/units.hpp"

namespace tpsim::fit {

LaunchFit parse_launch_csv(const std::string& text, const std::string& file) {
  LaunchFit fit;
  int smallest_graph = INT_MAX;
  std::istringstream in(text);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#' || line == "what,value_us") continue;
    const auto comma = line.find(',');
    if (comma == std::string::npos) throw InputError({file, n, 1}, "expected 'what,value_us', found '" + line + "'");
    const std::string what = line.substr(0, comma);
    double us = 0;
    try {
      us = parse_number(line.substr(comma + 1));
    } catch (const ValueError& e) {
      throw InputError({file, n, int(comma) + 2}, e.what());
    }
    if (!(us >= 0)) throw InputError({file, n, int(comma) + 2}, "a launch time must be >= 0");
    int k = 0;
    if (what == "kernel_launch_back_to_back") {
      fit.kernel_launch_s = us * 1e-6;
    } else if (std::sscanf(what.c_str(), "graph_launch_k%d_per_graph", &k) == 1 && what.find("_per_graph") != std::string::npos &&
               k < smallest_graph) {
      smallest_graph = k;
      fit.graph_launch_s = us * 1e-6;
    }
  }
  return fit;
}

}  // namespace tpsim::fit
