#include "cmd_common.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <unistd.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "util/error.hpp"
#include "util/spelling.hpp"
#include "util/units.hpp"

namespace tpsim {

std::vector<int> parse_gpu_list(const std::string& text) {
  std::vector<int> out;
  std::stringstream ss(text);
  std::string part;
  while (std::getline(ss, part, ',')) {
    auto dash = part.find('-');
    try {
      const double x = parse_number(part.substr(0, dash)), y = dash == std::string::npos ? x : parse_number(part.substr(dash + 1));
      // Whole indices up to 65535: never cast from a value an int cannot hold, never a list of billions.
      if (x < 0 || y < x || y > 65535 || x != std::floor(x) || y != std::floor(y)) throw ValueError("bad range");
      const int a = int(x), b = int(y);
      for (int g = a; g <= b; ++g) out.push_back(g);
    } catch (const ValueError&) {
      throw ValueError("--gpus: '" + text + "' is not a GPU list (write e.g. 0-3 or 0,2)");
    }
  }
  if (out.empty()) throw ValueError("--gpus: '" + text + "' is not a GPU list (write e.g. 0-3 or 0,2)");
  std::vector<int> sorted = out;  // a range may list 65536 GPUs: sort, then compare neighbours
  std::sort(sorted.begin(), sorted.end());
  if (const auto twice = std::adjacent_find(sorted.begin(), sorted.end()); twice != sorted.end())
    throw ValueError(fmt::format("--gpus: '{}' lists GPU {} twice", text, *twice));
  if (out.size() < 2) throw ValueError(fmt::format("--gpus: '{}' lists one GPU; a collective runs on 2 or more", text));
  return out;
}

void check_choice(const std::string& flag, const std::string& value, const std::vector<std::string>& allowed) {
  if (std::find(allowed.begin(), allowed.end(), value) == allowed.end())
    throw ValueError(fmt::format("{} must be one of {}{}", flag, fmt::join(allowed, ", "), did_you_mean(value, allowed)));
}

std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  }
  return std::nullopt;
}

bool stderr_is_tty() { return isatty(STDERR_FILENO) != 0; }

}  // namespace tpsim
