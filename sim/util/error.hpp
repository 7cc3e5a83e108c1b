// Located errors: every mistake in a user's file is reported as
// `file:line:col: error: message` (1-based line and column; 0 means "not known")
// and makes tpsim exit with status 2. Internal errors are other exceptions (exit 1).
#pragma once
#include <stdexcept>
#include <string>

namespace tpsim {

struct Location {
  std::string file;
  int line = 0;  // 1-based, 0 = unknown
  int col = 0;   // 1-based, 0 = unknown
};

// Formats `file:line:col: error: message`, dropping the parts that are unknown.
std::string format_error(const Location& where, const std::string& message);
// The same for what tpsim tells but accepts: `file:line:col: note: message`.
std::string format_note(const Location& where, const std::string& message);

class InputError : public std::runtime_error {
public:
  InputError(Location where, std::string message);
  const Location& where() const { return where_; }
  const std::string& message() const { return message_; }

private:
  Location where_;
  std::string message_;
};

// A value error without a location yet (e.g. a unit string); callers add the location.
class ValueError : public std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace tpsim
