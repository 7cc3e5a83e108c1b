#include "error.hpp"

namespace tpsim {

std::string format_error(const Location& where, const std::string& message) {
  std::string out = where.file.empty() ? "tpsim" : where.file;
  if (where.line > 0) {
    out += ":" + std::to_string(where.line);
    if (where.col > 0) out += ":" + std::to_string(where.col);
  }
  return out + ": error: " + message;
}

InputError::InputError(Location where, std::string message)
    : std::runtime_error(format_error(where, message)), where_(std::move(where)), message_(std::move(message)) {}

}  // namespace tpsim
