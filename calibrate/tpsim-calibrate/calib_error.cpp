#include "tpsim-calibrate/calib_error.hpp"

namespace tpsim::calib {

std::string error_line(const std::string& message) {
  return std::string(TOOL_NAME) + ": error: " + message;
}

}  // namespace tpsim::calib
