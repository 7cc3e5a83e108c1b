#include "error.hpp"

#include <fmt/format.h>

namespace tpsim {

namespace {

std::string format_located(const Location& where, std::string_view kind, const std::string& message) {
  const std::string_view file = where.file.empty() ? std::string_view("tpsim") : std::string_view(where.file);
  if (where.line > 0 && where.col > 0) return fmt::format("{}:{}:{}: {}: {}", file, where.line, where.col, kind, message);
  if (where.line > 0) return fmt::format("{}:{}: {}: {}", file, where.line, kind, message);
  return fmt::format("{}: {}: {}", file, kind, message);
}

}  // namespace

std::string format_error(const Location& where, const std::string& message) { return format_located(where, "error", message); }

std::string format_note(const Location& where, const std::string& message) { return format_located(where, "note", message); }

InputError::InputError(Location where, std::string message)
    : std::runtime_error(format_error(where, message)), where_(std::move(where)), message_(std::move(message)) {}

}  // namespace tpsim
