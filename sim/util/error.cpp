#include "error.hpp"

#include <fmt/format.h>

namespace tpsim {

std::string format_error(const Location& where, const std::string& message) {
  const std::string_view file = where.file.empty() ? std::string_view("tpsim") : std::string_view(where.file);
  if (where.line > 0 && where.col > 0) return fmt::format("{}:{}:{}: error: {}", file, where.line, where.col, message);
  if (where.line > 0) return fmt::format("{}:{}: error: {}", file, where.line, message);
  return fmt::format("{}: error: {}", file, message);
}

InputError::InputError(Location where, std::string message)
    : std::runtime_error(format_error(where, message)), where_(std::move(where)), message_(std::move(message)) {}

}  // namespace tpsim
