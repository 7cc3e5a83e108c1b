#include "cmd_common.hpp"

#include <sstream>
#include <unistd.h>

#include "util/error.hpp"
#include "util/units.hpp"

namespace tpsim {

std::vector<int> parse_gpu_list(const std::string& text) {
  std::vector<int> out;
  std::stringstream ss(text);
  std::string part;
  while (std::getline(ss, part, ',')) {
    auto dash = part.find('-');
    try {
      const int a = int(parse_number(part.substr(0, dash)));
      const int b = dash == std::string::npos ? a : int(parse_number(part.substr(dash + 1)));
      if (a < 0 || b < a) throw ValueError("bad range");
      for (int g = a; g <= b; ++g) out.push_back(g);
    } catch (const ValueError&) {
      throw ValueError("'" + text + "' is not a GPU list (write e.g. 0-3 or 0,2)");
    }
  }
  if (out.empty()) throw ValueError("'" + text + "' is not a GPU list (write e.g. 0-3 or 0,2)");
  return out;
}

bool stderr_is_tty() { return isatty(STDERR_FILENO) != 0; }

}  // namespace tpsim
