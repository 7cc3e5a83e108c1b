// Errors of tpsim-calibrate and the exit status each maps to.
//
// Every message is printed once, by main, as `tpsim-calibrate: error: <message>`.
//   UsageError  -> exit 2  (bad argument, unreadable model card, GPU index not visible)
//   NoDeviceError -> exit 3 (no CUDA device visible: nothing can be measured)
//   CallError   -> exit 1  (a CUDA, NCCL or cuBLAS call failed; the message names the call)
//   RunError    -> exit 1  (anything else that stops a run: a file that cannot be written)
#pragma once
#include <stdexcept>
#include <string>

namespace tpsim::calib {

inline constexpr const char* TOOL_NAME = "tpsim-calibrate";
inline constexpr const char* TOOL_VERSION = "0.1.0";

inline constexpr int EXIT_USAGE = 2;
inline constexpr int EXIT_NO_DEVICE = 3;
inline constexpr int EXIT_FAILURE_RUN = 1;

class UsageError : public std::runtime_error {
  using std::runtime_error::runtime_error;
};

class NoDeviceError : public std::runtime_error {
  using std::runtime_error::runtime_error;
};

class RunError : public std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A failed library call: what() is `<call> failed: <error string>`.
class CallError : public RunError {
public:
  CallError(const std::string& call, const std::string& error_string)
      : RunError(call + " failed: " + error_string) {}
};

// `tpsim-calibrate: error: <message>`, the one line every failure prints.
std::string error_line(const std::string& message);

}  // namespace tpsim::calib
